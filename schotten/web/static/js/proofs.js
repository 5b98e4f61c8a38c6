// Formations and claim proofs in words, from the server's data (the page computes neither):
// "Colour-run 24 (blue 7-8-9, Joker as blue 9)", "Your colour 18 beats their sum 12.", with the
// rule the proof rests on kept apart (the page shows it as a "why?" link).

import { cardName, colourName, parseCard, TACTICS } from "./cards.js";
import { N_, t } from "./i18n.js";
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
