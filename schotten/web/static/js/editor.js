// The analysis board's hand editor: every place of the position (both hands, each side of each
// stone, the stones' combat modes, the decks, the discard piles) as a drop zone of face-up cards.
// A card is dragged to a place, or picked (click / Enter) and then a place chosen (click / Enter);
// each edit goes to the server, which alone says whether the new position is possible.

import { cardFace } from "./cards.js";
import { el, fill } from "./dom.js";
import { t } from "./i18n.js";

const STONES = [1, 2, 3, 4, 5, 6, 7, 8, 9];
const DRAG_TYPE = "application/x-schotten-card";

const editor = { root: null, onEdit: null, picked: null };

function cardNode(text, place) {
  const node = cardFace(text, { small: true, extraClass: "editable", data: { place } });
  node.setAttribute("draggable", "true");
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  node.setAttribute("aria-pressed", "false");
  return node;
}

function zone(place, label, cards, extraClass = "") {
  return el("div", {
    class: `zone ${extraClass}`.trim(),
    data: { place },
    attrs: { tabindex: "0", role: "group", "aria-label": label, title: label },
  },
  el("span", { class: "zone-label", text: label }),
  el("div", { class: "zone-cards" }, ...cards.map((c) => cardNode(c, place))));
}

function stoneColumn(places, number, seatName) {
  const cards = places.cards;
  const owner = places.owners[number - 1];
  const name = t("Stone {n}", { n: number });
  const side = (seat) => zone(`stone:${number}:${seat}`, t("Stone {n}, side: {seat}", { seat: seatName(seat), n: number }),
    cards[`stone:${number}:${seat}`], "zone-side");
  return el("div", { class: `editor-stone${owner ? ` owned-${owner}` : ""}`, data: { stone: number } },
    side(2),
    zone(`stone:${number}`, owner ? `${name} — ${t("claimed by {name}", { name: seatName(owner) })}` : name,
      cards[`stone:${number}`], "stone-modes"),
    side(1));
}

/** Draw the places of a position (the server's `places`) into the editor; `seatName(seat)` names
 * seats 1 and 2. */
export function drawEditor(places, seatName) {
  const cards = places.cards;
  const piles = places.tactics ? [
    zone("discard:1", t("Discard pile: {seat}", { seat: seatName(1) }), cards["discard:1"], "zone-pile"),
    zone("discard:2", t("Discard pile: {seat}", { seat: seatName(2) }), cards["discard:2"], "zone-pile"),
  ] : [];
  const decks = [zone("deck:clan", t("Clan deck"), cards["deck:clan"], "zone-deck")];
  if (places.tactics) decks.push(zone("deck:tactic", t("Tactic deck"), cards["deck:tactic"], "zone-deck"));
  editor.picked = null;
  fill(editor.root,
    zone("hand:2", t("Hand: {seat}", { seat: seatName(2) }), cards["hand:2"], "zone-hand"),
    el("div", { class: "editor-stones" }, ...STONES.map((n) => stoneColumn(places, n, seatName))),
    zone("hand:1", t("Hand: {seat}", { seat: seatName(1) }), cards["hand:1"], "zone-hand"),
    el("div", { class: "editor-piles" }, ...decks, ...piles));
}

function pick(card) {
  const same = editor.picked === card;
  unpick();
  if (same) return;
  editor.picked = card;
  card.classList.add("picked");
  card.setAttribute("aria-pressed", "true");
  editor.root.classList.add("picking");
}

function unpick() {
  if (editor.picked) {
    editor.picked.classList.remove("picked");
    editor.picked.setAttribute("aria-pressed", "false");
  }
  editor.picked = null;
  editor.root.classList.remove("picking");
}

function send(card, from, to) {
  unpick();
  if (from !== to) editor.onEdit({ card, from, to });
}

/** A click or Enter on a card picks it (or, with another card picked, drops that one on the card's
 * place); on a place, drops the picked card there. */
function choose(target) {
  const card = target.closest(".card.editable");
  const place = target.closest(".zone");
  if (!place) return;
  if (editor.picked && (!card || card !== editor.picked)) {
    send(editor.picked.dataset.card, editor.picked.dataset.place, place.dataset.place);
  } else if (card) {
    pick(card);
  }
}

function onDragStart(event) {
  const card = event.target.closest(".card.editable");
  if (!card) return;
  unpick();
  event.dataTransfer.setData(DRAG_TYPE, JSON.stringify({ card: card.dataset.card, from: card.dataset.place }));
  event.dataTransfer.setData("text/plain", card.dataset.card);
  event.dataTransfer.effectAllowed = "move";
}

function onDragOver(event) {
  const place = event.target.closest(".zone");
  if (!place) return;
  event.preventDefault();
  event.dataTransfer.dropEffect = "move";
  place.classList.add("over");
}

function onDragLeave(event) {
  const place = event.target.closest(".zone");
  if (place && !place.contains(event.relatedTarget)) place.classList.remove("over");
}

function onDrop(event) {
  const place = event.target.closest(".zone");
  if (!place) return;
  event.preventDefault();
  place.classList.remove("over");
  let dragged = null;
  try {
    dragged = JSON.parse(event.dataTransfer.getData(DRAG_TYPE) || "null");
  } catch {
    dragged = null;
  }
  if (dragged && typeof dragged.card === "string" && typeof dragged.from === "string") {
    send(dragged.card, dragged.from, place.dataset.place);
  }
}

function onKey(event) {
  if (event.key === "Escape") unpick();
  if (event.key !== "Enter" && event.key !== " ") return;
  event.preventDefault();
  choose(event.target);
}

/** Wire the editor in `root`: `onEdit({card, from, to})` is called for each card moved. */
export function initEditor(root, onEdit) {
  editor.root = root;
  editor.onEdit = onEdit;
  root.addEventListener("click", (event) => choose(event.target));
  root.addEventListener("keydown", onKey);
  root.addEventListener("dragstart", onDragStart);
  root.addEventListener("dragover", onDragOver);
  root.addEventListener("dragleave", onDragLeave);
  root.addEventListener("drop", onDrop);
}
