// The replay page: step through a finished game move by move, every card shown. A game that
// has no replay (yet) gets a sentence saying why in place of the controls and the board.

import { getJSON } from "./api.js";
import { decksNode, pileNode, renderBoard, roundLines } from "./board.js";
import { cardFace, sortCards } from "./cards.js";
import { byId, el, fill } from "./dom.js";
import { initI18n, t, tn } from "./i18n.js";
import { endingText, playerName, variantName } from "./labels.js";
import { turnMarks } from "./lastturn.js";
import { moveText } from "./moves.js";
import { playersLine } from "./people.js";
import { initReview, showReviewStep } from "./review.js";

const gameId = decodeURIComponent(window.location.pathname.split("/").filter(Boolean)[1] || "");
const PLAY_MS = 900;
// Shown once the replay has loaded (hidden before, so that nothing empty or dead is offered).
const REPLAY_PARTS = ".replay-controls .row, #slider, #panel-top, .middle, #panel-bottom";

const replay = { steps: [], table: null, ended: null, index: 0, timer: null };

function names() {
  return replay.table.players.map((p, i) => (p ? playerName(p) : t("Seat {n}", { n: i + 1 })));
}

function panel(id, seat, data) {
  const hand = (data.hands && data.hands[seat]) || [];
  const node = byId(id);
  node.classList.toggle("turn", data.phase !== "OVER" && data.turn === seat);
  fill(node,
    el("div", { class: "panel-head" }, el("span", { class: "pname", text: names()[seat] })),
    el("div", { class: "hand revealed", data: { hand: seat } }, ...sortCards(hand, "colour").map((c) => cardFace(c))),
    pileNode(t("Discard pile"), data.discards[seat], `discards-${seat}`));
}

/** A step's move as parts (the server's `parts`, with its mover); without them, the notation only. */
function stepMove(step) {
  return step.parts ? { ...step.parts, mover: step.mover } : { action: step.action };
}

function stepText(step, index) {
  const total = replay.steps.length - 1;
  if (index === 0) return tn("The deal ({n} move in all)", "The deal ({n} moves in all)", total);
  return t("Move {i} of {n}: {move}", { i: index, n: total, move: moveText(stepMove(step), names()[step.mover]) });
}

/** At the last step: how the game ended off the board (if it did), who won and the score. */
function outcomeText(data) {
  if (replay.index !== replay.steps.length - 1) return "";
  const ending = endingText(replay.ended, names());
  if (!data.result) {
    const winner = replay.table.winner;
    const won = winner === null || winner === undefined ? "" : t("{name} wins the match.", { name: names()[winner] });
    return [ending, won].filter(Boolean).join(" ");
  }
  const [n0, n1] = names();
  const score = t("Score: {name0} {p0} – {p1} {name1}", {
    name0: n0, p0: data.result.scores[0], p1: data.result.scores[1], name1: n1,
  });
  const winner = data.result.winner === null || data.result.winner === undefined
    ? t("The match is drawn.") : t("{name} wins the match.", { name: names()[data.result.winner] });
  return [ending, winner, score].filter(Boolean).join(" ");
}

/** The analysis board on a step's position, its seats labelled by the players' names (and which
 * are accounts, so that the reader's own seat reads "You"). */
function analyseHref(position) {
  const query = new URLSearchParams({ position });
  replay.table.players.forEach((p, i) => { if (p) query.set(`seat${i + 1}`, p); });
  (replay.table.accounts || []).forEach((a, i) => { if (a) query.set(`account${i + 1}`, a); });
  return `/analysis?${query}`;
}

function show(index) {
  replay.index = Math.max(0, Math.min(index, replay.steps.length - 1));
  const step = replay.steps[replay.index];
  const data = step.state;
  const [n0, n1] = names();
  renderBoard(byId("board"), data, {
    bottom: 0,
    names: names(),
    marks: step.parts ? turnMarks([stepMove(step)]) : null,
    over: data.phase === "OVER",
  });
  panel("panel-top", 1, data);
  panel("panel-bottom", 0, data);
  fill(byId("decks"), decksNode(data));
  fill(byId("rounds"), ...roundLines(data, names()));
  fill(byId("score"),
    el("span", { class: "variant", text: variantName(data.variant) }),
    el("span", { text: t("Round {round} of {rounds}", { round: Math.min(data.round + 1, data.rounds), rounds: data.rounds }) }),
    el("span", {
      class: "points",
      text: t("Score: {name0} {p0} – {p1} {name1}", { name0: n0, p0: data.scores[0], p1: data.scores[1], name1: n1 }),
    }));
  byId("step").textContent = stepText(step, replay.index);
  byId("step").dataset.index = String(replay.index);
  if (step.position) byId("analyse-here").href = analyseHref(step.position);
  byId("outcome").textContent = outcomeText(data);
  if (replay.index === replay.steps.length - 1 && replay.table.unrated_reason) byId("outcome").append(" ", t(replay.table.unrated_reason.say.text, replay.table.unrated_reason.say.params));
  const slider = byId("slider");
  slider.value = String(replay.index);
  byId("first").disabled = replay.index === 0;
  byId("prev").disabled = replay.index === 0;
  byId("next").disabled = replay.index === replay.steps.length - 1;
  byId("last").disabled = replay.index === replay.steps.length - 1;
  showReviewStep(replay.index);
}

