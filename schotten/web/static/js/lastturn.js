// The last turn of the other player, from the state message's `log`: the moves the other seat
// made since this seat's last move in the round (while it is this seat's turn, its own moves
// so far are skipped). The board frames every card they put down and the stone they claimed,
// a line names their moves (a ruse by name) and counts their draws from each deck; a card arriving on its
// stone moves there from their panel (not when the browser asks for reduced motion). An undo
// by the other player (the log got shorter, and what went was theirs) is announced.

import { cardName } from "./cards.js";
import { t, tn } from "./i18n.js";
import { reducedMotion } from "./moments.js";
import { shortMoveText } from "./moves.js";

const ANIMATION_MS = 450;

/** The moves of round `round` in `log`. */
export function roundMoves(log, round) {
  return log.filter((move) => move.round === round);
}

/**
 * The other player's last turn in `moves` (one round's log) as `seat` sees it; a spectator
 * (seat null) sees the last mover's turn. `myTurn`: whether the decision is `seat`'s now.
 */
export function lastTurn(moves, seat, myTurn) {
  let end = moves.length;
  const seated = seat === 0 || seat === 1;
  if (seated && myTurn) while (end > 0 && moves[end - 1].mover === seat) end -= 1;
  if (end === 0) return [];
  const other = seated ? 1 - seat : moves[end - 1].mover;
  let start = end;
  while (start > 0 && moves[start - 1].mover === other) start -= 1;
  return moves.slice(start, end);
}

/** What the board frames for a turn: "seat:stone:card" for a card put on a side, and
 * "mode:stone:card" (the same card, should it lie on the stone itself), "claim:stone". */
export function turnMarks(turn) {
  const marks = new Set();
  for (const move of turn) {
    const stone = move.stone === null ? null : move.stone + 1;
    if ((move.kind === "play" || move.kind === "place") && move.card) {
      marks.add(`${move.mover}:${stone}:${move.card}`);
      marks.add(`mode:${stone}:${move.card}`);
    } else if (move.kind === "claim") marks.add(`claim:${stone}`);
  }
  return marks;
}

/** The line naming a turn: "AI (easy): played blue 7 on stone 3 · claimed stone 5 · drew 1 card from
 * the tactics deck" (which deck each draw came from is public: the log's `deck`). */
export function turnSummary(turn, names) {
  if (!turn.length) return "";
  const parts = turn.map(shortMoveText).filter(Boolean);
  const drawn = (deck) => turn.filter((move) => move.kind === "draw" && (move.deck || "clan") === deck).length;
  const [clan, tactic] = [drawn("clan"), drawn("tactic")];
  const returns = turn.filter((move) => move.kind === "return").length;
  if (clan) parts.push(tn("drew {n} card from the clan deck", "drew {n} cards from the clan deck", clan));
  if (tactic) parts.push(tn("drew {n} card from the tactics deck", "drew {n} cards from the tactics deck", tactic));
  if (returns) parts.push(t("Cards put under the decks: {n}", { n: returns }));
  return t("{name}'s last turn: {moves}", { name: names[turn[0].mover], moves: parts.join(" · ") });
}

/** The moves of `before` (a log) that `after` no longer holds, oldest first. */
export function removedMoves(before, after) {
  let same = 0;
  while (same < before.length && same < after.length && before[same].action === after[same].action
    && before[same].mover === after[same].mover) same += 1;
  return before.slice(same);
}

/** The words announcing the other player's undo (`removed`: the moves it took back), or "" when
 * nothing of theirs went (this seat's own undo is not announced). */
export function undoText(removed, seat, names) {
  if (!removed.length) return "";
  const mover = removed[0].mover;
  if (mover === seat || removed.some((move) => move.mover !== mover)) return "";
  const first = removed.find((move) => move.kind === "play" || move.kind === "ruse") || removed[0];
  if (first.card && (first.kind === "play" || first.kind === "ruse")) {
    return t("{name} took back {card}: it went back to their hand.", { name: names[mover], card: cardName(first.card) });
  }
  return t("{name} took back a move.", { name: names[mover] });
}

/** Move each card of `cards` (board nodes) from the `from` node to its place; returns how many
 * were animated (none under reduced motion). */
export function animateArrivals(cards, from) {
  if (reducedMotion() || !from || !cards.length) return 0;
  const start = from.getBoundingClientRect();
  for (const card of cards) {
    const end = card.getBoundingClientRect();
    const dx = start.left + start.width / 2 - (end.left + end.width / 2);
    const dy = start.top + start.height / 2 - (end.top + end.height / 2);
    card.animate([{ transform: `translate(${dx}px, ${dy}px) scale(1.15)`, opacity: 0.6 }, { transform: "none", opacity: 1 }],
      { duration: ANIMATION_MS, easing: "ease-out" });
  }
  return cards.length;
}
