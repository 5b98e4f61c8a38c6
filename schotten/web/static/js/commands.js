// Text commands of the screen-reader mode: what the player types ("7b@3", "claim 4", "play blue 7
// on stone 3") is matched against the legal actions the server sent, never against a rule. A
// command is an action's notation as the server spells it, or the action's order in words (the
// words of `orderText`, in any order, with the small words of the orders left out).

import { cardName } from "./cards.js";
import { N_, t } from "./i18n.js";

// The orders, by kind (the same catalogue keys as the analysis board's advice).
const ORDERS = {
  play: N_("play {card} on stone {stone}"),
  ruse: N_("play {card}"),
  take: N_("take {card} from stone {stone}"),
  banish: N_("discard {card} from stone {stone}"),
  claim: N_("claim stone {stone}"),
  place: N_("put the card on stone {stone}"),
  pass: N_("pass"),
  done: N_("end the claims"),
  discard: N_("discard the card"),
  return: N_("put {card} under its deck"),
};
const DRAWS = { clan: N_("draw a clan card"), tactic: N_("draw a tactic card") };

/** A text in lower case without accents, punctuation or repeated spaces, as words. */
export function wordsOf(text) {
  return String(text).normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^\p{L}\p{N}@]+/gu, " ").trim().split(" ").filter(Boolean);
}

/** The order of a legal entry in words ("play blue 7 on stone 3"). */
export function orderText(entry) {
  if (entry.kind === "draw") return t(DRAWS[entry.deck] || DRAWS.clan);
  const template = ORDERS[entry.kind];
  if (!template) return entry.action;
  const stone = entry.stone === null || entry.stone === undefined ? "" : entry.stone + 1;
  return t(template, { card: entry.card ? cardName(entry.card) : "", stone });
}

/** The small words of the orders, which a command may leave out: every word of an order but its
 * verb, its placeholders and the words that tell one deck from the other. */
function smallWords() {
  const templates = Object.values(ORDERS).map((key) => t(key).replace(/\{\w+\}/g, " "));
  const draws = Object.values(DRAWS).map((key) => new Set(wordsOf(t(key))));
  const [clan, tactic] = draws;
  const decks = new Set([...clan, ...tactic].filter((word) => !(clan.has(word) && tactic.has(word))));
  const words = [...templates, ...Object.values(DRAWS).map((key) => t(key))].flatMap((text) => wordsOf(text).slice(1));
  return new Set(words.filter((word) => !decks.has(word)));
}

function key(words, small) {
  return words.filter((word) => !small.has(word)).sort().join(" ");
}

/** The ways an entry may be typed in words: its order, and its order with the card's notation. */
function spellings(entry, small) {
  const order = wordsOf(orderText(entry));
  const found = [key(order, small)];
  if (entry.card) {
    const name = wordsOf(cardName(entry.card));
    const rest = [...order];
    for (const word of name) rest.splice(rest.indexOf(word), 1);
    found.push(key([...rest, entry.card.toLowerCase()], small));
  }
  return found;
}

/** The legal entry (of `legal`, the state message's entries with their parts) that `command`
 * names, or null: first by its notation, then by its words. */
export function matchCommand(command, legal) {
  const typed = wordsOf(command).join(" ");
  if (!typed) return null;
  const byNotation = legal.find((entry) => wordsOf(entry.action).join(" ") === typed);
  if (byNotation) return byNotation;
  const small = smallWords();
  const wanted = key(wordsOf(command), small);
  return legal.find((entry) => spellings(entry, small).includes(wanted)) || null;
}

/** Whether a command that names no legal action is short enough to be a notation, which the
 * server then reads and refuses with the engine's reason ("claim 4", "7b@3"). */
export function looksLikeNotation(command) {
  const parts = command.trim().split(/\s+/);
  return parts.length <= 3 && command.trim().length <= 24;
}