function togglePlay() {
  if (replay.timer) {
    window.clearInterval(replay.timer);
    replay.timer = null;
    byId("play").classList.remove("active");
    byId("play").textContent = t("Play");
    return;
  }
  if (replay.index === replay.steps.length - 1) show(0);
  byId("play").classList.add("active");
  byId("play").textContent = t("Pause");
  replay.timer = window.setInterval(() => {
    if (replay.index >= replay.steps.length - 1) togglePlay();
    else show(replay.index + 1);
  }, PLAY_MS);
}

function wire() {
  byId("first").addEventListener("click", () => show(0));
  byId("prev").addEventListener("click", () => show(replay.index - 1));
  byId("next").addEventListener("click", () => show(replay.index + 1));
  byId("last").addEventListener("click", () => show(replay.steps.length - 1));
  byId("play").addEventListener("click", togglePlay);
  byId("slider").addEventListener("input", (event) => show(Number(event.target.value)));
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement) return;
    if (event.key === "ArrowRight") show(replay.index + 1);
    else if (event.key === "ArrowLeft") show(replay.index - 1);
    else if (event.key === "Home") show(0);
    else if (event.key === "End") show(replay.steps.length - 1);
  });
}

/** There is no replay to show (yet): say why in place of the controls (no empty board, no
 * record download), with a link (`{id, text, href}`) to where the reader can go instead. */
function showNoGame(id, text, link = null) {
  const action = link ? el("a", { class: "btn primary", text: link.text, attrs: { id: link.id, href: link.href } }) : null;
  const controls = document.querySelector(".replay-controls");
  controls.classList.add("no-replay");
  fill(controls, el("p", { class: "step", text, attrs: { id, role: "status" } }), action);
  for (const node of document.querySelectorAll("#panel-top, .middle, #panel-bottom, #outcome")) node.hidden = true;
}

function gamePage(id) {
  return `/game/${encodeURIComponent(id)}`;
}

/** A closed rematch table never had a game: back to the finished game it was the rematch of. */
function showClosed(table) {
  showNoGame("replay-closed",
    t("This table was closed before its game began (the rematch offer was withdrawn or declined): there is nothing to replay."),
    table.rematch_of ? { id: "back-to-game", text: t("Back to the game"), href: gamePage(table.rematch_of) } : null);
}

/** A table waiting for its second player has no game yet: back to the table itself. */
function showNotBegun(table) {
  showNoGame("replay-not-begun",
    t("This game has not begun yet: the table is waiting for its second player, so there is nothing to replay yet."),
    { id: "back-to-game", text: t("Back to the game"), href: gamePage(table.id) });
}

/** A game being played has no replay before its end (it would reveal the hands): watch it live. */
function showPlaying() {
  showNoGame("replay-playing", t("This game is still being played: its replay opens when it is over."),
    { id: "watch-live", text: t("Watch it live"), href: gamePage(gameId) });
}

/** Why the replay was refused: a closed table has none, an open one none yet, a game being
 * played none before its end (its table says which); an unknown game none at all. */
async function showRefusal(error) {
  const lobby = { id: "back-to-lobby", text: t("Back to the lobby"), href: "/" };
  if (error.status === 404) {
    showNoGame("replay-missing", t("This game does not exist."), lobby);
    return;
  }
  if (error.status !== 409) {
    showNoGame("replay-error", error.message, lobby);
    return;
  }
  const table = await getJSON(`/api/games/${encodeURIComponent(gameId)}`).catch(() => null);
  if (table && table.status === "closed") showClosed(table);
  else if (table && table.status === "open") showNotBegun(table);
  else showPlaying();
}

async function main() {
  await initI18n();
  byId("step").textContent = t("Loading the replay…");
  try {
    const data = await getJSON(`/api/games/${encodeURIComponent(gameId)}/replay`);
    replay.steps = data.steps;
    replay.table = data.table;
    replay.ended = data.ended || null;
  } catch (error) {
    await showRefusal(error);
    return;
  }
  const download = byId("download");
  download.href = `/api/games/${encodeURIComponent(gameId)}/record?download=1`;
  download.setAttribute("download", `schotten-${gameId}.json`);
  for (const node of document.querySelectorAll(REPLAY_PARTS)) node.hidden = false;
  const line = byId("players-line");
  line.hidden = !(replay.table.accounts || []).some(Boolean) && !replay.table.hints;
  if (!line.hidden) fill(line, playersLine(replay.table, names()));
  byId("slider").max = String(replay.steps.length - 1);
  wire();
  show(0);
  initReview(gameId, {
    names,
    moveText: (index) => moveText(stepMove(replay.steps[index]), names()[replay.steps[index].mover]),
    go: show,
  });
}

main();
