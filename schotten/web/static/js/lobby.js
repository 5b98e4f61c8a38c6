// The lobby: create a table (with its time control), join an open one, watch a game, open a
// finished game's replay, and resume the games whose seat this browser holds (its seat cookies:
// GET /api/my-games), those where it is this browser's move first ("Your turn in 3 games", also
// in the tab's title).

import { cleanNickname, getJSON, loadPref, postJSON, savedNickname, savePref, showMessage } from "./api.js";
import { byId, el, fill } from "./dom.js";
import { initI18n, t, tn } from "./i18n.js";
import { CLOCK_PRESETS, clockName, levelName, resultName, variantName } from "./labels.js";
import { currentUser } from "./account.js";
import { playersLine, seatNames } from "./people.js";

const REFRESH_MS = 5000;
const BASE_TITLE = "Schotten Totten";
const MAX_SECONDS = 3 * 3600;
const MAX_INCREMENT = 600;
const MAX_DAYS = 14;
/** The time controls of the form's presets (the API's `clock`; null: untimed). */
const PRESETS = { ...CLOCK_PRESETS, none: null };
// The ids of the tables whose seat this browser holds, as the last refresh found them.
let mine = new Set();
// The username this browser is logged in as (null: a guest, who plays under a nickname).
let user = null;

/** Show the guest's nickname field, or the account's rated options; a guest's tables are casual. */
function syncAccount() {
  for (const node of document.querySelectorAll(".guest-only")) node.hidden = Boolean(user);
  for (const node of document.querySelectorAll(".account-only")) node.hidden = !user;
  byId("nickname").required = !user;
  syncRated();
}

function syncRated() {
  const person = mode() === "friend";
  byId("rated").disabled = !person;
  if (!person) byId("rated").checked = false;
  for (const id of ["min-rating", "max-rating"]) byId(id).disabled = !person;
}

function ratingBound(id) {
  const text = byId(id).value.trim();
  return text === "" ? null : Number(text);
}

/** The rated flag and rating range of a table against a person, for a logged-in player. */
function ratedFields(body) {
  if (!user || body.mode !== "friend") return null;
  const fields = { rated: byId("rated").checked, min_rating: ratingBound("min-rating"),
    max_rating: ratingBound("max-rating") };
  if (fields.rated && !body.clock) return { error: t("A rated game needs a clock: choose a time control.") };
  return fields;
}

function nickname() {
  if (user) return user;
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

function customTime() {
  const initial = Math.round(Number(byId("clock-minutes").value) * 60);
  const increment = Number(byId("clock-increment").value);
  if (!(initial >= 1 && initial <= MAX_SECONDS) || !Number.isInteger(increment) || increment < 0
    || increment > MAX_INCREMENT) {
    return { error: t("Choose 1 second to 180 minutes each, and 0 to 600 seconds added per turn.") };
  }
  return { clock: { initial, increment } };
}

function customDays() {
  const days = Number(byId("clock-days").value);
  if (!Number.isInteger(days) || days < 1 || days > MAX_DAYS) return { error: t("Choose 1 to 14 days per move.") };
  return { clock: { days } };
}

/** The time control chosen in the form: {clock} (null: untimed), or {error} for a bad custom one. */
function chosenClock() {
  const choice = byId("clock").value;
  if (choice in PRESETS) return { clock: PRESETS[choice] };
  return choice === "custom-days" ? customDays() : customTime();
}

function clockHint(clock) {
  if (!clock) return t("No clock: take your time.");
  if (clock.days) return tn("Each move within {n} day.", "Each move within {n} days.", clock.days);
  const minutes = (clock.initial / 60).toFixed(2).replace(/\.?0+$/, "");
  return t("{m} min each, plus {s} s after each of your turns.", { m: minutes, s: clock.increment });
}

function syncClock() {
  const choice = byId("clock").value;
  for (const node of document.querySelectorAll(".custom-time")) node.hidden = choice !== "custom-time";
  for (const node of document.querySelectorAll(".custom-days")) node.hidden = choice !== "custom-days";
  const chosen = chosenClock();
  byId("clock-hint").textContent = chosen.error || clockHint(chosen.clock);
}

async function create(event) {
  event.preventDefault();
  const name = nickname();
  if (!name) return;
  const chosen = chosenClock();
  if (chosen.error) {
    showMessage(chosen.error);
    return;
  }
  savePref("clock", byId("clock").value);
  const body = {
    variant: byId("variant").value,
    rounds: Number(byId("rounds").value),
    mode: mode(),
    nickname: user ? undefined : name,
    seat: null,
    clock: chosen.clock,
  };
  if (body.mode === "ai") Object.assign(body, { level: byId("level").value, hints: byId("hints").checked });
  const rated = ratedFields(body);
  if (rated && rated.error) {
    showMessage(rated.error);
    return;
  }
  Object.assign(body, rated || {});
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
    const seat = await postJSON(`/api/tables/${encodeURIComponent(id)}/join`, user ? {} : { nickname: name });
    window.location.assign(seatPage(seat));
  } catch (error) {
    showMessage(error.status === 409 && !user ? t("This table has no free seat any more.") : error.message);
    refresh();
  }
}

