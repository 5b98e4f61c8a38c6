// The table's chat. Players chat in the players' room, spectators in theirs; once the game is
// over everyone sees both. The server sends a room's history (`full`) and then each new message;
// the page shows every text as text (textContent, never HTML) and a quick message in its own
// language. A player may mute the other (`chat_muted` says whether it did). No chat input for
// the human at an AI table (the server refuses it: cannot_chat). Others' new messages are
// announced while the chat is out of sight (chatnews.js). A player the reader blocks from a
// report (report.js) has their lines taken off at once.

import { savedNickname } from "./api.js";
import { announceLines, wireChatNews } from "./chatnews.js";
import { send } from "./connection.js";
import { byId, el, fill } from "./dom.js";
import { N_, t } from "./i18n.js";
import { game, isSeated, names } from "./state.js";
import { lineReport, renderReportButton } from "./tablereport.js";

/** The quick messages, by the key the server keeps. */
export const QUICK = {
  hello: N_("Hello!"),
  good_luck: N_("Good luck!"),
  well_played: N_("Well played!"),
  thanks: N_("Thanks!"),
  good_game: N_("Good game!"),
  oops: N_("Oops!"),
};
const ROOMS = { players: N_("Players"), spectators: N_("Spectators") };
const ERRORS_FOR_MS = 3000;

const chat = { rooms: { players: [], spectators: [] }, sentAt: -Infinity, lastText: "", sent: [] };

function myRoom() {
  return isSeated() ? "players" : "spectators";
}

/** The rooms this page shows: its own, and both once the game is over. */
function shownRooms() {
  const over = game.msg && game.msg.status === "over";
  return over ? ["players", "spectators"] : [myRoom()];
}

/** Whether this page may write: not a seat at an AI table (nor before the page knows the mode). */
function canWrite() {
  if (!game.msg || game.msg.status === "closed") return false;
  if (!isSeated()) return true;
  return Boolean(game.info) && game.info.mode !== "ai";
}

/** A chat message of the server: a room's whole history (`full`) or new lines to append. */
export function onChat(msg) {
  if (!(msg.room in chat.rooms) || !Array.isArray(msg.messages)) return;
  const lines = msg.full ? [] : chat.rooms[msg.room];
  const known = new Set(lines.map((line) => line.index));
  const fresh = msg.messages.filter((line) => !known.has(line.index));
  chat.rooms[msg.room] = lines.concat(fresh).sort((a, b) => a.index - b.index);
  if (fresh.some((line) => line.text === chat.lastText.trim())) chat.lastText = "";
  if (!msg.full && game.msg) announceLines(fresh.filter((line) => !isOwn(line)));
  if (game.msg) renderChat();
}

function sentKey(body) {
  return body.quick ? `quick:${body.quick}` : `text:${body.text}`;
}

/** Whether a new line is this page's: a seat's by its seat, a spectator's by what it sent. */
function isOwn(line) {
  if (isSeated()) return line.seat === game.msg.seat;
  const index = line.seat === null ? chat.sent.indexOf(sentKey(line)) : -1;
  if (index >= 0) chat.sent.splice(index, 1);
  return index >= 0;
}

function lineNode(line) {
  const quick = line.quick && QUICK[line.quick] ? t(QUICK[line.quick]) : null;
  const own = isSeated() && line.seat === game.msg.seat;
  const when = new Date(line.time);
  return el("li", {
    class: `chat-line${own ? " own" : ""}`,
    data: { index: line.index, seat: line.seat, quick: line.quick },
    title: Number.isNaN(when.getTime()) ? "" : when.toLocaleTimeString(),
  },
  el("span", { class: "chat-name", text: line.name }),
  ": ",
  el("span", { class: quick ? "chat-text quick" : "chat-text", text: quick ?? line.text ?? "" }),
  own ? null : lineReport(line));
}

