// A tournament game's ties to its tournament, from the state message's `tournament` (id, name,
// format, `left_ms` to an arena's end when the message was made): "Tournament: NAME" linking to
// /tournaments/{id} with the arena's time left, for everyone; and, for a seat whose game ends while
// its arena runs, "Back to the tournament in 5 s" with "Stay here", then the tournament page (which
// takes the player to their next pairing). A Swiss, or an arena that has ended, gets the link alone:
// the next round starts at its own time. The countdown is said once to a screen reader (polite).

import { byId, el, fill } from "./dom.js";
import { t } from "./i18n.js";
import { game, isSeated } from "./state.js";

const RETURN_MS = 5000;
const TICK_MS = 250;
const ahead = { left: null, since: 0, timer: null };
const back = { due: null, timer: null, stayed: false };

function pageOf(tournament) {
  return `/tournaments/${encodeURIComponent(tournament.id)}`;
}

/** "1:02:03", "42:10", "0:07": whole seconds, rounded up as a clock shows them. */
function clockText(ms) {
  const total = Math.ceil(ms / 1000);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  const pad = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** The arena's ms left now, counted down from the last state message (null: a Swiss). */
function arenaLeft() {
  if (ahead.left === null) return null;
  return Math.max(0, ahead.left - (performance.now() - ahead.since));
}

/** The arena's time left, or that it has ended ("": a Swiss). */
function whenText() {
  const left = arenaLeft();
  if (left === null) return "";
  const when = left > 0 ? t("Arena ends in {time}", { time: clockText(left) }) : t("The arena has ended.");
  return ` · ${when}`;
}

function paintWhen() {
  byId("tournament-when").textContent = whenText();
  if (!arenaLeft()) stopLine();
}

function stopLine() {
  window.clearInterval(ahead.timer);
  ahead.timer = null;
}

/** Take the tournament of a state message (at the moment it is received) and show its line. */
function setLine(tournament) {
  const line = byId("tournament-line");
  stopLine();
  line.hidden = !tournament;
  if (!tournament) {
    fill(line);
    return;
  }
  ahead.left = Number.isInteger(tournament.left_ms) ? tournament.left_ms : null;
  ahead.since = performance.now();
  const text = t("Tournament: {name}", { name: tournament.name });
  const link = line.querySelector("a");
  if (!link || link.textContent !== text || link.getAttribute("href") !== pageOf(tournament)) {
    fill(line, el("a", { class: "tournament-link", text, attrs: { href: pageOf(tournament) } }),
      el("span", { class: "muted", attrs: { id: "tournament-when" } }));
  }
  paintWhen();
  if (ahead.left) ahead.timer = window.setInterval(paintWhen, TICK_MS);
}

function say(text) {
  byId("tournament-said").textContent = text;
}

function stopReturn() {
  window.clearInterval(back.timer);
  back.timer = null;
}

/** Why the notice only links back: a Swiss's next round, an arena's end ("": an arena that runs). */
function noReturn(tournament) {
  if (tournament.format === "swiss") return t("The next round starts when every game of this round is over.");
  return tournament.left_ms > 0 ? "" : t("The arena has ended.");
}

function countText() {
  return t("Back to the tournament in {n} s", { n: Math.max(0, Math.ceil((back.due - Date.now()) / 1000)) });
}

/** The notice with its link back (and, while counting down, the seconds left and "Stay here"). */
function paintNotice() {
  const { tournament } = game.msg;
  const box = byId("tournament-return");
  const counting = back.timer !== null;
  const why = noReturn(tournament);
  box.hidden = false;
  box.dataset.counting = counting ? "1" : "0";
  box.dataset.due = back.due === null ? "" : String(back.due);
  fill(box,
    counting ? el("p", { text: countText(), attrs: { id: "tournament-return-count", "aria-hidden": "true" } })
      : why && el("p", { text: why }),
    counting && el("span", { class: "tournament-return-bar", attrs: { "aria-hidden": "true" } }),
    el("div", { class: "row" },
      el("a", {
        class: `btn${counting ? "" : " primary"}`, text: t("Back to the tournament"),
        attrs: { href: pageOf(tournament), id: "tournament-return-link" },
      }),
      counting && el("button", {
        class: "btn primary", text: t("Stay here"), attrs: { type: "button", id: "stay-here" },
        on: { click: stay },
      })));
}

function tick() {
  if (Date.now() < back.due) {
    byId("tournament-return-count").textContent = countText();
    return;
  }
  stopReturn();
  window.location.assign(pageOf(game.msg.tournament));
}

/** "Stay here": the countdown stops; the link back stays (and takes the focus the button had). */
function stay() {
  back.stayed = true;
  stopReturn();
  paintNotice();
  say(t("You stay on this page."));
  byId("tournament-return-link").focus();
}

function startReturn() {
  back.due = Date.now() + RETURN_MS;
  back.timer = window.setInterval(tick, TICK_MS);
  paintNotice();
  say(t("Back to the tournament in {n} s", { n: RETURN_MS / 1000 }));
}

/** Follow the tournament of a state message: its line and, for a seat whose game is over, the way
 * back; counted down when the end is seen live while the arena runs (not after "Stay here"). */
export function followTournament(before, msg) {
  setLine(msg.tournament || null);
  if (!msg.tournament || !isSeated() || msg.status !== "over") {
    stopReturn();
    byId("tournament-return").hidden = true;
    return;
  }
  if (back.timer !== null) return;
  const ended = Boolean(before) && before.status !== "over";
  if (ended && !noReturn(msg.tournament) && !back.stayed) {
    startReturn();
    return;
  }
  paintNotice();
  if (ended) say(noReturn(msg.tournament));
}
