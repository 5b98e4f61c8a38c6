// The analysis board: a position (pasted in its notation, from the URL, or edited by hand in the
// editor) analysed by the server from the view of the seat to move; the page draws the table and
// the server's figures and words only. Each edit is checked by the server (POST /api/analysis/edit).

import { postJSON } from "./api.js";
import { currentUser } from "./account.js";
import { renderBoard } from "./board.js";
import { cardFace, cardName } from "./cards.js";
import { byId, el, fill } from "./dom.js";
import { drawEditor, initEditor } from "./editor.js";
import { initI18n, N_, t } from "./i18n.js";
import { playerName } from "./labels.js";

// The best moves in words, as the mover would do them, by kind (the server's `parts`).
const ADVICE = {
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

const page = { position: "", places: null, names: [null, null], accounts: [null, null], user: null, asked: 0 };

function percent(value) {
  return `${Math.round(value * 100)}%`;
}

function isYou(seat) {
  const account = page.accounts[seat - 1];
  return Boolean(account) && account === page.user;
}

/** A seat's label: "You" for the seat the reader's account sat in (opened from a replay), else the player's
 * name the replay passed, else "Seat 1" / "Seat 2". */
function seatName(seat) {
  if (isYou(seat)) return t("You");
  const name = page.names[seat - 1];
  return name ? playerName(name) : t("Seat {n}", { n: seat });
}

function winText(data) {
  if (!data.win) return t("The game is over: there is nothing to analyse.");
  const values = { seat: seatName(data.to_move), name0: seatName(1), p0: percent(data.win[0]),
    name1: seatName(2), p1: percent(data.win[1]) };
  return isYou(data.to_move)
    ? t("You are to move. Chance of winning the round: {name0} {p0}, {name1} {p1}.", values)
    : t("{seat} to move. Chance of winning the round: {name0} {p0}, {name1} {p1}.", values);
}

/** A best move in words ("play blue 7 on stone 3"). */
function advice(parts) {
  if (!parts) return "";
  if (parts.kind === "draw") return t(DRAWS[parts.deck] || DRAWS.clan);
  const values = { card: parts.card ? cardName(parts.card) : "", stone: parts.stone === null ? "" : parts.stone + 1 };
  return ADVICE[parts.kind] ? t(ADVICE[parts.kind], values) : parts.action;
}

function bestItem(entry, mover) {
  const chance = t("chance of winning the round after it, {seat}: {p}", { seat: seatName(mover), p: percent(entry.win) });
  return el("li", { class: "best-move" },
    el("span", { class: "advice", text: advice(entry.parts) }), " ",
    el("code", { text: entry.action }), " — ",
    el("span", { class: "best-chance", text: chance }));
}

function sideText(side) {
  if (side.complete) return side.formation || "";
  return side.best_reachable
    ? t("incomplete; best still reachable: {formation}", { formation: side.best_reachable })
    : t("incomplete; cannot be completed");
}

function stoneRow(stone) {
  const chance = stone.chance ? stone.chance.map(percent).join(" / ") : "";
  const claims = stone.claims.map((c) => el("div", { text: `${seatName(c.seat)}: ${c.reason}` }));
  return el("tr", { data: { stone: stone.stone } },
    el("th", { text: t("Stone {n}", { n: stone.stone }) }),
    el("td", { class: "chance", text: chance }),
    el("td", {}, ...stone.sides.map((s) => el("div", { text: `${seatName(s.seat)}: ${sideText(s)}` }))),
    el("td", {}, ...claims));
}

function showResult(data) {
  const bottom = data.to_move ? data.to_move - 1 : 0;
  const names = [seatName(1), seatName(2)];
  renderBoard(byId("board"), data.board, { bottom, names, over: data.board.phase === "OVER" });
  fill(byId("panel-bottom"), el("div", { class: "hand revealed" }, ...(data.board.hand || []).map((c) => cardFace(c))));
  byId("analysis-win").textContent = winText(data);
  fill(byId("best-moves"), ...data.best.map((entry) => bestItem(entry, data.to_move)));
  fill(byId("analysis-stones"),
    el("tr", {}, el("th", {}), el("th", { text: t("Chance ({name0} / {name1})", { name0: names[0], name1: names[1] }) }),
      el("th", { text: t("Formations") }), el("th", { text: t("Claims") })),
    ...data.stones.map(stoneRow));
  byId("analysis-result").hidden = false;
}

/** The position in the text field and the URL (a link to share), and its places in the editor. */
function showPosition(answer) {
  page.position = answer.position;
  page.places = answer.places;
  byId("position").value = answer.position;
  const url = new URL(window.location.href);
  url.searchParams.set("position", answer.position);
  window.history.replaceState(null, "", url);
  drawEditor(answer.places, seatName);
  const mover = answer.places.to_move;
  byId("switch-seat").hidden = !mover;
  byId("editor-section").hidden = false;
}

async function analyse() {
  const status = byId("analysis-status");
  const asked = ++page.asked;
  status.textContent = t("Analysing…");
  try {
    const data = await postJSON("/api/analysis", { position: page.position });
    if (asked !== page.asked) return;
    showResult(data);
    status.textContent = "";
  } catch (error) {
    if (asked !== page.asked) return;
    byId("analysis-result").hidden = true;
    status.textContent = error.message;
  }
}

/** Read a position typed or linked: the server checks it and sends its places. */
async function load(position) {
  const url = new URL(window.location.href);
  url.searchParams.set("position", position);
  window.history.replaceState(null, "", url);
  byId("edit-status").textContent = "";
  try {
    showPosition(await postJSON("/api/analysis/edit", { position }));
  } catch (error) {
    page.asked += 1;
    byId("analysis-result").hidden = true;
    byId("editor-section").hidden = true;
    byId("analysis-status").textContent = error.message;
    return;
  }
  await analyse();
}

/** Send one edit; the position changes only if the server accepts it, else its sentence is shown. */
async function edit(change) {
  const status = byId("edit-status");
  status.classList.remove("refused");
  try {
    showPosition(await postJSON("/api/analysis/edit", { position: page.position, edit: change }));
    status.textContent = "";
  } catch (error) {
    status.textContent = error.message;
    status.classList.add("refused");
    return;
  }
  await analyse();
}

/** The seats' names and accounts "Analyse from here" passed (`seat1`, `account1`, ...), if any. */
function readNames() {
  const query = new URLSearchParams(window.location.search);
  const read = (key) => [1, 2].map((n) => query.get(`${key}${n}`)).map((v) => (v && v.length <= 60 ? v : null));
  page.names = read("seat");
  page.accounts = read("account");
}

async function main() {
  await initI18n();
  readNames();
  page.user = await currentUser();
  const field = byId("position");
  field.value = new URLSearchParams(window.location.search).get("position") || "";
  initEditor(byId("editor"), edit);
  byId("switch-seat").addEventListener("click", () => {
    if (page.places && page.places.to_move) edit({ to_move: 3 - page.places.to_move });
  });
  byId("analysis-form").addEventListener("submit", (event) => {
    event.preventDefault();
    load(field.value.trim());
  });
  if (field.value.trim()) load(field.value.trim());
}

main();
