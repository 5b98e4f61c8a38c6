// "Play now" at the top of the lobby: choose a variant, a time control and rated or casual, press
// Play now and wait in that pool (POST /api/play-now; the waiting ticket is an HttpOnly cookie).
// The page asks how it goes every second (GET /api/play-now), shows the time waited, and goes to
// the game once paired. After `ai_offer_after` seconds alone it offers a game against the AI in a
// new tab meanwhile: this tab keeps waiting (and polling, so the entry stays alive). Each time
// control's button shows how many wait in its pool (GET /api/play-now/pools, every few seconds
// while the lobby is shown); waiting alone, the page offers the pool the server names in `offer`.

import { currentUser } from "./account.js";
import { ApiError, cleanNickname, errorText, getJSON, postJSON, savedNickname, savePref, showMessage } from "./api.js";
import { byId } from "./dom.js";
import { t, tn } from "./i18n.js";
import { clockName, variantName } from "./labels.js";

const POLL_MS = 1000;
const COUNTS_MS = 3000;
const BASE_TITLE = "Schotten Totten";

let username = null;
let waitingAnswer = null;
let answeredAt = 0;
let pollTimer = null;
let aiWindow = null;
let counts = null;

async function send(method) {
  let response;
  try {
    response = await fetch("/api/play-now", { method, credentials: "same-origin", headers: { Accept: "application/json" } });
  } catch {
    throw new ApiError(0, t("The server cannot be reached."));
  }
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, errorText(body, `HTTP ${response.status}`));
  return body;
}

function chosen(name) {
  const checked = document.querySelector(`input[name="${name}"]:checked`);
  return checked ? checked.value : null;
}

function syncUser() {
  const guest = username === null;
  for (const node of document.querySelectorAll(".pn-guest")) node.hidden = !guest;
  byId("pn-rated").disabled = guest;
  if (guest && chosen("pn-rated") === "rated") document.querySelector('input[name="pn-rated"][value="casual"]').checked = true;
  byId("pn-rated-hint").hidden = !guest;
  const account = byId("pn-account");
  account.hidden = guest;
  account.textContent = guest ? "" : t("Playing as {name}", { name: username });
}

/** The nickname of a guest, shared with the lobby's own field and saved for the next visit. */
function nickname() {
  const name = cleanNickname(byId("pn-nickname").value);
  if (!name) {
    showMessage(t("Choose a nickname of 1 to 24 characters."));
    byId("pn-nickname").focus();
    return null;
  }
  savePref("nickname", name);
  const lobbyField = document.getElementById("nickname");
  if (lobbyField && !lobbyField.value) lobbyField.value = name;
  return name;
}

