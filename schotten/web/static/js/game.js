// The table page (/game/{id}): draws each state message the server sends and turns the
// player's clicks into actions. The server is the authority and the page only renders: what
// is legal, the formations and the claim proofs all come with the state message. Each part
// of the page has its own module; this one puts them together.

import { clearMessage, getJSON, savePref, showMessage } from "./api.js";
import { announce, announceMoves, renderBlind, tellRefusal, wireBlind } from "./blind.js";
import { renderBoard, roundLines } from "./board.js";
import { chatError, onChat, renderChat, wireChat } from "./chat.js";
import { setClocks } from "./clocks.js";
import { connect, ERROR_TEXT, send } from "./connection.js";
import { byId, el, fill } from "./dom.js";
import { renderAway, renderEndButtons, setAway, wireEndings } from "./endings.js";
import { hintRefused, onHint, renderHint, wireHint } from "./hints.js";
import { initI18n, N_, t } from "./i18n.js";
import { rove, wireKeyboard } from "./keyboard.js";
import { renderInvite, renderJoin, wireJoin } from "./join.js";
import { endingText } from "./labels.js";
import {
  animateArrivals, lastTurn, removedMoves, roundMoves, turnMarks, turnSummary, undoText,
} from "./lastturn.js";
import { movesOf } from "./legal.js";
import { renderLog, wholeLog } from "./log.js";
import { onMoment } from "./moments.js";
import {
  renderDecks, renderPanel, renderScore, renderStatus, renderWatching, statusText,
} from "./panels.js";
import { playersLine } from "./people.js";
import { whyNotText } from "./proofs.js";
import {
  keepSelection, onRefused, reviewProvisional, sendTyped, settle, wirePlays,
} from "./plays.js";
import { claimWhy, renderPrompt } from "./prompts.js";
import { announceRematch, loadKeptSeat, playAgain, renderRematch } from "./rematch.js";
import { roundEndPrompt, roundToShow, shownRound } from "./roundend.js";
import { signalCounts, signalTurn, wireSignals } from "./signals.js";
import {
  badSeatLink, bottomSeat, game, gameId, isMine, isSeated, legalNow, names,
} from "./state.js";
import { followTournament } from "./tournamentgame.js";
import { splitRules, whyLinks, withWhy } from "./why.js";

const page = { animated: 0, whyOpen: null, whyAnswer: null };

// ------------------------------------------------------------------ the board

function stoneActions(moves) {
  const map = new Map();
  if (game.provisional) return map;
  const { phase } = game.msg.view;
  if (phase === "PLAY" && game.selected && moves.plays.has(game.selected)) {
    for (const play of moves.plays.get(game.selected)) map.set(play.stone, play.action);
  }
  for (const place of moves.places) map.set(place.stone, place.action);
  return map;
}

function cardActions(moves) {
  const map = new Map();
  const me = game.msg.seat;
  const mine = game.msg.view.phase === "STRATEGIST_TAKE";
  for (const pick of moves.picks) map.set(`${mine ? me : 1 - me}:${pick.stone}:${pick.card}`, pick.action);
  return map;
}

function claimMap(moves) {
  return new Map(moves.claims.map(({ stone, action }) => [stone, { action, why: claimWhy(stone).text }]));
}

/** The stones this seat may ask "Why not?" about: a complete side of its own, no claim now. */
function whyNotStones() {
  return new Set(game.msg.why_not || []);
}

/** Ask the server why `stone` may not be claimed (answered by a why_not message). */
function askWhyNot(stone) {
  page.whyAnswer = null;
  send({ type: "why_not", stone });
}

/** The server's answer to a "Why not?": kept when it answers the stone open in the state shown. */
function onWhyNot(msg) {
  if (msg.stone !== page.whyOpen || msg.version !== game.msg.version) return;
  page.whyAnswer = msg.answer;
  renderWhyNot();
}

/** Show (or hide, on a second click) why `stone` may not be claimed, and keep the focus on its button. */
function toggleWhyNot(stone) {
  page.whyOpen = page.whyOpen === stone ? null : stone;
  if (page.whyOpen !== null) askWhyNot(stone);
  renderBoardAndPrompt();
  const button = document.querySelector(`#board [data-why-not="${stone}"]`);
  if (button) button.focus();
}

/** The answer to the open "Why not?", in the page's words from the server's data. */
function renderWhyNot() {
  const node = byId("why-not");
  const answer = page.whyOpen === null ? null : page.whyAnswer;
  node.hidden = !answer;
  if (!answer) {
    fill(node);
    return;
  }
  const { text, rules } = whyNotText(answer);
  const close = el("button", {
    class: "btn small", text: t("Close"), attrs: { type: "button" },
    on: { click: () => toggleWhyNot(page.whyOpen) },
  });
  fill(node, el("p", { data: { stone: page.whyOpen } },
    el("strong", { text: `${t("Stone {n}", { n: page.whyOpen })}: ` }), ...withWhy(text, rules)), close);
}

/** The turn the board frames: of the round shown (the live one, or the one that ended). */
function shownTurn(ended) {
  const { msg } = game;
  const round = ended ? ended.round : Math.min(msg.view.round, msg.view.rounds - 1);
  return lastTurn(roundMoves(msg.log, round), msg.seat, !ended && isMine());
}

