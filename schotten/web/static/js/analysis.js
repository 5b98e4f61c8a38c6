// The analysis board: a position pasted in its notation, analysed by the server from the view
// of the seat to move; the page draws the table and the server's figures and words only.

import { postJSON } from "./api.js";
import { renderBoard } from "./board.js";
import { cardFace } from "./cards.js";
import { byId, el, fill } from "./dom.js";
import { initI18n, t } from "./i18n.js";

function percent(value) {
  return `${Math.round(value * 100)}%`;
}

function seatName(seat) {
  return t("Seat {n}", { n: seat });
}

function winText(data) {
  if (!data.win) return t("The game is over: there is nothing to analyse.");
  return t("{seat} to move. Chance of winning the round: {name0} {p0}, {name1} {p1}.", {
    seat: seatName(data.to_move), name0: seatName(1), p0: percent(data.win[0]),
    name1: seatName(2), p1: percent(data.win[1]),
  });
}

function bestItem(entry) {
  return el("li", { class: "best-move" },
    el("code", { text: entry.action }), " ",
    el("span", { text: t("wins the round: {p}", { p: percent(entry.win) }) }));
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
  fill(byId("best-moves"), ...data.best.map(bestItem));
  fill(byId("analysis-stones"),
    el("tr", {}, el("th", {}), el("th", { text: t("Chance ({name0} / {name1})", { name0: names[0], name1: names[1] }) }),
      el("th", { text: t("Formations") }), el("th", { text: t("Claims") })),
    ...data.stones.map(stoneRow));
  byId("analysis-result").hidden = false;
}

async function analyse(position) {
  const status = byId("analysis-status");
  const url = new URL(window.location.href);
  url.searchParams.set("position", position);
  window.history.replaceState(null, "", url);
  status.textContent = t("Analysing…");
  try {
    showResult(await postJSON("/api/analysis", { position }));
    status.textContent = "";
  } catch (error) {
    byId("analysis-result").hidden = true;
    status.textContent = error.message;
  }
}

async function main() {
  await initI18n();
  const field = byId("position");
  field.value = new URLSearchParams(window.location.search).get("position") || "";
  byId("analysis-form").addEventListener("submit", (event) => {
    event.preventDefault();
    analyse(field.value.trim());
  });
  if (field.value.trim()) analyse(field.value.trim());
}

main();
