// The parts of the table around the board: the status line, the score, each player's panel
// (name and clock, hand or card backs, discard pile) and the decks.

import { backsNode, decksNode, pileNode } from "./board.js";
import { cardFace, cardName, sortCards } from "./cards.js";
import { clockNode } from "./clocks.js";
import { byId, el, fill } from "./dom.js";
import { N_, t, tn } from "./i18n.js";
import { variantName } from "./labels.js";
import { isPlayable } from "./legal.js";
import { game, isMine, names } from "./state.js";


/** Why a closed rematch table is closed, as its own page tells it. */
export function closedTableText() {
  const closed = game.msg.rematch_closed;
  return closed && closed.reason === "declined" ? t("The rematch was declined.")
    : t("The rematch offer was withdrawn.");
}

/** The status line's words. */
export function statusText() {
  const { msg } = game;
  if (msg.status === "over") return t("Game over");
  if (msg.status === "closed") return closedTableText();
  if (msg.status === "open" && msg.rematch_of) return t("Waiting for your opponent to accept the rematch…");
  if (msg.status === "open") return t("Waiting for an opponent to join…");
  if (isMine()) return t("Your turn");
  return t("{name}'s turn", { name: names()[msg.view.turn] });
}

/** The status line, with what the tests and styles read from it as data attributes. */
export function renderStatus() {
  const node = byId("status");
  const { msg } = game;
  node.textContent = statusText();
  Object.assign(node.dataset, {
    version: String(msg.version), mine: isMine() ? "1" : "0", phase: msg.view.phase, status: msg.status,
    turn: String(msg.view.turn),
  });
  node.classList.toggle("mine", isMine());
}

/** Who watches: "You are watching." to a spectator, and to everyone how many spectators there are
 * (`game.spectators`, from the server's presence messages; never who they are). */
export function renderWatching() {
  const n = game.spectators;
  const parts = [
    game.msg.seat === null ? el("span", { class: "you-watch", text: t("You are watching this game.") }) : null,
    n > 0 ? el("span", { class: "spectators", text: tn("{n} spectator", "{n} spectators", n), data: { count: n } }) : null,
  ].filter(Boolean);
  const node = byId("watching");
  node.hidden = !parts.length;
  fill(node, ...parts);
}

/** The variant, the round and the score. */
export function renderScore() {
  const { view } = game.msg;
  const [n0, n1] = names();
  const round = Math.min(view.round + 1, view.rounds);
  const free = game.msg.status === "open" ? game.msg.players.indexOf(null) : -1;
  const points = free < 0
    ? t("Score: {name0} {p0} – {p1} {name1}", { name0: n0, p0: view.scores[0], p1: view.scores[1], name1: n1 })
    : t("Score: {name} {p0} – {p1}, waiting for an opponent", { name: names()[1 - free], p0: view.scores[1 - free], p1: view.scores[free] });
  fill(byId("score"),
    el("span", { class: "variant", text: variantName(view.variant) }),
    el("span", { text: t("Round {round} of {rounds}", { round, rounds: view.rounds }) }),
    el("span", { class: "points", text: points }));
}

function handCards(seat) {
  const { msg } = game;
  if (msg.reveal && msg.reveal.hands) return msg.reveal.hands[seat];
  if (seat === msg.seat) return msg.view.hand;
  return null;
}

function handCard(text, moves) {
  const { phase } = game.msg.view;
  const returning = phase === "RECRUIT_RETURN" ? moves.returns.get(text) : undefined;
  const playable = phase === "PLAY" && !game.provisional && isPlayable(moves, text);
  const classes = [playable ? "playable" : "", returning ? "pickable" : "", text === game.selected ? "selected" : ""];
  const card = cardFace(text, { extraClass: classes.filter(Boolean).join(" "), data: { action: returning } });
  card.setAttribute("role", "option");
  card.setAttribute("aria-selected", String(text === game.selected));
  if (playable || returning) card.tabIndex = 0;
  else card.setAttribute("aria-disabled", "true");
  card.draggable = playable;
  return card;
}

/** One's own hand: a listbox (WAI-ARIA's pattern: one Tab stop, the arrow keys move from card to
 * card, keyboard.js) whose selected option is the card chosen to play. */
function handNode(cards, moves) {
  const shown = game.provisional ? cards.filter((c) => c !== game.provisional.card) : cards;
  return el("div", {
    class: "hand",
    attrs: { id: "hand", role: "listbox", "aria-orientation": "horizontal", "aria-label": t("Your hand") },
  }, ...sortCards(shown, game.sortBy).map((c) => handCard(c, moves)));
}

/** A player's panel (`id`): name, clock, tactic cards played, hand (this seat's own, the hands
 * revealed at the end, else card backs) and discard pile. */
export function renderPanel(id, seat, moves) {
  const { view } = game.msg;
  const name = names()[seat];
  const cards = handCards(seat);
  const isSelf = seat === game.msg.seat;
  const header = el("div", { class: "panel-head" },
    el("span", { class: "pname", text: isSelf ? t("{name} (you)", { name }) : name }),
    clockNode(seat),
    view.tactics ? el("span", {
      class: "muted",
      text: t("Tactic cards played: {n}", { n: view.tactics_played[seat] }),
    }) : null);
  let hand;
  if (isSelf && !game.msg.reveal) hand = handNode(cards, moves);
  else if (cards) hand = el("div", { class: "hand revealed" }, ...sortCards(cards, game.sortBy).map((c) => cardFace(c)));
  else hand = backsNode(view.hand_sizes[seat]);
  const panel = byId(id);
  panel.classList.toggle("turn", game.msg.status === "playing" && view.turn === seat);
  panel.dataset.seat = String(seat);
  fill(panel, header, hand, pileNode(t("Discard pile"), view.discards[seat], `discards-${seat}`));
}

/** The decks (lit when a draw is offered) and the cards this seat put under them. */
export function renderDecks(moves) {
  const { view } = game.msg;
  const drawable = new Map(moves.draws.map((draw) => [draw.deck, draw.action]));
  const under = (list, key) => (list.length ? el("p", {
    class: "muted small-text", text: t(key, { cards: list.map((u) => cardName(u.card)).join(", ") }),
  }) : null);
  fill(byId("decks"), decksNode(view, drawable),
    under(view.under_clan, N_("You put under the clan deck: {cards}")),
    under(view.under_tactic, N_("You put under the tactic deck: {cards}")));
}
