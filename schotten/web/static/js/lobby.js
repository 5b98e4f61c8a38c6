// The lobby: create a table, join an open one, watch a game, open a finished game's replay, and
// resume the games whose seat this browser holds (its seat cookies: GET /api/my-games).

import { cleanNickname, getJSON, postJSON, savedNickname, savePref, showMessage } from "./api.js";
import { byId, el, fill } from "./dom.js";
import { initI18n, t, tn } from "./i18n.js";
import { levelName, playerName, variantName } from "./labels.js";

const REFRESH_MS = 5000;
// The ids of the tables whose seat this browser holds, as the last refresh found them.
let mine = new Set();

function nickname() {
  const name = cleanNickname(byId("nickname").value);
  if (!name) {
    showMessage(t("Choose a nickname of 1 to 24 characters."));
    byId("nickname").focus();
    return null;
  }
  savePref("nickname", name);
  return name;
}

/** The page of a seat just granted: its cookie, set by the answer, holds the token (not the address). */
function seatPage(seat) {
  return `/game/${encodeURIComponent(seat.id)}`;
}

function mode() {
  const checked = document.querySelector('input[name="mode"]:checked');
  return checked ? checked.value : "ai";
}

async function create(event) {
  event.preventDefault();
  const name = nickname();
  if (!name) return;
  const body = {
    variant: byId("variant").value,
    rounds: Number(byId("rounds").value),
    mode: mode(),
    nickname: name,
    seat: null,
  };
  if (body.mode === "ai") body.level = byId("level").value;
  const button = byId("create");
  button.disabled = true;
  try {
    const seat = await postJSON("/api/tables", body);
    window.location.assign(seatPage(seat));
  } catch (error) {
    showMessage(error.message);
    button.disabled = false;
  }
}

async function join(id) {
  const name = nickname();
  if (!name) return;
  try {
    const seat = await postJSON(`/api/tables/${encodeURIComponent(id)}/join`, { nickname: name });
    window.location.assign(seatPage(seat));
  } catch (error) {
    showMessage(error.status === 409 ? t("This table has no free seat any more.") : error.message);
    refresh();
  }
}

function describe(table) {
  const players = table.players.map((p) => (p ? playerName(p) : t("(free seat)"))).join(" – ");
  const opponent = table.mode === "ai" ? t("against the computer ({level})", { level: levelName(table.level) }) : "";
  const rounds = tn("{n} round", "{n} rounds", table.rounds);
  return [variantName(table.variant), rounds, opponent].filter(Boolean).join(" · ") + ` — ${players}`;
}

function winnerText(table) {
  if (table.winner === null || table.winner === undefined) return t("A draw");
  return t("{name} won", { name: playerName(table.players[table.winner] || "?") });
}

function gameLink(table, text, kind = "") {
  return el("a", { class: `btn small ${kind}`.trim(), text, attrs: { href: `/game/${encodeURIComponent(table.id)}` } });
}

function row(table) {
  const item = el("li", { class: "table-row", data: { table: table.id, status: table.status } },
    el("span", { class: "desc", text: describe(table) }));
  if (mine.has(table.id) && (table.status === "open" || table.status === "playing")) {
    item.dataset.mine = "1";
    item.append(gameLink(table, t("Resume"), "primary"));
  } else if (table.status === "open" && table.rematch_of) {
    item.append(el("span", { class: "muted", text: t("Rematch: the seat is kept for the other player") }));
  } else if (table.status === "open") {
    item.append(el("button", {
      class: "btn small primary",
      text: t("Join"),
      attrs: { type: "button" },
      data: { join: table.id },
      on: { click: () => join(table.id) },
    }));
  } else if (table.status === "playing") {
    item.append(gameLink(table, t("Watch")));
  } else if (table.status === "over") {
    item.append(el("span", { class: "muted", text: winnerText(table) }),
      el("a", { class: "btn small", text: t("Replay"), attrs: { href: `/replay/${encodeURIComponent(table.id)}` } }));
  }
  return item;
}

function fillList(id, tables) {
  const list = byId(id);
  if (!tables.length) fill(list, el("li", { class: "muted", text: t("None at the moment.") }));
  else fill(list, ...tables.map(row));
}

/** The games whose seat this browser holds; the section is hidden while there are none. */
function fillMine(tables) {
  byId("my-games-box").hidden = !tables.length;
  if (tables.length) fill(byId("my-games"), ...tables.map(row));
}

async function refresh() {
  try {
    const [data, own] = await Promise.all([getJSON("/api/tables"), getJSON("/api/my-games")]);
    const tables = data.tables || [];
    mine = new Set((own.tables || []).map((tb) => tb.id));
    fillMine(own.tables || []);
    fillList("open-tables", tables.filter((tb) => tb.status === "open"));
    fillList("playing-tables", tables.filter((tb) => tb.status === "playing"));
    fillList("over-tables", tables.filter((tb) => tb.status === "over"));
  } catch (error) {
    showMessage(error.message);
  }
}

function syncLevel() {
  byId("level").disabled = mode() !== "ai";
  byId("level").closest("form").classList.toggle("friend", mode() !== "ai");
}

function wireForm() {
  const field = byId("nickname");
  if (!field.value) field.value = savedNickname();
  byId("create-form").addEventListener("submit", create);
  for (const input of document.querySelectorAll('input[name="mode"]')) input.addEventListener("change", syncLevel);
  syncLevel();
  byId("create").disabled = false;
}

async function main() {
  wireForm();
  await initI18n();
  await refresh();
  window.setInterval(() => {
    if (document.visibilityState === "visible") refresh();
  }, REFRESH_MS);
}

main();
