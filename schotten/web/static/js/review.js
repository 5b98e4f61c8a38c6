// A finished game's review on the replay page: the Review button asks the server for it, the page
// polls its progress (a failed review says why and offers "Try again", which asks anew), then lists each reviewed decision with its mark (the server's), shows the best
// move found and the mover's winning chance for the step shown, and charts each seat's chance.

import { errorText, getJSON, postJSON } from "./api.js";
import { byId, el, fill, svg } from "./dom.js";
import { t } from "./i18n.js";

const POLL_MS = 1000;
const WIDTH = 480;
const HEIGHT = 120;
const PAD = 16;
const SIGNS = { inaccuracy: "?!", mistake: "?", blunder: "??" };

const review = { gameId: "", decisions: null, byMove: new Map(), hooks: null, index: 0 };

function url() {
  return `/api/games/${encodeURIComponent(review.gameId)}/review`;
}

function percent(chance) {
  return `${Math.round(chance * 100)}%`;
}

function markWord(mark) {
  return { inaccuracy: t("inaccuracy"), mistake: t("mistake"), blunder: t("blunder") }[mark] || "";
}

/** Seat 1's chance after each reviewed decision (the mover's chance, or its complement). */
function firstSeatChances() {
  return review.decisions.map((d) => (d.seat === 1 ? d.win_after : 1 - d.win_after));
}

function chart() {
  const chances = firstSeatChances();
  const last = Math.max(1, ...review.decisions.map((d) => d.move));
  const x = (move) => PAD + ((move) * (WIDTH - 2 * PAD)) / last;
  const y = (chance) => HEIGHT - PAD - chance * (HEIGHT - 2 * PAD);
  const line = (seat) => review.decisions.map((d, i) => {
    const chance = seat === 0 ? chances[i] : 1 - chances[i];
    return `${x(d.move).toFixed(1)},${y(chance).toFixed(1)}`;
  }).join(" ");
  const [n0, n1] = review.hooks.names();
  return svg("svg", {
    class: "review-chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img",
    "aria-label": t("Each seat's chance of winning the round over the game: {name0} and {name1}", { name0: n0, name1: n1 }),
  }, svg("line", { x1: PAD, x2: WIDTH - PAD, y1: y(0.5), y2: y(0.5), class: "axis", stroke: "#999", "stroke-dasharray": "4 4" }),
  svg("polyline", { points: line(0), class: "line seat-0", fill: "none", stroke: "#2b6cb0", "stroke-width": 2 }),
  svg("polyline", { points: line(1), class: "line seat-1", fill: "none", stroke: "#c05621", "stroke-width": 2 }));
}

function moveItem(decision) {
  const sign = SIGNS[decision.mark] || "";
  const button = el("button", {
    class: "btn small link", attrs: { type: "button" }, text: `${decision.move}. ${review.hooks.moveText(decision.move)} ${sign}`.trim(),
    data: { move: String(decision.move), mark: decision.mark || "" },
  });
  button.addEventListener("click", () => review.hooks.go(decision.move));
  return el("li", { class: decision.mark ? `mark ${decision.mark}` : "" }, button,
    decision.mark ? el("span", { class: "mark-word", text: ` ${markWord(decision.mark)}` }) : null);
}

/** What the review says of the step shown: the move just played, its mark, the best move and chances. */
export function showReviewStep(index) {
  review.index = index;
  const node = byId("review-step");
  const decision = review.byMove.get(index);
  if (!node || !decision) {
    if (node) node.textContent = "";
    return;
  }
  const said = decision.mark ? `${markWord(decision.mark)}. ` : "";
  node.textContent = said + t("Best was {best}: {before} to win the round; after the move played, {after}.", {
    best: decision.best, before: percent(decision.win_before), after: percent(decision.win_after),
  });
  for (const item of document.querySelectorAll("#review-moves button")) {
    item.classList.toggle("active", item.dataset.move === String(index));
  }
}

function showDone(decisions) {
  review.decisions = decisions;
  review.byMove = new Map(decisions.map((d) => [d.move, d]));
  byId("review-start").hidden = true;
  byId("review-retry").hidden = true;
  byId("review-status").textContent = "";
  fill(byId("review-chart"), chart());
  fill(byId("review-moves"), ...decisions.map(moveItem));
  showReviewStep(review.index);
}

function showState(state) {
  const status = byId("review-status");
  if (state.status === "done") {
    showDone(state.decisions);
    return;
  }
  byId("review-start").hidden = true;
  byId("review-retry").hidden = state.status !== "failed";
  if (state.status === "failed") {
    status.textContent = errorText(state, t("The review could not be made."));
    return;
  }
  status.textContent = state.status === "queued" ? t("The review waits its turn…")
    : t("Reviewing: {done} of {total} decisions…", state.progress);
  window.setTimeout(poll, POLL_MS);
}

async function poll() {
  try {
    showState(await getJSON(url()));
  } catch (error) {
    byId("review-status").textContent = error.message;
  }
}

async function start(event) {
  const button = event.currentTarget;
  button.disabled = true;
  try {
    showState(await postJSON(url(), {}));
  } catch (error) {
    byId("review-status").textContent = error.message;
  } finally {
    button.disabled = false;
  }
}

/** Offer the review of the finished game `gameId` (shown at once if it was asked for before);
 * `hooks`: `names()`, `moveText(move)` and `go(move)` of the replay. */
export async function initReview(gameId, hooks) {
  review.gameId = gameId;
  review.hooks = hooks;
  byId("review").hidden = false;
  byId("review-start").addEventListener("click", start);
  byId("review-retry").addEventListener("click", start);
  try {
    showState(await getJSON(url()));
  } catch {
    byId("review-start").hidden = false;
  }
}
