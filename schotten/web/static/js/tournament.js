// One tournament (/tournaments/{id}): countdown, join / pause / withdraw / berserk, live standings
// (score, games, fire and berserk marks; a Swiss's tiebreaks), the games, Swiss rounds' pairings, and
// for its creator before the start a Cancel (after a confirmation). The tournament's socket
// (/ws/tournaments/{id}) says when the standings changed and when this player is paired; the page
// then reads GET /api/tournaments/{id} (which sets the seat cookie). While the socket is down it
// polls that every 30 s. When the player is paired, the tab's title and sound say so (signals.js)
// and the page goes to the table.

import { getJSON, postJSON, showMessage } from "./api.js";
import { byId, el, fill } from "./dom.js";
import { N_, initI18n, language, t, tn } from "./i18n.js";
import { clockName, variantName } from "./labels.js";
import { signalCounts, signalPaired, wireSignals } from "./signals.js";

const FALLBACK_POLL_MS = 30000;
/** How long the page stays after the pairing's sound before it goes to the table. */
const PAIRED_PAUSE_MS = 1500;
const id = window.location.pathname.split("/").pop();
const link = { ws: null, retry: 1000, loading: null, again: false };
let seen = null;
let shown = null;
// A game the page took the player to once is not gone to again (they came back to the standings).

const STATUS = {
  created: N_("Starts in {time}"), started: N_("Running: ends in {time}"), finished: N_("Finished"),
  cancelled: N_("Cancelled"),
};
const NOT_FOUND_CLOSE = 4404;
const WHEN = { dateStyle: "medium", timeStyle: "short" };
const YOU = { waiting: N_("waiting"), playing: N_("playing"), paused: N_("paused"), withdrawn: N_("withdrawn") };

