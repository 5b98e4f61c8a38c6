// Moves in words, from their parts (the state message's `log` and `legal` entries:
// {kind, card, stone (0-8), deck}): "Ann played blue 7 on stone 3". The page reads no notation.

import { cardName } from "./cards.js";
import { N_, t } from "./i18n.js";

// Whole sentences (the move log), by kind.
const SENTENCES = {
  play: N_("{who} played {card} on stone {stone}"),
  ruse: N_("{who} played {card}"),
  take: N_("{who} took {card} from stone {stone}"),
  banish: N_("{who} discarded {card} from stone {stone}"),
  claim: N_("{who} claimed stone {stone}"),
  place: N_("{who} put {card} on stone {stone}"),
  pass: N_("{who} passed"),
  done: N_("{who} ended the claims"),
  discard: N_("{who} discarded the card"),
};
const DRAWS = { clan: N_("{who} drew a clan card"), tactic: N_("{who} drew a tactic card") };
const RETURNS = {
  clan: N_("{who} put a clan card under its deck"), tactic: N_("{who} put a tactic card under its deck"),
};

// Short forms, without the player (a turn's summary), by kind.
const SHORT = {
  play: N_("played {card} on stone {stone}"),
  ruse: N_("played {card}"),
  take: N_("took {card} from stone {stone}"),
  banish: N_("discarded {card} from stone {stone}"),
  claim: N_("claimed stone {stone}"),
  place: N_("put {card} on stone {stone}"),
  pass: N_("passed"),
  discard: N_("discarded the card"),
};

function fields(move, who) {
  return {
    who,
    card: move.card ? cardName(move.card) : "",
    stone: move.stone === null || move.stone === undefined ? "" : move.stone + 1,
  };
}

/** The words for a move ("Ann played blue 7 on stone 3"); `who` is the mover's name. */
export function moveText(move, who) {
  const values = fields(move, who);
  if (move.kind === "draw") return t(DRAWS[move.deck] || DRAWS.clan, values);
  if (move.kind === "return") {
    return move.card ? t("{who} put {card} under its deck", values) : t(RETURNS[move.deck] || RETURNS.clan, values);
  }
  if (move.kind === "place" && !move.card) return t("{who} put the card on stone {stone}", values);
  return SENTENCES[move.kind] ? t(SENTENCES[move.kind], values) : `${who}: ${move.action}`;
}

/** The short words for a move of a turn's summary ("played blue 7 on stone 3"), or null for a
 * move a summary counts rather than tells (draws, returns, the end of the claims). */
export function shortMoveText(move) {
  return SHORT[move.kind] ? t(SHORT[move.kind], fields(move, "")) : null;
}
