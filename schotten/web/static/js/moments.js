// What the table page does when a state message brings news, after drawing it: the sound of the
// moves it brings (signals.js), and the box that appears at the game's end (the result) or at a
// round's end (the prompt with Continue) scrolled into view, smoothly unless the browser asks
// for reduced motion.

import { byId } from "./dom.js";
import { shownRound } from "./roundend.js";
import { signalMoves } from "./signals.js";

const moments = { round: null };

/** Whether the browser asks for reduced motion. */
export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** Scroll `node` into view, as little as needed; `data-revealed` says how ("smooth" or "auto"). */
export function reveal(node) {
  const behavior = reducedMotion() ? "auto" : "smooth";
  node.scrollIntoView({ behavior, block: "nearest" });
  node.dataset.revealed = behavior;
}

/** React to the state message `msg` just drawn (`before`: the one before it, null for the first). */
export function onMoment(before, msg) {
  const ended = shownRound();
  const round = ended ? ended.round : null;
  const newRound = round !== null && round !== moments.round;
  moments.round = round;
  if (!before) return;
  signalMoves(msg.log.slice(before.log.length), msg.seat);
  if (msg.status === "over" && before.status !== "over") reveal(byId("result"));
  else if (newRound) reveal(byId("prompt"));
}
