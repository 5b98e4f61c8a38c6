// The players' clocks beside their names. The server is the authority: each state message says
// how much time each seat had left when it was made (`clocks`, in ms) and whose clock runs
// (`clock_running`). The page anchors those values on the moment it received the message
// (performance.now()) and shows, at every tick, the value minus the time elapsed since: nothing
// is accumulated, so the page never drifts from the server's view; a clock stops at 0 (the
// server ends the game then). Real-time clocks read "4:59" and warn under 10 s (a class, and
// a short sound if sounds are on); turn-based clocks read "2 days left". The AI is not timed
// (the server never runs its clock): its seat (`ai_seat`) reads "AI — no clock".

import { el } from "./dom.js";
import { t, tn } from "./i18n.js";
import { warnLowTime } from "./signals.js";

const LOW_MS = 10_000;
const TICK_MS = 100;
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

const clocks = {
  control: null, left: null, running: null, since: 0, seat: null, ai: null, timer: null, warned: false,
};

/** Take the clocks of a state message (at the moment it is received). */
export function setClocks(msg) {
  const running = msg.clocks ? msg.clock_running ?? null : null;
  if (running !== clocks.running) clocks.warned = false;
  Object.assign(clocks, {
    control: msg.clock || null, left: msg.clocks || null, running, since: performance.now(), seat: msg.seat,
    ai: msg.ai_seat ?? null,
  });
  window.clearInterval(clocks.timer);
  clocks.timer = running === null ? null : window.setInterval(paintClocks, TICK_MS);
  paintClocks();
}

/** The ms `seat` has left now (null: untimed). */
export function timeLeft(seat) {
  if (!clocks.left) return null;
  const spent = seat === clocks.running ? performance.now() - clocks.since : 0;
  return Math.max(0, clocks.left[seat] - spent);
}

function turnBased() {
  return Boolean(clocks.control && clocks.control.days);
}

function pad(n) {
  return String(n).padStart(2, "0");
}

/** A real-time clock: "4:59", "1:02:03", and tenths under 10 s ("0:09.4"). */
export function realTimeText(ms) {
  if (ms < LOW_MS) return `0:${pad(Math.floor(ms / 1000))}.${Math.floor(ms / 100) % 10}`;
  const total = Math.ceil(ms / 1000);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  return h ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** A turn-based clock in the whole minutes left, rounded up as a clock's last second shows 0:01:
 * "2 days left" (from 48 hours), "30 hours left", "12 minutes left"; a fresh 1-day clock reads
 * "24 hours left". */
export function turnText(ms) {
  const minutes = Math.ceil(ms / MINUTE_MS);
  const left = minutes * MINUTE_MS;
  if (left >= 2 * DAY_MS) return tn("{n} day left", "{n} days left", Math.floor(left / DAY_MS));
  if (left >= HOUR_MS) return tn("{n} hour left", "{n} hours left", Math.floor(left / HOUR_MS));
  return tn("{n} minute left", "{n} minutes left", minutes);
}

/** The clock of `seat` for its panel (null at an untimed table); the ticks keep it up to date. The
 * AI's seat of a real-time table says that it has no clock (turn-based: only the running clock shows). */
export function clockNode(seat) {
  if (!clocks.left) return null;
  if (seat === clocks.ai) {
    const node = el("span", {
      class: "clock no-clock", text: t("AI — no clock"), title: t("The AI is not timed: only the human player's clock runs."),
      attrs: { id: `clock-${seat}` }, data: { seat },
    });
    node.hidden = turnBased();
    return node;
  }
  const node = el("span", { class: "clock", attrs: { id: `clock-${seat}`, role: "timer" }, data: { seat } });
  paintClock(node, seat);
  return node;
}

function paintClock(node, seat) {
  const ms = timeLeft(seat);
  const running = seat === clocks.running;
  const low = !turnBased() && ms < LOW_MS;
  node.textContent = turnBased() ? turnText(ms) : realTimeText(ms);
  node.hidden = turnBased() && !running;
  node.classList.toggle("running", running);
  node.classList.toggle("low", low);
  node.classList.toggle("out", ms === 0);
  return running && low;
}

function paintClocks() {
  for (const seat of [0, 1]) {
    if (seat === clocks.ai) continue;
    const node = document.getElementById(`clock-${seat}`);
    const warn = node ? paintClock(node, seat) : false;
    if (warn && seat === clocks.seat && !clocks.warned) {
      clocks.warned = true;
      warnLowTime();
    }
  }
  if (clocks.running !== null && timeLeft(clocks.running) === 0) {
    window.clearInterval(clocks.timer);
    clocks.timer = null;
  }
}
