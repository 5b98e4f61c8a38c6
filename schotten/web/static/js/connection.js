// The connection to /ws/games/{id}: the socket, reconnecting after a loss (with a growing
// delay), asking for the state again when the page comes back (resync), and a state asked for
// when an action went unanswered. Messages are handed to the page's handlers.

import { showMessage } from "./api.js";
import { byId } from "./dom.js";
import { N_, t } from "./i18n.js";
import { gameId } from "./state.js";

const PENDING_SYNC_MS = 5000;

/** The words for the server's error codes ({reason} is the server's own sentence). */
export const ERROR_TEXT = {
  not_your_turn: N_("It is not your turn."),
  stale: N_("The game had moved on: the table is up to date again, please try again."),
  illegal_action: N_("That move is not allowed: {reason}"),
  unknown_action: N_("That move is not understood: {reason}"),
  spectator: N_("Spectators cannot play."),
  cannot_undo: N_("That move can no longer be taken back."),
  flood: N_("Too many messages: please slow down."),
  too_large: N_("That message is too large."),
  not_found: N_("This game does not exist."),
  bad_token: N_("This seat link is not valid."),
  bad_json: N_("The server did not understand the message: {reason}"),
  bad_message: N_("The server did not understand the message: {reason}"),
  unavailable: N_("The server could not store your move: nothing changed and your card is still in your hand. Try again in a moment."),
  damaged: N_("This game's record is damaged: it can no longer be shown or played."),
  cannot_resign: N_("You cannot resign now: {reason}"),
  cannot_abort: N_("The game cannot be aborted: {reason}"),
  cannot_claim: N_("You cannot claim the win now: {reason}"),
  cannot_chat: N_("Not sent: {reason}"),
  time_up: N_("Too late: {reason}"),
  limit: N_("Too many messages: {reason}"),
};

/** Close codes after which the page stops reconnecting, and what it says. */
const FINAL_CLOSE = { 4403: "bad_token", 4404: "not_found", 4409: "damaged" };

const link = { ws: null, retries: 0, stopped: false, handlers: null };

function setConnection(text) {
  const node = byId("conn");
  node.textContent = text;
  node.hidden = !text;
}

/** Send a message; false (and the player told) when the socket is not open. */
export function send(data) {
  if (!link.ws || link.ws.readyState !== WebSocket.OPEN) {
    showMessage(t("Not connected: reconnecting…"));
    return false;
  }
  link.ws.send(JSON.stringify(data));
  return true;
}

/** Ask for the state again if an answer to the message sent at `version` has not come in
 * time (`current()` reads the version the page is at, `waiting()` whether it still waits). */
export function syncIfUnanswered(version, current, waiting) {
  window.setTimeout(() => {
    if (waiting() && current() === version) send({ type: "sync" });
  }, PENDING_SYNC_MS);
}

function onMessage(event) {
  let msg;
  try {
    msg = JSON.parse(event.data);
  } catch {
    return;
  }
  if (msg.type === "state") link.handlers.onState(msg);
  else if (msg.type === "error") link.handlers.onError(msg);
  else if (msg.type === "chat" && link.handlers.onChat) link.handlers.onChat(msg);
  else if (msg.type === "presence" && link.handlers.onPresence) link.handlers.onPresence(msg);
  else if (msg.type === "why_not" && link.handlers.onWhyNot) link.handlers.onWhyNot(msg);
  else if (msg.type === "hint" && link.handlers.onHint) link.handlers.onHint(msg);
}

function onClose(ws, event) {
  if (link.ws !== ws) return;
  link.handlers.onLost();
  const final = FINAL_CLOSE[event.code];
  if (final) {
    link.stopped = true;
    setConnection(t(ERROR_TEXT[final]));
    return;
  }
  if (link.stopped) return;
  setConnection(t("Connection lost: reconnecting…"));
  const delay = Math.min(500 * 2 ** link.retries, 5000);
  link.retries += 1;
  window.setTimeout(open, delay);
}

function open() {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${window.location.host}/ws/games/${encodeURIComponent(gameId)}`);
  link.ws = ws;
  ws.addEventListener("open", () => {
    link.retries = 0;
    setConnection("");
  });
  ws.addEventListener("message", onMessage);
  ws.addEventListener("close", (event) => onClose(ws, event));
}

/** Ask for the current state when the page is visible again or back online. */
function resync() {
  if (link.stopped || document.visibilityState !== "visible") return;
  if (link.ws && link.ws.readyState === WebSocket.OPEN) send({ type: "sync" });
}

/** Connect; handlers: {onState(msg), onError(msg), onLost(), onChat(msg), onPresence(msg)}
 * (onLost: the socket closed; chat and presence messages: see chat.js and endings.js). */
export function connect(handlers) {
  link.handlers = handlers;
  document.addEventListener("visibilitychange", resync);
  window.addEventListener("online", resync);
  open();
}
