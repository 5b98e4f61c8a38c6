// Cards: reading a card's notation ("7b", "JO"), drawing faces and backs, names, the short
// code printed on a tactic card (a catalogue entry per language) and tactic tooltips.

import { el, fittedText, svg } from "./dom.js";
import { N_, t } from "./i18n.js";

export const COLOUR_LETTERS = "gbrypk";
export const COLOURS = ["green", "blue", "red", "yellow", "purple", "pink"];

// English names used as catalogue keys (t() translates them where they are shown).
const COLOUR_NAMES = [N_("green"), N_("blue"), N_("red"), N_("yellow"), N_("purple"), N_("pink")];

// One distinct symbol per colour (colour-blind friendly): triangle, circle, square, star,
// diamond, heart, drawn on a 10x10 box.
const SYMBOLS = [
  ["polygon", { points: "5,0.8 9.6,9.2 0.4,9.2" }],
  ["circle", { cx: 5, cy: 5, r: 4.4 }],
  ["rect", { x: 1, y: 1, width: 8, height: 8 }],
  ["polygon", { points: "5,0.3 6.3,3.6 9.8,3.8 7.1,6 8,9.6 5,7.6 2,9.6 2.9,6 0.2,3.8 3.7,3.6" }],
  ["polygon", { points: "5,0.2 9.6,5 5,9.8 0.4,5" }],
  ["path", { d: "M5 9.4 L1.1 5.4 A2.4 2.4 0 0 1 5 2.3 A2.4 2.4 0 0 1 8.9 5.4 Z" }],
];

/** The tactic cards: English name, the code printed on the face, family and effect (the
 * tooltip), all catalogue keys (each language prints its own code: "MF" is "LL" in Portuguese). */
export const TACTICS = {
  JO: {
    name: N_("Joker"),
    code: N_("JO"),
    family: N_("Elite troop"),
    effect: N_("Any colour and any value from 1 to 9, chosen at its best when the stone is resolved. You may never have two Jokers on your side of the border."),
  },
  SP: {
    name: N_("Spy"),
    code: N_("SP"),
    family: N_("Elite troop"),
    effect: N_("A 7 of any colour, chosen at its best when the stone is resolved."),
  },
  SH: {
    name: N_("Shield-bearer"),
    code: N_("SH"),
    family: N_("Elite troop"),
    effect: N_("A 1, 2 or 3 of any colour, chosen at its best when the stone is resolved."),
  },
  BB: {
    name: N_("Blind-man's Bluff"),
    code: N_("BB"),
    family: N_("Combat mode"),
    effect: N_("Played on a stone itself: there, only the total of the values counts, not the formation."),
  },
  MF: {
    name: N_("Mud Fight"),
    code: N_("MF"),
    family: N_("Combat mode"),
    effect: N_("Played on a stone itself: there, each side needs four cards and holds at most four."),
  },
  ST: {
    name: N_("Strategist"),
    code: N_("ST"),
    family: N_("Ruse"),
    effect: N_("Take one of your cards from an unclaimed stone and put it on another unclaimed stone with room, or discard it."),
  },
  BA: {
    name: N_("Banshee"),
    code: N_("BA"),
    family: N_("Ruse"),
    effect: N_("Discard one of your opponent's cards from an unclaimed stone."),
  },
  TR: {
    name: N_("Traitor"),
    code: N_("TR"),
    family: N_("Ruse"),
    effect: N_("Take one of your opponent's clan cards from an unclaimed stone and put it on your side of any unclaimed stone with room."),
  },
  RE: {
    name: N_("Recruiter"),
    code: N_("RE"),
    family: N_("Ruse"),
    effect: N_("Draw three cards from either or both decks, then put two cards from your hand under their decks."),
  },
};

export const MODE_CODES = ["BB", "MF"];

/** The translated name of a colour (0-5). */
export function colourName(colour) {
  return t(COLOUR_NAMES[colour]);
}

/** Read a card's notation: {text, clan, value, colour} for clan cards, {text, clan: false, code}. */
export function parseCard(text) {
  const colour = COLOUR_LETTERS.indexOf(text[1]);
  if (text.length === 2 && /[1-9]/.test(text[0]) && colour >= 0) {
    return { text, clan: true, value: Number(text[0]), colour };
  }
  return { text, clan: false, code: text };
}

