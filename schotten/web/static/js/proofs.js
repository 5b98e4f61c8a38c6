// Formations and claim proofs in words, from the server's data (the page computes neither):
// "Colour-run 24 (blue 7-8-9, Joker as blue 9)", "Your colour 18 beats their sum 12.", with the
// rule the proof rests on kept apart (the page shows it as a "why?" link).

import { cardName, colourName, parseCard, TACTICS } from "./cards.js";
import { language, N_, t, tn } from "./i18n.js";
import { splitRules } from "./why.js";

// The server's rank keys (schotten.engine.explain.RANK_KEYS) and their names.
const RANK_NAMES = {
  sum: N_("Sum"), run: N_("Run"), colour: N_("Colour"), "three-of-a-kind": N_("Three of a kind"),
  "colour-run": N_("Colour-run"),
};

// One sentence per kind of claim that holds, and the rule it rests on.
const CLAIM_SENTENCES = {
  beats: [N_("Your {mine} beats their {theirs}."), "R5.1"],
  ties_first: [N_("Your {mine} ties their {theirs} and you completed first."), "R4.6"],
  unbeatable: [N_("Your {mine} cannot be beaten: the best their side can still make is {theirs}."), "R5.2"],
  incompletable: [N_("Your {mine} wins: their side cannot be completed with the cards still unseen."), "R5.2"],
};

/** The name of a formation ({rank, cards, bluff} from the server): "Colour-run", "Total" under
 * Blind-man's Bluff, "Four of a kind" for four cards of a kind. */
export function formationName(shape) {
  if (shape.bluff) return t("Total");
  if (shape.rank === "three-of-a-kind" && shape.cards.length === 4) return t("Four of a kind");
  return RANK_NAMES[shape.rank] ? t(RANK_NAMES[shape.rank]) : shape.rank;
}

/** The troops of a formation in words: "Joker as blue 9". */
function troopTexts(shape) {
  return (shape.troops || []).map((tr) => t("{troop} as {card}", {
    troop: TACTICS[tr.card] ? t(TACTICS[tr.card].name) : tr.card,
    card: cardName(tr.as),
  }));
}

/**
 * The translated words for a formation ({rank, total, cards, troops, bluff} from the server):
 * "Colour-run 24 (blue 7-8-9, Joker as blue 9)", "Sum 12 (2-3-7)".
 */
export function formationText(shape) {
  const cards = shape.cards.map(parseCard).filter((card) => card.clan);
  const values = cards.map((card) => card.value).join("-");
  const coloured = !shape.bluff && ["colour", "colour-run"].includes(shape.rank) && cards.length;
  const shown = coloured ? t("{colour} {value}", { colour: colourName(cards[0].colour), value: values }) : values;
  return `${formationName(shape)} ${shape.total} (${[shown, ...troopTexts(shape)].join(", ")})`;
}

/**
 * The explanation of a claim, translated, and the rules it rests on: {text, rules} from the
 * state message's claims entry ({text, kind, mine, theirs}); the engine's English sentence
 * (its rule ids taken out) when the kind is not known.
 */
export function claimText(proof) {
  if (!proof) return { text: "", rules: [] };
  if (typeof proof === "string") return splitRules(proof);
  const found = CLAIM_SENTENCES[proof.kind];
  if (!found || !proof.mine || (proof.kind !== "incompletable" && !proof.theirs)) return splitRules(proof.text || "");
  const text = t(found[0], {
    mine: formationText(proof.mine),
    theirs: proof.theirs ? formationText(proof.theirs) : "",
  });
  return { text, rules: [found[1]] };
}

// Why a stone may not be claimed (the state message's why_not entries), by kind, and the rule.
const WHY_NOT_SENTENCES = {
  can_lose: [N_("Their side can still make {theirs}, which beats your {mine}."), "R5.2"],
  loses: [N_("Their {theirs} beats your {mine}."), "R5.1"],
  tie: [N_("Your {mine} ties their {theirs} but they completed first."), "R4.6"],
};

/** The unseen cards a stronger completion needs, as a list in the page's language: "green 6 and green 7". */
function cardList(cards) {
  const names = cards.map(cardName);
  return new Intl.ListFormat(language(), { style: "long", type: "conjunction" }).format(names);
}

/** The other side's stronger completion and the unseen cards it needs (R5.2), in words. */
function canLoseText(values, needed) {
  return tn("Their side can still make {theirs}, which beats your {mine}: {cards} is not visible yet.",
    "Their side can still make {theirs}, which beats your {mine}: {cards} are not visible yet.",
    needed.length, { ...values, cards: cardList(needed) });
}

/**
 * Why the seat may not claim a stone now, translated, and the rules it rests on: {text, rules}
 * from a why_not entry ({text, kind, mine, theirs, needed, tie, wait}). A proof that holds waits
 * for the claim step (rule `wait`); the engine's English sentence when the kind is not known.
 */
export function whyNotText(answer) {
  if (!answer) return { text: "", rules: [] };
  if (answer.wait) {
    const proof = claimText(answer);
    const step = t("You may claim this stone in your next claim step.");
    return { text: `${step} ${proof.text}`, rules: [answer.wait, ...proof.rules] };
  }
  const found = WHY_NOT_SENTENCES[answer.kind === "loses" && answer.tie ? "tie" : answer.kind];
  if (!found || !answer.mine || !answer.theirs) return splitRules(answer.text || "");
  const values = { mine: formationText(answer.mine), theirs: formationText(answer.theirs) };
  const needed = answer.needed || [];
  const text = answer.kind === "can_lose" && needed.length ? canLoseText(values, needed) : t(found[0], values);
  return { text, rules: [found[1]] };
}