function roomNode(room) {
  const lines = chat.rooms[room];
  const list = el("ol", { class: "chat-list", data: { room } },
    ...(lines.length ? lines.map(lineNode) : [el("li", { class: "muted", text: t("No messages yet.") })]));
  return el("section", { class: "chat-room", data: { room } }, el("h3", { text: t(ROOMS[room]) }), list);
}

function renderMute() {
  const button = byId("chat-mute");
  const show = isSeated() && canWrite() && Boolean(game.msg.players[1 - game.msg.seat]);
  button.hidden = !show;
  if (!show) return;
  const name = names()[1 - game.msg.seat];
  const muted = Boolean(game.msg.chat_muted);
  button.textContent = muted ? t("Unmute {name}", { name }) : t("Mute {name}", { name });
  button.setAttribute("aria-pressed", String(muted));
}

/** Draw the chat: the rooms shown, the input and quick messages (when this page may write), the mute switch. */
export function renderChat() {
  const writable = canWrite();
  const rooms = shownRooms();
  const hasLines = rooms.some((room) => chat.rooms[room].length);
  byId("chat").hidden = !writable && !hasLines;
  fill(byId("chat-rooms"), ...rooms.map(roomNode));
  byId("chat-form").hidden = !writable;
  byId("chat-quick").hidden = !writable;
  renderMute();
  renderReportButton();
  for (const list of document.querySelectorAll("#chat-rooms .chat-list")) list.scrollTop = list.scrollHeight;
}

function showChatError(text) {
  const node = byId("chat-error");
  node.textContent = text;
  node.hidden = !text;
}

function sendChat(body) {
  const message = { type: "chat", ...body };
  const name = savedNickname();
  if (!isSeated() && name) message.name = name;
  if (!send(message)) return false;
  chat.sentAt = performance.now();
  chat.sent = [...chat.sent.slice(-9), sentKey(body)];
  showChatError("");
  return true;
}

function submit(event) {
  event.preventDefault();
  const input = byId("chat-input");
  const text = input.value.trim();
  if (!text) return;
  chat.lastText = input.value;
  if (sendChat({ text })) input.value = "";
}

/** Show a refused chat message in the chat (true), or leave the error to the page (false): a
 * `cannot_chat`, or a `limit` just after a chat message was sent. */
export function chatError(msg) {
  const recent = performance.now() - chat.sentAt < ERRORS_FOR_MS;
  if (msg.code !== "cannot_chat" && !(msg.code === "limit" && recent)) return false;
  const reason = msg.say ? t(msg.say.text, msg.say.params || {}) : msg.message || "";
  showChatError(msg.code === "limit" ? t("Not sent: you are writing too fast ({reason})", { reason })
    : t("Not sent: {reason}", { reason }));
  const input = byId("chat-input");
  if (!input.value && chat.lastText) input.value = chat.lastText;
  return true;
}

/** The reader just blocked `name` (report.js): the lines of the seat that account plays go at once
 * (the server sends none of them from now on, nor in the history a page loads). */
function onBlocked(event) {
  const name = String(event.detail.name).toLowerCase();
  const accounts = (game.info && game.info.accounts) || [];
  const seats = [0, 1].filter((seat) => accounts[seat] && accounts[seat].toLowerCase() === name);
  if (!seats.length) return;
  for (const room of Object.keys(chat.rooms)) chat.rooms[room] = chat.rooms[room].filter((line) => !seats.includes(line.seat));
  if (game.msg) renderChat();
}

/** Build the quick-message buttons and wire the input, the mute switch and blocks made here. */
export function wireChat() {
  fill(byId("chat-quick"), ...Object.entries(QUICK).map(([key, text]) => el("button", {
    class: "btn small", text: t(text), attrs: { type: "button" }, data: { quick: key },
    on: { click: () => sendChat({ quick: key }) },
  })));
  byId("chat-form").addEventListener("submit", submit);
  byId("chat-mute").addEventListener("click", () => send({ type: "mute", muted: !game.msg.chat_muted }));
  document.addEventListener("player-blocked", onBlocked);
  wireChatNews();
}