function drawBoard(moves, turn, ended) {
  const { msg } = game;
  renderBoard(byId("board"), ended || { stones: msg.view.stones, formations: msg.formations }, {
    bottom: bottomSeat(),
    names: names(),
    stoneActions: ended ? new Map() : stoneActions(moves),
    cardActions: ended ? new Map() : cardActions(moves),
    claims: ended ? new Map() : claimMap(moves),
    whyNot: ended ? new Set() : whyNotStones(),
    whyOpen: page.whyOpen,
    onWhyNot: toggleWhyNot,
    marks: turnMarks(turn),
    over: msg.status === "over" || Boolean(ended),
    provisional: game.provisional && !ended ? { ...game.provisional, seat: msg.seat } : null,
    grid: true,
  });
  byId("board").classList.toggle("round-end", Boolean(ended));
  rove();
}

function renderBoardAndPrompt() {
  const turn = drawBoardAndPrompt();
  renderHint();
  return turn;
}

function drawBoardAndPrompt() {
  const ended = shownRound();
  const moves = ended ? movesOf([]) : movesOf(legalNow());
  const turn = shownTurn(ended);
  if (ended || !whyNotStones().has(page.whyOpen)) page.whyOpen = null;
  drawBoard(moves, turn, ended);
  renderWhyNot();
  renderPrompt(moves, ended ? roundEndPrompt(game.msg, names(), render) : null);
  byId("last-turn").textContent = turnSummary(turn, names());
  return turn;
}

// ------------------------------------------------------------------ the rest of the table

function renderUndo() {
  byId("undo").hidden = !game.msg.can_undo || Boolean(game.provisional);
}

const NO_WINNER = { aborted: N_("Game aborted"), abandoned: N_("Game abandoned") };

function resultHeading() {
  const { view, seat, ended } = game.msg;
  const result = view.result;
  if (ended && NO_WINNER[ended.reason]) return t(NO_WINNER[ended.reason]);
  if (!result) return t("Game over");
  if (result.winner === null || result.winner === undefined) return t("The match is drawn.");
  if (seat === result.winner) return t("You win the match!");
  return t("{name} wins the match.", { name: names()[result.winner] });
}

function renderResult() {
  const box = byId("result");
  const over = game.msg.status === "over";
  box.hidden = !over;
  if (!over) return;
  const { view } = game.msg;
  const [n0, n1] = names();
  byId("result-title").textContent = resultHeading();
  byId("result-score").textContent = t("Score: {name0} {p0} – {p1} {name1}", {
    name0: n0, p0: view.scores[0], p1: view.scores[1], name1: n1,
  });
  fill(byId("result-rounds"), ...roundLines(view, names()));
  const forfeit = view.forfeit
    ? t("{name} forfeited: {reason}", { name: names()[view.forfeit[0]], reason: view.forfeit[1] }) : "";
  byId("result-forfeit").textContent = endingText(game.msg.ended, names()) || forfeit;
  byId("replay-link").href = `/replay/${encodeURIComponent(gameId)}`;
  renderRematch();
}

function announceRounds() {
  const done = game.msg.view.round_outcomes.length;
  if (game.roundsSeen >= 0 && done > game.roundsSeen && game.msg.status !== "over") {
    const lines = roundLines(game.msg.view, names());
    showMessage(lines[lines.length - 1].textContent, "info");
    announce(lines[lines.length - 1].textContent);
  }
  game.roundsSeen = done;
  fill(byId("rounds"), ...roundLines(game.msg.view, names()));
}

/** Draw the whole page from the last state message ("board": only the board and the prompt). */
function render(what = "all") {
  if (what === "board") {
    renderBoardAndPrompt();
    return;
  }
  keepSelection();
  const bottom = bottomSeat();
  const moves = shownRound() ? movesOf([]) : movesOf(legalNow());
  renderStatus();
  renderWatching();
  renderScore();
  renderPanel("panel-top", 1 - bottom, moves);
  renderPanel("panel-bottom", bottom, moves);
  renderDecks(moves);
  renderBoardAndPrompt();
  renderLog(game.msg, names());
  renderUndo();
  renderEndButtons();
  renderAway();
  renderChat();
  renderInvite();
  renderJoin();
  announceRounds();
  renderResult();
  renderHint();
  renderBlind(statusText());
  const seated = isSeated() && !game.msg.reveal;
  byId("sort").hidden = !seated;
  byId("confirm-pref").hidden = !seated;
  document.body.classList.toggle("spectator", game.msg.seat === null);
  signalTurn(isMine() && !shownRound(), statusText());
  window.schotten = {
    state: game.msg, provisional: game.provisional, animated: page.animated, roundEnd: shownRound(),
    get signals() { return signalCounts(); },
    get mode() { return game.info ? game.info.mode : null; },
  };
}

// ------------------------------------------------------------------ state messages

