// What the player does on the table: choosing a card, then a stone (click, keyboard, or drag
// and drop), and sending the action. A card play followed by a draw with no choice of deck
// (the state message's `auto_draw`, R3.4) cannot be taken back once sent, so while the
// "Confirm card plays" preference is on it is first shown on its stone (provisional) until the
// seat confirms it or takes it back; taking it back sends nothing.

import { clearMessage, showMessage } from "./api.js";
import { cardName } from "./cards.js";
import { send, syncIfUnanswered } from "./connection.js";
import { t } from "./i18n.js";
import { entryOf, isPlayable } from "./legal.js";
import { game, legalNow, movesNow } from "./state.js";

function setPending(on) {
  game.pending = on;
  document.body.classList.toggle("pending", on);
}

/** Send an action now; false when the socket is not open. */
function sendAction(action) {
  if (!send({ type: "action", action, version: game.msg.version })) return false;
  setPending(true);
  game.selected = null;
  const { version } = game.msg;
  syncIfUnanswered(version, () => game.msg.version, () => game.pending);
  return true;
}

function needsConfirm(entry) {
  return game.confirmPlays && entry.kind === "play" && Boolean(game.msg.auto_draw);
}

function propose(entry) {
  game.provisional = { action: entry.action, card: entry.card, stone: entry.stone + 1, sent: false };
  game.selected = null;
  clearMessage();
  game.render();
  const confirm = document.querySelector('#prompt [data-action="confirm"]');
  if (confirm) confirm.focus();
}

/** Play `action` (a legal action's notation): at once, or shown first when it must be confirmed. */
function act(action) {
  if (game.pending || !game.msg || game.provisional) return;
  const entry = entryOf(legalNow(), action);
  if (!entry) {
    showMessage(t("That move is not allowed now."));
    return;
  }
  if (needsConfirm(entry)) propose(entry);
  else sendAction(action);
}

/** Send a typed action at once (no confirmation: typing it was the decision); false when it
 * cannot be sent now (an action is waiting for its answer, or the socket is closed). */
export function sendTyped(action) {
  if (game.pending || !game.msg || game.provisional) return false;
  return sendAction(action);
}

/** Send the play waiting for its confirmation. */
function confirmPlay() {
  const play = game.provisional;
  if (!play || play.sent || game.pending) return;
  if (!entryOf(legalNow(), play.action)) {
    dropProvisional();
    game.render();
    return;
  }
  if (sendAction(play.action)) {
    play.sent = true;
    game.render();
  }
}

/** Take back the play waiting for its confirmation (nothing was sent). */
function takeBack() {
  const play = game.provisional;
  if (!play || play.sent) return;
  game.provisional = null;
  game.render();
  const card = document.querySelector(`#hand .card[data-card="${play.card}"]`);
  if (card) card.focus();
}

function dropProvisional() {
  const play = game.provisional;
  game.provisional = null;
  showMessage(t("Your play of {card} on stone {stone} is no longer allowed: it was taken back.", {
    card: cardName(play.card), stone: play.stone,
  }));
}

/** A new state: a sent play is settled; a play not sent yet stays only while it is still legal. */
export function reviewProvisional(msg) {
  const play = game.provisional;
  if (!play) return;
  if (play.sent) game.provisional = null;
  else if (msg.status !== "playing" || !entryOf(msg.legal, play.action)) dropProvisional();
}

/** The server answered (a state, an error) or the socket closed: nothing waits any more. */
export function settle() {
  setPending(false);
}

/** A refused action: a sent provisional play is gone. */
export function onRefused() {
  if (game.provisional && game.provisional.sent) game.provisional = null;
}

function markSelected() {
  for (const node of document.querySelectorAll("#hand .card")) {
    node.classList.toggle("selected", node.dataset.card === game.selected);
    node.setAttribute("aria-selected", String(node.dataset.card === game.selected));
  }
}

/** Select (or unselect) a card of the hand: its stones light up. */
function selectCard(card) {
  game.selected = game.selected === card ? null : card;
  markSelected();
  game.render("board");
}

/** Forget the selected card when it can no longer be played. */
export function keepSelection() {
  if (game.selected && !isPlayable(movesNow(), game.selected)) game.selected = null;
}

function startDrag(event) {
  const card = event.target.closest("#hand .card.playable");
  if (!card) return;
  game.selected = card.dataset.card;
  event.dataTransfer.setData("text/plain", game.selected);
  event.dataTransfer.effectAllowed = "move";
  markSelected();
  game.render("board");
}

function selectedRuse() {
  return game.selected ? movesNow().ruses.get(game.selected) : undefined;
}

function onDragOver(event) {
  if (event.target.closest(".col.target") || selectedRuse()) {
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
  }
}

function onDrop(event) {
  event.preventDefault();
  const col = event.target.closest(".col.target");
  if (col && col.dataset.action) act(col.dataset.action);
  else if (selectedRuse()) act(selectedRuse());
}

function onClick(event) {
  const target = event.target.closest("[data-action], [data-draw-action], #hand .card.playable");
  if (!target || !event.currentTarget.contains(target)) return;
  const action = target.dataset.action || target.dataset.drawAction;
  if (action === "confirm") confirmPlay();
  else if (action === "take-back") takeBack();
  else if (action) act(action);
  else selectCard(target.dataset.card);
}

/** Enter confirms a provisional play, Escape takes it back (a focused button keeps its own keys). */
function onProvisionalKey(event) {
  if (event.key === "Escape") {
    event.preventDefault();
    takeBack();
    return true;
  }
  const control = event.target instanceof Element && event.target.closest("button, a, input, select, textarea");
  if (event.key !== "Enter" || control) return false;
  event.preventDefault();
  confirmPlay();
  return true;
}

function onKey(event) {
  if (game.provisional && !game.provisional.sent && onProvisionalKey(event)) return;
  if (event.key !== "Enter" && event.key !== " ") return;
  const node = event.target;
  if (node instanceof HTMLElement && (node.dataset.action || node.classList.contains("playable"))
    && node.tagName !== "BUTTON") {
    event.preventDefault();
    node.click();
  }
}

/** Listen to clicks, drags and keys on the table (`areas`: ids of the clickable parts). */
export function wirePlays(areas) {
  for (const id of areas) document.getElementById(id).addEventListener("click", onClick);
  const board = document.getElementById("board");
  board.addEventListener("dragover", onDragOver);
  board.addEventListener("drop", onDrop);
  document.getElementById("panel-bottom").addEventListener("dragstart", startDrag);
  document.addEventListener("keydown", onKey);
}