function left(until) {
  const seconds = Math.max(0, Math.round((new Date(until) - Date.now()) / 1000));
  const two = (n) => String(n).padStart(2, "0");
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
  const time = h ? `${h % 24}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
  return h >= 24 ? `${tn("{n} day", "{n} days", Math.floor(h / 24))} ${time}` : time;
}

function statusText(view) {
  if (view.status === "created") return t(STATUS.created, { time: left(view.starts_at) });
  if (view.status === "started" && view.ends_at) return t(STATUS.started, { time: left(view.ends_at) });
  if (view.status === "started") return t("Round {n} of {rounds}", { n: view.round, rounds: view.rounds_total });
  return t(STATUS[view.status]);
}

function marks(row) {
  const found = [];
  if (row.fire) found.push("🔥");
  if (row.berserk_wins) found.push("⚡".repeat(row.berserk_wins));
  return found.join(" ");
}

function standingRow(row) {
  const tiebreaks = row.tiebreaks ? [
    el("td", { class: "num buchholz", text: String(row.tiebreaks.buchholz) }),
    el("td", { class: "num sonneborn-berger", text: String(row.tiebreaks.sonneborn_berger) })] : [];
  return el("tr", { data: { player: row.player } },
    el("td", { text: String(row.rank) }), el("td", { text: row.player }),
    el("td", { class: "num score", text: String(row.score) }), el("td", { class: "num", text: String(row.games) }),
    ...tiebreaks, el("td", { text: marks(row) }));
}

function resultText(result) {
  if (!result) return t("playing");
  return result === "aborted" ? t("Aborted") : result;
}

function gameItem(game) {
  const names = game.players.map((name, seat) => (game.berserk?.[seat] ? `${name} ⚡` : name));
  return el("li", {}, el("a", { text: names.join(" – "), attrs: { href: `/game/${game.id}` } }),
    el("span", { class: "muted", text: ` ${resultText(game.result)}` }));
}

function roundBox(round) {
  const bye = round.bye ? [el("li", { text: t("Bye: {name}", { name: round.bye }) })] : [];
  return el("div", {}, el("h3", { text: t("Round {n}", { n: round.round }) }),
    el("ul", { class: "tournament-list" }, ...round.pairings.map(gameItem), ...bye));
}

/** The event's settings in one line: format, variant, clock, length, rated, start, who may join. */
function aboutText(view) {
  const parts = [view.format === "arena" ? t("Arena") : t("Swiss"), variantName(view.variant), clockName(view.clock),
    view.format === "arena" ? tn("{n} minute", "{n} minutes", view.minutes) : tn("{n} round", "{n} rounds", view.rounds_total),
    view.rated ? t("Rated") : t("Casual"),
    t("Starts {when}", { when: new Date(view.starts_at).toLocaleString(language(), WHEN) })];
  if (view.min_rating !== null && view.min_rating !== undefined) parts.push(t("Rating {n} or more", { n: view.min_rating }));
  if (view.min_games !== null && view.min_games !== undefined) parts.push(tn("{n} rated game or more", "{n} rated games or more", view.min_games));
  return parts.join(" · ");
}

function showButtons(view) {
  const you = view.you;
  const open = view.status === "created" || view.status === "started";
  byId("t-join").hidden = !open || (you && (you.status === "waiting" || you.status === "playing"));
  byId("t-pause").hidden = !open || view.format !== "arena" || !you || you.status !== "waiting";
  byId("t-withdraw").hidden = !open || !you || you.status === "withdrawn";
  byId("t-berserk").hidden = !you || !you.game || you.berserk || view.format !== "arena";
  byId("t-game").hidden = !you || !you.game;
  if (you && you.game) byId("t-game").setAttribute("href", you.url);
  byId("t-cancel").hidden = !(view.created_by_you && view.status === "created");
}

function render(view) {
  seen = view;
  byId("t-title").textContent = view.name;
  byId("t-about").textContent = aboutText(view);
  byId("t-status").textContent = statusText(view);
  byId("t-you").textContent = view.you ? t("You: {status}", { status: t(YOU[view.you.status] || view.you.status) }) : "";
  for (const node of document.querySelectorAll(".swiss-only")) node.hidden = view.format !== "swiss";
  fill(byId("standings"), ...view.standings.map(standingRow));
  fill(byId("games"), ...[...view.games].reverse().map(gameItem));
  const pairings = Array.isArray(view.rounds) ? view.rounds : [];
  byId("rounds-box").hidden = !pairings.length;
  if (pairings.length) fill(byId("rounds"), ...pairings.map(roundBox));
  showButtons(view);
  const game = view.you && view.you.game;
  if (game && shown !== game && sessionStorage.getItem("tournament-game") !== game) {
    shown = game;
    sessionStorage.setItem("tournament-game", game);
    signalPaired(t("Paired! Your tournament game"));
    window.setTimeout(() => window.location.assign(view.you.url), PAIRED_PAUSE_MS);
  }
}

async function fetchView() {
  try {
    render(await getJSON(`/api/tournaments/${id}`));
  } catch (error) {
    showMessage(error.message);
  }
}

/** Read the tournament again; a call made while a read is under way makes one more read after it. */
function load() {
  if (link.loading) {
    link.again = true;
    return link.loading;
  }
  link.loading = fetchView().finally(() => {
    link.loading = null;
    if (link.again) {
      link.again = false;
      load();
    }
  });
  return link.loading;
}

function socketOpen() {
  return link.ws !== null && link.ws.readyState === WebSocket.OPEN;
}

function connect() {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${window.location.host}/ws/tournaments/${encodeURIComponent(id)}`);
  link.ws = ws;
  ws.addEventListener("open", () => { link.retry = 1000; load(); });
  ws.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "standings" || message.type === "paired") load();
  });
  ws.addEventListener("close", (event) => {
    if (link.ws !== ws || event.code === NOT_FOUND_CLOSE) return;
    window.setTimeout(() => { if (link.ws === ws) connect(); }, link.retry);
    link.retry = Math.min(link.retry * 2, FALLBACK_POLL_MS);
  });
}

function act(what) {
  return async () => {
    try {
      await postJSON(`/api/tournaments/${id}/${what}`, {});
      await load();
    } catch (error) {
      showMessage(error.message);
    }
  };
}

/** Ask before cancelling; "yes" cancels (the API refuses anyone but the creator, or after the start). */
function wireCancel() {
  const dialog = byId("confirm-cancel");
  byId("t-cancel").addEventListener("click", () => dialog.showModal());
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "yes") act("cancel")();
    dialog.returnValue = "";
  });
}

async function main() {
  await initI18n();
  for (const what of ["join", "pause", "withdraw", "berserk"]) byId(`t-${what}`).addEventListener("click", act(what));
  wireCancel();
  wireSignals();
  window.schottenTournament = {
    get signals() { return signalCounts(); },
    get socket() { return socketOpen(); },
  };
  await load();
  connect();
  setInterval(() => socketOpen() || load(), FALLBACK_POLL_MS);
  setInterval(() => seen && (byId("t-status").textContent = statusText(seen)), 1000);
}

main();
