// Cards: parsing the notation ("7b", "JO"), drawing faces and backs, names, tactic tooltips,
// and the formation a complete side makes (to show troop values once a stone is resolved).

import { el, svg } from "./dom.js";
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

/** The tactic cards: English name, family and effect (the tooltip), all catalogue keys. */
export const TACTICS = {
  JO: {
    name: N_("Joker"),
    family: N_("Elite troop"),
    effect: N_("Any colour and any value from 1 to 9, chosen at its best when the stone is resolved. You may never have two Jokers on your side of the border."),
  },
  SP: {
    name: N_("Spy"),
    family: N_("Elite troop"),
    effect: N_("A 7 of any colour, chosen at its best when the stone is resolved."),
  },
  SH: {
    name: N_("Shield-bearer"),
    family: N_("Elite troop"),
    effect: N_("A 1, 2 or 3 of any colour, chosen at its best when the stone is resolved."),
  },
  BB: {
    name: N_("Blind-man's Bluff"),
    family: N_("Combat mode"),
    effect: N_("Played on a stone itself: there, only the total of the values counts, not the formation."),
  },
  MF: {
    name: N_("Mud Fight"),
    family: N_("Combat mode"),
    effect: N_("Played on a stone itself: there, each side needs four cards and holds at most four."),
  },
  ST: {
    name: N_("Strategist"),
    family: N_("Ruse"),
    effect: N_("Take one of your cards from an unclaimed stone and put it on another unclaimed stone with room, or discard it."),
  },
  BA: {
    name: N_("Banshee"),
    family: N_("Ruse"),
    effect: N_("Discard one of your opponent's cards from an unclaimed stone."),
  },
  TR: {
    name: N_("Traitor"),
    family: N_("Ruse"),
    effect: N_("Take one of your opponent's clan cards from an unclaimed stone and put it on your side of any unclaimed stone with room."),
  },
  RE: {
    name: N_("Recruiter"),
    family: N_("Ruse"),
    effect: N_("Draw three cards from either or both decks, then put two cards from your hand under their decks."),
  },
};

export const RUSE_CODES = ["ST", "BA", "TR", "RE"];
export const MODE_CODES = ["BB", "MF"];

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
  const label = card.clan ? String(card.value) : card.code;
  const icon = card.clan ? colourSymbol(card.colour) : tacticIcon(card.code);
  const name = cardName(text);
  const node = el("div", {
    class: classes.join(" "),
    title: opts.title || cardTip(text),
    data: { card: text, ...(opts.data || {}) },
    attrs: { "aria-label": name },
  },
  el("span", { class: "corner top" }, el("span", { class: "val", text: label }), icon),
  el("span", { class: "mid" }, card.clan ? colourSymbol(card.colour, "big") : el("span", {
    class: "tname",
    text: name,
  })),
  el("span", { class: "corner bottom" }, el("span", { class: "val", text: label })));
  return node;
}

