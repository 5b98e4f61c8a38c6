// The tournaments page (/tournaments): upcoming, running and finished events (GET /api/tournaments)
// and, for a signed-in player, a form creating one (POST /api/tournaments): the lobby's time controls
// (days per move offered for a Swiss only), the length, the start (in N minutes, or at a local date
// and time sent with the browser's offset), the optional minimum rating and rated games. The server
// checks every field: a refusal shows its sentence.

import { getJSON, postJSON, showMessage } from "./api.js";
import { currentUser } from "./account.js";
import { byId, el, fill } from "./dom.js";
import { initI18n, t, tn } from "./i18n.js";
import { CLOCK_PRESETS, VARIANTS, clockName, variantName } from "./labels.js";

const LISTS = { created: "upcoming", started: "running", finished: "finished" };
/** The time controls of the form's presets (the API's `clock`). */
const PRESETS = CLOCK_PRESETS;
const DEFAULT_CLOCK = "5+5";
const HOUR_MS = 3600 * 1000;

function item(tournament) {
  const kind = tournament.format === "arena" ? t("Arena") : t("Swiss");
  const when = new Date(tournament.starts_at).toLocaleString();
  return el("li", {},
    el("a", { text: tournament.name, attrs: { href: `/tournaments/${tournament.id}` } }),
    el("span", { class: "muted", text: ` ${kind} · ${variantName(tournament.variant)} · ${clockName(tournament.clock)} · ${when} · ${t("Players: {n}", { n: tournament.players })}` }));
}

async function load() {
  try {
    const { tournaments } = await getJSON("/api/tournaments");
    for (const [status, id] of Object.entries(LISTS)) {
      fill(byId(id), ...tournaments.filter((found) => found.status === status).map(item));
    }
  } catch (error) {
    showMessage(error.message);
  }
}

/** A number field as the API takes it: null when left empty. */
function number(id) {
  const text = byId(id).value.trim();
  return text === "" ? null : Number(text);
}

/** The time control chosen: a preset, or the custom minutes + seconds, or the custom days. */
function chosenClock() {
  const choice = byId("t-clock").value;
  if (choice in PRESETS) return PRESETS[choice];
  if (choice === "custom-days") return { days: number("t-days") };
  const minutes = number("t-initial");
  return { initial: minutes === null ? null : Math.round(minutes * 60), increment: number("t-increment") ?? 0 };
}

function clockHint(clock) {
  if (clock.days) return tn("Each move within {n} day.", "Each move within {n} days.", clock.days);
  if (!clock.initial) return "";
  const minutes = (clock.initial / 60).toFixed(2).replace(/\.?0+$/, "");
  return t("{m} min each, plus {s} s after each of your turns.", { m: minutes, s: clock.increment });
}

function startChoice() {
  const checked = document.querySelector('input[name="t-start"]:checked');
  return checked ? checked.value : "in";
}

function pad(value) {
  return String(value).padStart(2, "0");
}

/** A `datetime-local` value as an ISO time with the browser's offset at that moment ("…+02:00"); null
 * when empty or not a time. */
function localIso(value) {
  const at = new Date(value);
  if (!value || Number.isNaN(at.getTime())) return null;
  const offset = -at.getTimezoneOffset();
  const zone = `${offset < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  const day = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
  return `${day}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}${zone}`;
}

/** A `datetime-local` value of `at` in the browser's time zone (to the minute). */
function localValue(at) {
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

function start() {
  if (startChoice() === "at") return { starts_at: localIso(byId("t-starts-at").value) };
  const minutes = number("t-starts");
  return { starts_in: minutes === null ? null : Math.round(minutes * 60) };
}

function body() {
  const format = byId("t-format").value;
  return {
    format, name: byId("t-name").value, variant: byId("t-variant").value, rated: byId("t-rated").checked,
    clock: chosenClock(), ...start(), min_rating: number("t-min-rating"), min_games: number("t-min-games"),
    ...(format === "arena" ? { minutes: number("t-minutes") } : { rounds: number("t-rounds") }),
  };
}

function showOnly(selector, shown) {
  for (const node of document.querySelectorAll(selector)) node.hidden = !shown;
}

/** Show the fields of the format, time control and start chosen; days per move are offered for a
 * Swiss only (an arena is played in real time). */
function sync() {
  const swiss = byId("t-format").value === "swiss";
  for (const option of byId("t-clock").querySelectorAll(".days-only")) {
    option.hidden = !swiss;
    option.disabled = !swiss;
  }
  if (byId("t-clock").selectedOptions[0]?.disabled) byId("t-clock").value = DEFAULT_CLOCK;
  const choice = byId("t-clock").value;
  showOnly(".custom-time", choice === "custom-time");
  showOnly(".custom-days", choice === "custom-days");
  showOnly(".arena-only", !swiss);
  showOnly(".swiss-only", swiss);
  showOnly(".start-in", startChoice() === "in");
  showOnly(".start-at", startChoice() === "at");
  byId("t-clock-hint").textContent = clockHint(chosenClock());
}

async function create(event) {
  event.preventDefault();
  try {
    const made = await postJSON("/api/tournaments", body());
    window.location.assign(`/tournaments/${made.id}`);
  } catch (error) {
    showMessage(error.message);
  }
}

async function main() {
  await initI18n();
  fill(byId("t-variant"), ...Object.keys(VARIANTS).map((value) => el("option", { text: variantName(value), attrs: { value } })));
  byId("t-starts-at").value = localValue(new Date(Date.now() + HOUR_MS));
  const form = byId("create");
  form.addEventListener("submit", create);
  form.addEventListener("input", sync);
  form.addEventListener("change", sync);
  sync();
  byId("create-box").hidden = !(await currentUser());
  await load();
  setInterval(load, 10000);
}

main();
