// The rules page: the static text is translated by i18n.js; the colour key and the tactic
// cards (with their effects, the same text as the tooltips) are drawn here.

import { cardFace, cardName, COLOUR_LETTERS, TACTICS } from "./cards.js";
import { byId, el, fill } from "./dom.js";
import { initI18n, t } from "./i18n.js";

function colourKey() {
  const items = [...COLOUR_LETTERS].map((letter) => {
    const text = `7${letter}`;
    return el("div", { class: "key-item" }, cardFace(text), el("span", { text: cardName(text) }));
  });
  fill(byId("colour-key"), ...items);
}

function tacticList() {
  const items = Object.entries(TACTICS).map(([code, info]) => el("div", { class: "tactic-item", data: { tactic: code } },
    cardFace(code),
    el("div", {},
      el("h3", { text: t(info.name) }),
      el("p", { class: "muted", text: t(info.family) }),
      el("p", { text: t(info.effect) }))));
  fill(byId("tactic-list"), ...items);
}

async function main() {
  await initI18n();
  colourKey();
  tacticList();
}

main();
