// Signals: the tab's title says "Your turn" (or, on a tournament's page, that the player is paired); a browser notification while the tab is hidden (the
// permission is asked only when the player clicks the notification switch); and short sounds,
// off until the player turns them on (the switch is remembered in this browser). Each moment
// gets one sound, the first that applies of: a claim, the turn becoming this seat's, the other
// player's move (a spectator: any move). The same switch gives the low-time warning of a
// real-time clock. The tones are made with the Web Audio API.

import { loadPref, savePref, showMessage } from "./api.js";
import { byId } from "./dom.js";
import { t } from "./i18n.js";

const BASE_TITLE = "Schotten Totten";
/** Each sound's notes: [frequency in Hz, start, length in seconds, wave]. */
const SOUNDS = {
  turn: [[660, 0, 0.3, "sine"]],
  claim: [[523, 0, 0.16, "triangle"], [784, 0.12, 0.28, "triangle"]],
  move: [[392, 0, 0.12, "triangle"]],
  low_time: [[990, 0, 0.15, "sine"]],
};
/** The sounds of one moment, the one played first. */
const PRIORITY = ["claim", "turn", "move"];
const signals = { audio: null, beeps: 0, warnings: 0, notices: 0, mine: false, cues: new Set(), sounds: [] };

/** How many beeps, low-time warnings and notifications were given, and the sounds chosen, in
 * order (read by the browser tests). */
export function signalCounts() {
  return {
    beeps: signals.beeps, warnings: signals.warnings, notices: signals.notices, sounds: [...signals.sounds],
  };
}

function soundOn() {
  return loadPref("sound", "0") === "1";
}

function notifySupported() {
  return "Notification" in window;
}

function notifyOn() {
  return notifySupported() && loadPref("notify", "0") === "1" && window.Notification.permission === "granted";
}

function audioContext() {
  const AudioContext = window.AudioContext || window.webkitAudioContext;
  if (!AudioContext) return null;
  if (!signals.audio) signals.audio = new AudioContext();
  if (signals.audio.state === "suspended") signals.audio.resume().catch(() => {});
  return signals.audio;
}

function note(audio, [frequency, start, seconds, wave]) {
  const oscillator = audio.createOscillator();
  const gain = audio.createGain();
  const at = audio.currentTime + start;
  oscillator.type = wave;
  oscillator.frequency.value = frequency;
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(0.2, at + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + seconds - 0.05);
  oscillator.connect(gain).connect(audio.destination);
  oscillator.start(at);
  oscillator.stop(at + seconds);
}

/** Play the sound `name` of SOUNDS; false when the browser has no audio. */
function play(name) {
  signals.sounds.push(name);
  const audio = audioContext();
  if (!audio) return false;
  for (const part of SOUNDS[name]) note(audio, part);
  return true;
}

function beep() {
  if (play("turn")) signals.beeps += 1;
}

/** Play the first sound of PRIORITY cued in this moment (the page's current task). */
function flush() {
  const name = PRIORITY.find((cued) => signals.cues.has(cued));
  signals.cues.clear();
  if (name === "turn") beep();
  else if (name) play(name);
}

function cue(name) {
  if (!soundOn()) return;
  if (!signals.cues.size) queueMicrotask(flush);
  signals.cues.add(name);
}

/** The low-time warning: a short high beep when the sound is on (counted even when the browser
 * has no audio, as the warning was given). */
export function warnLowTime() {
  if (!soundOn()) return;
  play("low_time");
  signals.warnings += 1;
}

function notify(text) {
  try {
    const notice = new window.Notification(BASE_TITLE, { body: text, tag: "schotten-turn" });
    notice.onclick = () => window.focus();
    signals.notices += 1;
  } catch {
    /* a browser may refuse notifications from a page: the title still says it */
  }
}

function showSwitches() {
  const sound = byId("sound");
  sound.setAttribute("aria-pressed", String(soundOn()));
  sound.textContent = soundOn() ? t("Sound: on") : t("Sound: off");
  const bell = byId("notify");
  bell.hidden = !notifySupported();
  bell.setAttribute("aria-pressed", String(notifyOn()));
  bell.textContent = notifyOn() ? t("Notifications: on") : t("Notifications: off");
}

function toggleSound() {
  savePref("sound", soundOn() ? "0" : "1");
  if (soundOn()) beep();
  showSwitches();
}

async function toggleNotify() {
  if (notifyOn()) {
    savePref("notify", "0");
  } else {
    const answer = window.Notification.permission === "granted" ? "granted"
      : await window.Notification.requestPermission();
    if (answer === "granted") savePref("notify", "1");
    else showMessage(t("Notifications are blocked for this page: your browser's site settings can allow them."), "info");
  }
  showSwitches();
}

/** Wire the sound and notification switches (nothing is asked before a click); the page's first
 * touch or key wakes the sound up, as browsers allow it only after one. */
export function wireSignals() {
  byId("sound").addEventListener("click", toggleSound);
  byId("notify").addEventListener("click", toggleNotify);
  for (const type of ["pointerdown", "keydown"]) {
    document.addEventListener(type, () => soundOn() && audioContext(), { once: true, capture: true });
  }
  showSwitches();
}

/** Update the title; when the decision has just become this seat's, sound and notify as chosen. */
export function signalTurn(mine, text) {
  document.title = mine ? `${t("Your turn")} · ${BASE_TITLE}` : BASE_TITLE;
  const started = mine && !signals.mine;
  signals.mine = mine;
  if (!started) return;
  cue("turn");
  if (document.hidden && notifyOn()) notify(text);
}

/** A tournament pairing: the title says `text`, with the turn's sound and, while the tab is hidden,
 * a notification, as chosen (the same switches as the table page's). */
export function signalPaired(text) {
  document.title = `${text} · ${BASE_TITLE}`;
  cue("turn");
  if (document.hidden && notifyOn()) notify(text);
}

/** Cue the sound of the moves a state message brings (`fresh`: the log entries new since the
 * last one): a claim by anyone, else a move by another than `seat`. */
export function signalMoves(fresh, seat) {
  if (fresh.some((move) => move.kind === "claim")) cue("claim");
  else if (fresh.some((move) => move.mover !== seat)) cue("move");
}
