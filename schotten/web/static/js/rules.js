// The rules page: the static text is translated by i18n.js; the colour key and the tactic
// cards (with their effects, the same text as the tooltips) are drawn here. Every rule has an
// anchor (/rules#R5.2: the game page's why? links).

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

/** The rule the address names (/rules#R5.2), scrolled to again once the text is translated. */
function showTarget() {
  const rule = decodeURIComponent(window.location.hash.slice(1));
  const node = rule ? document.getElementById(rule) : null;
  if (node) node.scrollIntoView({ block: "start" });
}

async function main() {
  await initI18n();
  colourKey();
  tacticList();
  showTarget();
}

main();