function clockText(seconds) {
  const whole = Math.max(0, Math.floor(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/** How many wait in the pool of `preset` with the form's variant and game type (0 without counts). */
function waitingIn(preset) {
  const rated = chosen("pn-rated") === "rated";
  const pool = counts && counts.pools.find((p) => p.variant === byId("pn-variant").value && p.preset === preset
    && p.rated === rated);
  return pool ? pool.waiting : 0;
}

function renderCounts() {
  for (const input of document.querySelectorAll("input[name=pn-clock]")) {
    const badge = input.parentElement.querySelector(".pn-count");
    const here = waitingIn(input.value);
    badge.textContent = here ? tn("{n} waiting", "{n} waiting", here) : "";
  }
  const line = byId("pn-counts");
  if (!counts) {
    line.textContent = "";
    return;
  }
  line.textContent = `${tn("{n} player waiting in this pool", "{n} players waiting in this pool",
    waitingIn(chosen("pn-clock")))} · ${tn("{n} player online", "{n} players online", counts.online)}`;
}

async function refreshCounts() {
  if (document.visibilityState !== "visible") return;
  try {
    counts = await getJSON("/api/play-now/pools");
  } catch {
    counts = null;
  }
  renderCounts();
}

/** The waiting view: the time waited (counting on between two answers), the rating range, the AI offer. */
function renderWaiting() {
  const answer = waitingAnswer;
  byId("pn-form").hidden = Boolean(answer);
  byId("pn-waiting").hidden = !answer;
  if (!answer) return;
  const waited = answer.waited + (Date.now() - answeredAt) / 1000;
  byId("pn-waited").textContent = t("Looking for an opponent… {time}", { time: clockText(waited) });
  byId("pn-pool").textContent = [variantName(answer.variant), clockName(answer.clock),
    answer.rated ? t("Rated") : t("Casual")].join(" · ");
  const range = byId("pn-range");
  range.hidden = answer.range === null || answer.range === undefined;
  range.textContent = range.hidden ? "" : t("Rating range: ±{points}", { points: answer.range });
  byId("pn-ai").hidden = waited < answer.ai_offer_after;
  renderOffer(answer.offer);
}

/** Waiting alone while others wait in another pool: "1 player waits in 5+5 — play that instead?". */
function renderOffer(offer) {
  byId("pn-offer").hidden = !offer;
  if (!offer) return;
  const pool = clockName(offer.clock);
  byId("pn-offer-text").textContent = tn("{n} player waits in {pool} — play that instead?",
    "{n} players wait in {pool} — play that instead?", offer.waiting, { pool });
  const button = byId("pn-switch");
  button.textContent = t("Play {pool}", { pool });
  button.dataset.preset = offer.preset;
}

function stopWaiting() {
  waitingAnswer = null;
  window.clearInterval(pollTimer);
  pollTimer = null;
  renderWaiting();
  refreshCounts();
}

function paired(answer) {
  window.clearInterval(pollTimer);
  pollTimer = null;
  document.title = `${t("Opponent found")} – ${BASE_TITLE}`;
  byId("pn-waited").textContent = t("Opponent found");
  window.location.assign(answer.url);
}

/** Take in an answer of the API: waiting (keep polling), paired (go to the game), or neither. */
function follow(answer, dropped = false) {
  if (answer.status === "paired") {
    paired(answer);
  } else if (answer.status === "waiting") {
    waitingAnswer = answer;
    answeredAt = Date.now();
    if (!pollTimer) pollTimer = window.setInterval(poll, POLL_MS);
    renderWaiting();
  } else {
    if (dropped && waitingAnswer) showMessage(t("Your wait ended: press Play now again."), "info");
    stopWaiting();
  }
}

async function poll() {
  try {
    follow(await getJSON("/api/play-now"), true);
  } catch (error) {
    if (error.status === 0) renderWaiting();
    else showMessage(error.message);
  }
}

async function play(event) {
  event.preventDefault();
  await enter({ variant: byId("pn-variant").value, preset: chosen("pn-clock"), rated: chosen("pn-rated") === "rated" });
}

/** Take the offered pool instead: the form shows it, and the entry moves there. */
async function switchPool() {
  const preset = byId("pn-switch").dataset.preset;
  const offer = waitingAnswer && waitingAnswer.offer;
  if (!offer || offer.preset !== preset) return;
  const radio = document.querySelector(`input[name="pn-clock"][value="${preset}"]`);
  if (radio) radio.checked = true;
  await enter({ variant: offer.variant, preset, rated: offer.rated });
}

/** Enter the pool of `body` (a guest's nickname added). */
async function enter(body) {
  if (username === null) {
    body.nickname = nickname();
    if (!body.nickname) return;
  }
  const button = byId("pn-play");
  button.disabled = true;
  try {
    // A 409 says this browser had no pool_browser cookie (cleared meanwhile): the answer set it.
    follow(await postJSON("/api/play-now", body).catch((error) => {
      if (error.status === 409) return postJSON("/api/play-now", body);
      throw error;
    }));
  } catch (error) {
    showMessage(error.message);
  } finally {
    button.disabled = false;
  }
}

async function cancel() {
  try {
    follow(await send("DELETE"));
  } catch (error) {
    showMessage(error.message);
  }
}

/** A game against the AI in a new tab (opened at the click, so no pop-up blocker stops it). */
async function playAi() {
  aiWindow = window.open("", "_blank");
  if (!aiWindow) {
    showMessage(t("Your browser blocked the new tab: allow pop-ups to play the AI meanwhile."));
    return;
  }
  aiWindow.opener = null;
  const lobbyLevel = document.getElementById("level");
  const body = {
    variant: waitingAnswer ? waitingAnswer.variant : byId("pn-variant").value,
    rounds: 1,
    mode: "ai",
    level: lobbyLevel ? lobbyLevel.value : "easy",
    nickname: username || cleanNickname(byId("pn-nickname").value) || savedNickname() || "Player",
    seat: null,
    clock: null,
  };
  try {
    const seat = await postJSON("/api/tables", body);
    aiWindow.location.href = `/game/${encodeURIComponent(seat.id)}`;
    showMessage(t("The AI game is in a new tab; this page keeps looking for an opponent."), "info");
  } catch (error) {
    aiWindow.close();
    showMessage(error.message);
  }
}

function wire() {
  const field = byId("pn-nickname");
  field.value = savedNickname();
  const lobbyField = document.getElementById("nickname");
  if (lobbyField) {
    lobbyField.addEventListener("input", () => { field.value = lobbyField.value; });
    field.addEventListener("input", () => { lobbyField.value = field.value; });
  }
  byId("pn-form").addEventListener("submit", play);
  byId("pn-cancel").addEventListener("click", cancel);
  byId("pn-ai").addEventListener("click", playAi);
  byId("pn-switch").addEventListener("click", switchPool);
  for (const input of document.querySelectorAll("input[name=pn-clock]")) {
    const badge = document.createElement("span");
    badge.className = "pn-count muted";
    input.parentElement.append(" ", badge);
  }
  for (const node of document.querySelectorAll("#pn-variant, input[name=pn-clock], input[name=pn-rated]")) {
    node.addEventListener("change", renderCounts);
  }
  // The catalogue arrives after this module starts (lobby.js loads it): render again in its language.
  new MutationObserver(() => {
    syncUser();
    renderCounts();
    renderWaiting();
  }).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
  window.setInterval(() => {
    if (waitingAnswer) renderWaiting();
  }, 250);
  window.setInterval(refreshCounts, COUNTS_MS);
}

async function main() {
  wire();
  username = await currentUser();
  syncUser();
  document.addEventListener("account-changed", async () => {
    username = await currentUser();
    syncUser();
  });
  await poll();
  byId("pn-play").disabled = false;
  byId("play-now").dataset.ready = "1";
  await refreshCounts();
}

main();