/** Draw a card back: kind "clan" or "tactic". */
export function cardBack(kind, opts = {}) {
  return el("div", {
    class: `card back back-${kind}${opts.small ? " small" : ""}`,
    title: kind === "clan" ? t("Clan card") : t("Tactic card"),
    attrs: { "aria-label": kind === "clan" ? t("Clan card") : t("Tactic card") },
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

// ------------------------------------------------------------------ formations (R4, R7.3)

const RANK_NAMES = [N_("Sum"), N_("Run"), N_("Colour"), N_("Three of a kind"), N_("Colour-run")];
const ALL_CLAN = [];
for (let colour = 0; colour < 6; colour += 1) {
  for (let value = 1; value <= 9; value += 1) ALL_CLAN.push({ value, colour });
}
const WILD_OPTIONS = {
  JO: ALL_CLAN,
  SP: ALL_CLAN.filter((c) => c.value === 7),
  SH: ALL_CLAN.filter((c) => c.value <= 3),
};

function score(cards, bluff) {
  const total = cards.reduce((sum, c) => sum + c.value, 0);
  if (bluff) return { rank: 0, total };
  const values = cards.map((c) => c.value).sort((a, b) => a - b);
  const oneColour = cards.every((c) => c.colour === cards[0].colour);
  const run = values.every((v, i) => i === 0 || v === values[i - 1] + 1);
  const kind = values.every((v) => v === values[0]);
  const rank = oneColour && run ? 4 : kind ? 3 : oneColour ? 2 : run ? 1 : 0;
  return { rank, total };
}

/**
 * The best formation of a complete side (elite troops at their best, R7.3):
 * {rank, total, name, troops: [{code, as: "9r"}]}, or null when the side is not complete.
 */
export function bestFormation(texts, size, bluff) {
  if (texts.length < size) return null;
  const fixed = [];
  const wild = [];
  for (const text of texts) {
    const card = parseCard(text);
    if (card.clan) fixed.push(card);
    else if (WILD_OPTIONS[card.code]) wild.push(card.code);
  }
  let best = null;
  const chosen = [];
  const search = (i) => {
    if (i === wild.length) {
      const found = score([...fixed, ...chosen], bluff);
      if (!best || found.rank * 64 + found.total > best.rank * 64 + best.total) {
        best = { ...found, as: [...chosen] };
      }
      return;
    }
    for (const option of WILD_OPTIONS[wild[i]]) {
      chosen.push(option);
      search(i + 1);
      chosen.pop();
    }
  };
  search(0);
  const troops = wild.map((code, i) => ({ code, as: `${best.as[i].value}${COLOUR_LETTERS[best.as[i].colour]}` }));
  return { rank: best.rank, total: best.total, troops, name: formationName(best.rank, size, bluff) };
}

function formationName(rank, size, bluff) {
  if (bluff) return t("Total");
  if (rank === 3 && size === 4) return t("Four of a kind");
  return t(RANK_NAMES[rank]);
}

// ------------------------------------------------------------------ claim proofs (R5)

// The engine's rank keys (schotten.engine.explain.RANK_KEYS) as indexes of RANK_NAMES.
const RANK_KEYS = ["sum", "run", "colour", "three-of-a-kind", "colour-run"];

// One sentence per kind of claim that holds; the rule id stays at the end.
const CLAIM_SENTENCES = {
  beats: N_("Your {mine} beats their {theirs} (R5.1)."),
  ties_first: N_("Your {mine} ties their {theirs} and you completed first (R4.6)."),
  unbeatable: N_("Your {mine} cannot be beaten: the best their side can still make is {theirs} (R5.2)."),
  incompletable: N_("Your {mine} wins: their side cannot be completed with the cards still unseen (R5.2)."),
};

/**
 * The translated words for a formation of a claim proof ({rank, total, cards, troops, bluff}
 * from the server): "Colour-run 24 (blue 7-8-9, Joker as blue 9)", "Sum 12 (2-3-7)".
 */
export function formationText(shape) {
  const rank = Math.max(0, RANK_KEYS.indexOf(shape.rank));
  const cards = shape.cards.map(parseCard).filter((card) => card.clan);
  const values = cards.map((card) => card.value).join("-");
  const coloured = !shape.bluff && ["colour", "colour-run"].includes(shape.rank) && cards.length;
  const shown = coloured
    ? t("{colour} {value}", { colour: t(COLOUR_NAMES[cards[0].colour]), value: values })
    : values;
  const troops = (shape.troops || []).map((tr) => t("{troop} as {card}", {
    troop: TACTICS[tr.card] ? t(TACTICS[tr.card].name) : tr.card,
    card: cardName(tr.as),
  }));
  const name = `${formationName(rank, shape.cards.length, shape.bluff)} ${shape.total}`;
  return `${name} (${[shown, ...troops].join(", ")})`;
}

/**
 * The explanation of a claim, translated: the state message's claims entry
 * ({text, kind, mine, theirs}); the engine's English text when the kind is not known.
 */
export function claimText(proof) {
  if (!proof) return "";
  if (typeof proof === "string") return proof;
  const sentence = CLAIM_SENTENCES[proof.kind];
  if (!sentence || !proof.mine || (proof.kind !== "incompletable" && !proof.theirs)) return proof.text || "";
  return t(sentence, {
    mine: formationText(proof.mine),
    theirs: proof.theirs ? formationText(proof.theirs) : "",
  });
}
