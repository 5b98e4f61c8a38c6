// "Your turn", signalled: the tab's title, a short beep (off until the player turns the sound
// on; the switch is remembered in this browser) and a browser notification while the tab is
// hidden (the permission is asked only when the player clicks the notification switch). The
// same sound setting gives the low-time warning of a real-time clock (a higher, shorter beep).

import { loadPref, savePref, showMessage } from "./api.js";
import { byId } from "./dom.js";
import { t } from "./i18n.js";

const BASE_TITLE = "Schotten Totten";
const signals = { audio: null, beeps: 0, warnings: 0, notices: 0, mine: false };

/** How many beeps, low-time warnings and notifications were given (read by the browser tests). */
export function signalCounts() {
  return { beeps: signals.beeps, warnings: signals.warnings, notices: signals.notices };
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

function tone(frequency, seconds) {
  const AudioContext = window.AudioContext || window.webkitAudioContext;
  if (!AudioContext) return false;
  if (!signals.audio) signals.audio = new AudioContext();
  const audio = signals.audio;
  const oscillator = audio.createOscillator();
  const gain = audio.createGain();
  oscillator.frequency.value = frequency;
  gain.gain.setValueAtTime(0.0001, audio.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.2, audio.currentTime + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + seconds - 0.05);
  oscillator.connect(gain).connect(audio.destination);
  oscillator.start();
  oscillator.stop(audio.currentTime + seconds);
  return true;
}

function beep() {
  if (tone(660, 0.3)) signals.beeps += 1;
}

/** The low-time warning: a short high beep when the sound is on (counted even when the browser
 * has no audio, as the warning was given). */
export function warnLowTime() {
  if (!soundOn()) return;
  tone(990, 0.15);
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

/** Wire the sound and notification switches (nothing is asked before a click). */
export function wireSignals() {
  byId("sound").addEventListener("click", toggleSound);
  byId("notify").addEventListener("click", toggleNotify);
  showSwitches();
}

/** Update the title; when the decision has just become this seat's, beep and notify as chosen. */
export function signalTurn(mine, text) {
  document.title = mine ? `${t("Your turn")} · ${BASE_TITLE}` : BASE_TITLE;
  const started = mine && !signals.mine;
  signals.mine = mine;
  if (!started) return;
  if (soundOn()) beep();
  if (document.hidden && notifyOn()) notify(text);
}
