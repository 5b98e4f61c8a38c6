// Text commands of the screen-reader mode: what the player types ("7b@3", "claim 4", "play blue 7
// on stone 3") is read as an action's notation, never checked against a rule. A command is an
// action's notation as the server spells it, or the action's order in words (the words of
// `orderText`, with the small words of the orders left out; in another order too, when that names
// one action only). A command in words is turned into its notation whether or not the action is
// legal now: the server takes it or refuses it with the engine's reason.

import { COLOUR_LETTERS, TACTICS, cardName } from "./cards.js";
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

function kept(words, small) {
  return words.filter((word) => !small.has(word));
}

/** The notation of an action from its parts (the server's notation, as the engine reads it). */
function notationOf(kind, card, stone) {
  const at = `${card}@${stone}`;
  const spelled = {
    play: at, ruse: card, take: `take ${at}`, banish: `banish ${at}`, claim: `claim ${stone}`,
    place: `to ${stone}`, return: `return ${card}`,
  };
  return spelled[kind] || kind;
}

/** The cards a command may name: those whose name's words, or whose notation, it holds. */
function namedCards(typed) {
  const words = new Set(typed);
  const clan = [...COLOUR_LETTERS].flatMap((letter) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((value) => `${value}${letter}`));
  return [...clan, ...Object.keys(TACTICS)].filter((card) => words.has(card.toLowerCase())
    || wordsOf(cardName(card)).every((word) => words.has(word)));
}

/** Every action the words of a command may name, legal now or not, with its parts (as the
 * state message's entries): the orders of every kind, for the cards it names and its numbers
 * as stones. */
function conceivable(typed) {
  const stones = [...new Set(typed.filter((word) => /^\d{1,2}$/.test(word)).map(Number))];
  const cards = namedCards(typed);
  const found = Object.keys(DRAWS).map((deck) => ({ kind: "draw", deck, action: `draw ${deck}` }));
  for (const [kind, template] of Object.entries(ORDERS)) {
    for (const card of template.includes("{card}") ? cards : [null]) {
      for (const stone of template.includes("{stone}") ? stones : [null]) {
        found.push({ kind, card, stone: stone === null ? null : stone - 1, action: notationOf(kind, card, stone) });
      }
    }
  }
  return found;
}

/** The ways an entry may be typed in words, without their small words: its order, and its order
 * with the card's name in the other order ("7 blue") or the card's notation for its name. */
function spellings(entry, small) {
  const order = wordsOf(orderText(entry));
  const found = [kept(order, small)];
  if (!entry.card) return found;
  const name = wordsOf(cardName(entry.card));
  const at = order.findIndex((_, i) => name.every((part, j) => order[i + j] === part));
  if (at < 0) return found;
  const named = (words) => kept([...order.slice(0, at), ...words, ...order.slice(at + name.length)], small);
  return [...found, named([...name].reverse()), named([entry.card.toLowerCase()])];
}

function bag(words) {
  return [...words].sort().join(" ");
}

/** The actions (each once, legal ones first) of `entries` that have a spelling `same` takes. */
function actionsSpelled(entries, small, same) {
  const found = entries.filter((entry) => spellings(entry, small).some(same)).map((entry) => entry.action);
  return [...new Set(found)];
}

/**
 * What `command` names, read against `legal` (the state message's entries with their parts):
 * {action} (a legal action, or the notation of an action legal or not), {ambiguous: [action]}
 * when its words name several actions, or null when it cannot be read as an action. A command
 * names first a legal action by its notation, then an action by its words in their order, then
 * by its words in any order; else a command short enough to be a notation is sent as typed, for
 * the server to read ("claim 4", "7b@3").
 */
export function readCommand(command, legal) {
  const typed = wordsOf(command);
  if (!typed.length) return null;
  const byNotation = legal.find((entry) => wordsOf(entry.action).join(" ") === typed.join(" "));
  if (byNotation) return { action: byNotation.action };
  const small = smallWords();
  const wanted = kept(typed, small);
  const entries = [...legal, ...conceivable(typed)];
  const inOrder = actionsSpelled(entries, small, (words) => words.join(" ") === wanted.join(" "));
  const found = inOrder.length ? inOrder : actionsSpelled(entries, small, (words) => bag(words) === bag(wanted));
  if (found.length === 1) return { action: found[0] };
  if (found.length > 1) return { ambiguous: found };
  return looksLikeNotation(command) ? { action: command.trim() } : null;
}

/** Examples of the orders in words, in the page's language ("play blue 7 on stone 3"). */
export function orderExamples() {
  return [{ kind: "play", card: "7b", stone: 2 }, { kind: "claim", stone: 3 }, { kind: "pass" }]
    .map(orderText).join(", ");
}

/** Whether a command that is no order in words is short enough to be a notation, which the
 * server then reads and refuses with the engine's reason ("claim 4", "7b@3"). */
function looksLikeNotation(command) {
  const parts = command.trim().split(/\s+/);
  return parts.length <= 3 && command.trim().length <= 24;
}