/** The readable, translated name of a card: "blue 7", "Joker". */
export function cardName(text) {
  const card = parseCard(text);
  if (!card.clan) return TACTICS[card.code] ? t(TACTICS[card.code].name) : text;
  return t("{colour} {value}", { colour: t(COLOUR_NAMES[card.colour]), value: card.value });
}

/** The short label printed in a card's corner: the value of a clan card, a tactic card's code
 * in the page's language. */
export function cardLabel(text) {
  const card = parseCard(text);
  if (card.clan) return String(card.value);
  return TACTICS[card.code] ? t(TACTICS[card.code].code) : text;
}

/** The tooltip of a card: tactic cards explain their effect. */
export function cardTip(text) {
  const card = parseCard(text);
  if (card.clan) return cardName(text);
  const info = TACTICS[card.code];
  if (!info) return text;
  return `${t(info.name)} (${t(info.family)}): ${t(info.effect)}`;
}

/** The SVG symbol of a colour (0-5). */
export function colourSymbol(colour, extraClass = "") {
  const [tag, attrs] = SYMBOLS[colour];
  return svg("svg", { class: `sym ${extraClass}`.trim(), viewBox: "0 0 10 10", "aria-hidden": "true" },
    svg(tag, attrs));
}

function tacticIcon(code) {
  const family = TACTICS[code] ? TACTICS[code].family : "";
  const shape = family === TACTICS.JO.family
    ? svg("polygon", { points: "1,8.5 1,3 3.5,5.5 5,1.5 6.5,5.5 9,3 9,8.5" })
    : family === TACTICS.BB.family
      ? svg("path", { d: "M1.5 1.5 L8.5 8.5 M8.5 1.5 L1.5 8.5", "stroke-width": 1.6, stroke: "currentColor" })
      : svg("path", { d: "M5 0.8 C8 3 8 7 5 9.2 C2 7 2 3 5 0.8 Z" });
  return svg("svg", { class: "sym", viewBox: "0 0 10 10", "aria-hidden": "true" }, shape);
}

/** Draw a card face. opts: {small, extraClass, data, title} */
export function cardFace(text, opts = {}) {
  const card = parseCard(text);
  const classes = ["card", card.clan ? `clan col-${COLOUR_LETTERS[card.colour]}` : "tactic"];
  if (opts.small) classes.push("small");
  if (opts.extraClass) classes.push(opts.extraClass);
  const label = cardLabel(text);
  const icon = card.clan ? colourSymbol(card.colour) : tacticIcon(card.code);
  const name = cardName(text);
  const node = el("div", {
    class: classes.join(" "),
    title: opts.title || cardTip(text),
    data: { card: text, ...(opts.data || {}) },
    attrs: { "aria-label": name, role: opts.data && opts.data.action ? "button" : "img" },
  },
  el("span", { class: "corner top" }, el("span", { class: "val", text: label }), icon),
  el("span", { class: "mid" }, card.clan ? colourSymbol(card.colour, "big")
    : fittedText(name, { cls: "tname", width: 40, size: 9 })),
  el("span", { class: "corner bottom" }, el("span", { class: "val", text: label })));
  return node;
}

/** Draw a card back: kind "clan" or "tactic". */
export function cardBack(kind, opts = {}) {
  return el("div", {
    class: `card back back-${kind}${opts.small ? " small" : ""}`,
    title: kind === "clan" ? t("Clan card") : t("Tactic card"),
    attrs: { "aria-label": kind === "clan" ? t("Clan card") : t("Tactic card"), role: "img" },
  }, el("span", { class: "back-mark", text: kind === "clan" ? "" : "T" }));
}

/** Compare cards for sorting by colour (then value) or by value (then colour); tactics last. */
export function sortCards(cards, by) {
  const key = (text) => {
    const card = parseCard(text);
    if (!card.clan) return [1, Object.keys(TACTICS).indexOf(card.code), 0];
    return by === "value" ? [0, card.value, card.colour] : [0, card.colour, card.value];
  };
  return [...cards].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < 3; i += 1) if (ka[i] !== kb[i]) return ka[i] - kb[i];
    return 0;
  });
}
