// The end of a round stays on the table: the server deals the next round at once, but the page
// keeps showing the board the round ended with (the state message's `round_end`), with the
// round's result and why, until the player presses Continue. Which rounds were seen is kept
// for the tab (sessionStorage), so a reload does not show a round again.

import { roundText } from "./board.js";
import { el } from "./dom.js";
import { t } from "./i18n.js";
import { gameId } from "./state.js";

const review = { seen: null, showing: null };

function storageKey() {
  return `schotten.round-seen.${gameId}`;
}

function loadSeen() {
  try {
    const value = window.sessionStorage.getItem(storageKey());
    return value === null ? null : Number(value);
  } catch {
    return null;
  }
}

function saveSeen(round) {
  try {
    window.sessionStorage.setItem(storageKey(), String(round));
  } catch {
    /* nothing kept: a reload shows the round's end again */
  }
}

/**
 * Take a new state message into account: returns the round_end to show, or null. A round that
 * ends while the page is open is shown; on a first message, the last ended round is shown only
 * when this seat has not moved since (the match is not over: then the board is the last one).
 */
export function roundToShow(msg, first) {
  const ended = msg.round_end ? msg.round_end.round : -1;
  if (review.seen === null) review.seen = loadSeen();
  if (review.seen === null) {
    const movedSince = msg.log.some((move) => move.round > ended && move.mover === msg.seat);
    const seated = msg.seat === 0 || msg.seat === 1;
    review.seen = first && (!seated || movedSince) ? ended : ended - 1;
  }
  const show = ended > review.seen && msg.status === "playing" && msg.view.round > ended;
  review.showing = show ? msg.round_end : null;
  return review.showing;
}

/** The round_end being shown, or null. */
export function shownRound() {
  return review.showing;
}

/** Continue: the round shown is seen; `done` redraws the table. */
function continueFromRound(done) {
  if (!review.showing) return;
  review.seen = review.showing.round;
  saveSeen(review.seen);
  review.showing = null;
  done();
}

/** The prompt's words while a round's end is shown: the result, why, and Continue. */
export function roundEndPrompt(msg, names, done) {
  const ended = review.showing;
  const outcome = msg.view.round_outcomes[ended.round];
  return [el("p", { class: "round-over", text: t("Round {n} is over.", { n: ended.round + 1 }) }),
    el("p", { class: "round-outcome", text: outcome ? roundText(outcome, ended.round, names) : "" }),
    el("p", { class: "tip", text: t("This is the board the round ended with. The next round has begun.") }),
    el("button", {
      class: "btn primary", text: t("Continue"),
      attrs: { type: "button", id: "continue" }, on: { click: () => continueFromRound(done) },
    })];
}
