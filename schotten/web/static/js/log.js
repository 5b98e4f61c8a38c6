// The move log beside the board: every move of the match as this seat may know it (the state
// message's `log`), newest first, each round under its own heading with its result
// (`view.round_outcomes`) at the top. A state message tells the entries from `log_from` on; the
// first one on a socket tells them all, so the log survives a reload.

import { roundText } from "./board.js";
import { byId, el, fill } from "./dom.js";
import { t } from "./i18n.js";
import { moveText } from "./moves.js";

/**
 * The whole log after a state message: a message tells the entries from `log_from` on (all of
 * them when it is 0), so the page keeps the log it had up to there. Null when entries are
 * missing (the page then asks for the whole state again).
 */
export function wholeLog(before, msg) {
  const from = msg.log_from || 0;
  if (from === 0) return msg.log;
  if (!before || from > before.log.length) return null;
  return before.log.slice(0, from).concat(msg.log);
}

function moveItem(move, names) {
  return el("li", {
    class: `move seat-${move.mover}`,
    text: moveText(move, names[move.mover]),
    data: { index: move.index, round: move.round + 1, mover: move.mover, kind: move.kind },
  });
}

function roundItems(round, moves, outcome, names) {
  const items = [el("li", { class: "round-head", text: t("Round {n}", { n: round + 1 }), data: { round: round + 1 } })];
  if (outcome) {
    items.push(el("li", { class: "round-result", text: roundText(outcome, round, names), data: { round: round + 1 } }));
  }
  for (let i = moves.length - 1; i >= 0; i -= 1) items.push(moveItem(moves[i], names));
  return items;
}

/** Draw the log of `msg` (a state message) with the players' `names`. */
export function renderLog(msg, names) {
  const { log, view } = msg;
  const outcomes = view.round_outcomes;
  const last = Math.max(view.round, outcomes.length - 1, ...log.map((move) => move.round));
  const items = [];
  for (let round = Math.min(last, view.rounds - 1); round >= 0; round -= 1) {
    const moves = log.filter((move) => move.round === round);
    if (moves.length || outcomes[round] || round === view.round) {
      items.push(...roundItems(round, moves, outcomes[round], names));
    }
  }
  fill(byId("log-list"), ...items);
  byId("log-count").textContent = String(log.length);
}