function rangeText(table) {
  const [low, high] = table.rating_range || [null, null];
  if (low === null && high === null) return "";
  return t("rated {low} to {high}", { low: low ?? "…", high: high ?? "…" });
}

function describe(table) {
  const opponent = table.mode === "ai" ? t("against the computer ({level})", { level: levelName(table.level) }) : "";
  const rounds = tn("{n} round", "{n} rounds", table.rounds);
  const parts = [variantName(table.variant), rounds, clockName(table.clock), opponent, rangeText(table)];
  return el("span", { class: "desc" }, parts.filter(Boolean).join(" · ") + " — ",
    playersLine(table, seatNames(table)));
}

function gameLink(table, text, kind = "") {
  return el("a", { class: `btn small ${kind}`.trim(), text, attrs: { href: `/game/${encodeURIComponent(table.id)}` } });
}

function row(table) {
  const item = el("li", {
    class: "table-row", data: { table: table.id, status: table.status, ended: table.ended },
  }, describe(table));
  if (table.your_turn) {
    item.dataset.yourTurn = "1";
    item.append(el("span", { class: "your-turn", text: t("Your turn") }));
  }
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
    item.append(el("span", { class: "muted ended", text: resultName(table) }),
      el("a", { class: "btn small", text: t("Replay"), attrs: { href: `/replay/${encodeURIComponent(table.id)}` } }));
  }
  return item;
}

function fillList(id, tables) {
  const list = byId(id);
  if (!tables.length) fill(list, el("li", { class: "muted", text: t("None at the moment.") }));
  else fill(list, ...tables.map(row));
}

/** The games whose seat this browser holds, those where it is its move first; the section is
 * hidden while there are none. How many wait for this browser's move: a line and the tab's title. */
function fillMine(tables) {
  const sorted = [...tables].sort((a, b) => Number(Boolean(b.your_turn)) - Number(Boolean(a.your_turn)));
  const turns = sorted.filter((table) => table.your_turn).length;
  byId("my-games-box").hidden = !tables.length;
  if (tables.length) fill(byId("my-games"), ...sorted.map(row));
  const line = byId("my-turns");
  line.hidden = !turns;
  line.textContent = turns ? tn("Your turn in {n} game", "Your turn in {n} games", turns) : "";
  document.title = turns ? `(${turns}) ${BASE_TITLE}` : BASE_TITLE;
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
  byId("hints").disabled = mode() !== "ai";
  for (const node of document.querySelectorAll(".ai-only")) node.hidden = mode() !== "ai";
  byId("level").closest("form").classList.toggle("friend", mode() !== "ai");
  syncRated();
}

function wireForm() {
  const field = byId("nickname");
  if (!field.value) field.value = savedNickname();
  byId("create-form").addEventListener("submit", create);
  for (const input of document.querySelectorAll('input[name="mode"]')) input.addEventListener("change", syncLevel);
  syncLevel();
  const saved = loadPref("clock", "none");
  if (saved in PRESETS || saved.startsWith("custom-")) byId("clock").value = saved;
  for (const id of ["clock", "clock-minutes", "clock-increment", "clock-days"]) {
    byId(id).addEventListener("input", syncClock);
    byId(id).addEventListener("change", syncClock);
  }
  syncClock();
  byId("create").disabled = false;
}

async function loadUser() {
  user = await currentUser();
  syncAccount();
}

async function main() {
  wireForm();
  await initI18n();
  await loadUser();
  document.addEventListener("account-changed", async () => {
    await loadUser();
    refresh();
  });
  syncClock();
  await refresh();
  window.setInterval(() => {
    if (document.visibilityState === "visible") refresh();
  }, REFRESH_MS);
}

main();