/** The cards the other player put down since the last message, now on the board. */
function arrivals(before, msg, turn) {
  if (!before || shownRound()) return [];
  const known = before.log.length;
  const fresh = turn.filter((move) => move.index >= known && (move.kind === "play" || move.kind === "place"));
  return fresh.flatMap((move) => [...document.querySelectorAll(
    `#board .card.last[data-card="${move.card}"]`,
  )]);
}

function onState(msg) {
  if (game.msg && msg.version < game.msg.version) return;
  const before = game.msg;
  const log = wholeLog(before, msg);
  if (!log) {
    send({ type: "sync" });
    return;
  }
  msg.log = log;
  const wasMine = isMine();
  game.msg = msg;
  setClocks(msg);
  setAway(msg);
  settle();
  reviewProvisional(msg);
  roundToShow(msg, !before);
  if (msg.status === "over" || (before && before.status === "open" && msg.status !== "open")) loadInfo();
  if (msg.rematch_of && msg.status === "open") loadKeptSeat(render);
  render();
  followTournament(before, msg);
  if (page.whyOpen !== null && before && before.version !== msg.version) askWhyNot(page.whyOpen);
  onMoment(before, msg);
  const turn = shownTurn(shownRound());
  page.animated += animateArrivals(arrivals(before, msg, turn), byId("panel-top"));
  window.schotten.animated = page.animated;
  announceRematch(before, msg);
  announceMoves(before, msg, stateNews(before, msg, wasMine));
  const undone = before ? undoText(removedMoves(before.log, msg.log), msg.seat, names()) : "";
  if (undone) showMessage(undone, "info");
}

/** What a state message tells beyond its moves: that the decision became this seat's, the result. */
function stateNews(before, msg, wasMine) {
  const turn = isMine() && !wasMine ? statusText() : "";
  const over = msg.status === "over" && before && before.status !== "over" ? resultHeading() : "";
  return [turn, over].filter(Boolean);
}

/** Who is away and how many watch, told when a seat or a spectator comes or goes (between state messages). */
function onPresence(msg) {
  if (Number.isInteger(msg.spectators)) game.spectators = msg.spectators;
  if (!game.msg) return;
  setAway(msg);
  renderWatching();
}

/** The socket closed: what it told of the spectators is told again (if any watch) once it is back. */
function onLost() {
  settle();
  game.spectators = 0;
  if (game.msg) renderWatching();
}

function onError(msg) {
  if (chatError(msg)) return;
  hintRefused();
  settle();
  onRefused();
  if (game.msg) render();
  const [text, extra] = errorSentence(msg);
  showMessage(text, "error", extra);
  tellRefusal(text);
}

/** The sentence of a refused message (and its "why?" links). */
function errorSentence(msg) {
  if (msg.say) return [t(msg.say.text, msg.say.params || {}), []];
  const key = ERROR_TEXT[msg.code];
  if (!key) return [msg.message || t("Something went wrong."), []];
  const { text, rules } = splitRules(msg.message || "");
  return [t(key, { reason: text }), whyLinks(rules)];
}

/** The players' names with links to their profiles and their ratings, when an account plays. */
function renderPlayers() {
  const line = byId("players-line");
  const table = game.info;
  line.hidden = !table || !(table.accounts || []).some(Boolean);
  if (!line.hidden) fill(line, playersLine(table, names()));
}

async function loadInfo() {
  try {
    game.info = await getJSON(`/api/games/${encodeURIComponent(gameId)}`);
    renderPlayers();
    if (game.msg) {
      renderInvite();
      renderChat();
    }
  } catch {
    /* the table info only serves "play again" and the invite box */
  }
}

// ------------------------------------------------------------------ preferences and wiring

function setSort(by) {
  game.sortBy = by;
  savePref("sort", by);
  byId("sort-colour").setAttribute("aria-pressed", String(by === "colour"));
  byId("sort-value").setAttribute("aria-pressed", String(by === "value"));
  if (game.msg) render();
}

function wire() {
  wirePlays(["board", "prompt", "decks", "panel-bottom"]);
  wireJoin();
  wireSignals();
  wireEndings();
  wireChat();
  wireHint();
  wireKeyboard();
  wireBlind(sendTyped);
  byId("undo").addEventListener("click", () => {
    if (send({ type: "undo" })) game.pending = true;
  });
  byId("play-again").addEventListener("click", playAgain);
  byId("sort-colour").addEventListener("click", () => setSort("colour"));
  byId("sort-value").addEventListener("click", () => setSort("value"));
  const confirmBox = byId("confirm-plays");
  confirmBox.checked = game.confirmPlays;
  confirmBox.addEventListener("change", () => {
    game.confirmPlays = confirmBox.checked;
    savePref("confirmPlays", confirmBox.checked ? "1" : "0");
  });
  byId("message").addEventListener("click", (event) => {
    if (!event.target.closest("a")) clearMessage();
  });
}

async function main() {
  await initI18n();
  game.render = render;
  wire();
  setSort(game.sortBy);
  if (!gameId) {
    showMessage(t(ERROR_TEXT.not_found));
    return;
  }
  loadInfo();
  connect({ onState, onError, onLost, onChat, onPresence, onWhyNot, onHint });
  if (badSeatLink) showMessage(t(ERROR_TEXT.bad_token));
}

main();
