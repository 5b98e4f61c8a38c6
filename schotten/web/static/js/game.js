// The table page: connects to /ws/games/{id}, draws each state message and turns clicks
// (and drag and drop) into actions in the engine's notation. The server is the authority:
// everything clickable comes from view.legal.
//
// A card play whose draw would be automatic (exactly one deck has cards) is not sent at once
// when the "Confirm card plays" preference is on: it is shown on its stone (provisional) until
// the seat confirms it or takes it back. Taking it back sends nothing; the server's own undo
// cannot take back a play once the draw revealed a card.
//
// At the end of a friend game "Play again" asks the server for the rematch: the first player
// to ask opens its table, and the other player's page (told by a state message whose
// `rematch` names it) offers to take the seat kept for them at that same table, or to decline.
// Until then the asker may withdraw the offer (from either page). A withdrawn or declined offer
// closes its table (`rematch_closed` says how); either player may then ask again.

import {
  cleanNickname, clearMessage, getJSON, loadPref, postJSON, savedNickname, savePref, showMessage,
} from "./api.js";
import {
  actionFocus, backsNode, decksNode, describeAction, pileNode, playerName, renderBoard, roundLines,
} from "./board.js";
import { cardFace, cardName, cardTip, claimText, RUSE_CODES, sortCards, TACTICS } from "./cards.js";
import { byId, el, fill } from "./dom.js";
import { initI18n, N_, t } from "./i18n.js";

const gameId = decodeURIComponent(window.location.pathname.split("/").filter(Boolean)[1] || "");
const params = new URLSearchParams(window.location.search);
const token = params.get("token");

const ERROR_TEXT = {
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
};

const PROMPTS = {
  PLAY: N_("Play a card: pick one from your hand, then a stone."),
  CLAIM: N_("You can claim these stones, then press Done to go on:"),
  DRAW: N_("Draw a card: choose a deck."),
  STRATEGIST_TAKE: N_("Strategist: take one of your cards from an unclaimed stone."),
  STRATEGIST_PLACE: N_("Strategist: put {card} on another stone, or discard it."),
  BANSHEE: N_("Banshee: choose one of your opponent's cards to discard."),
  TRAITOR_TAKE: N_("Traitor: choose one of your opponent's clan cards to take."),
  TRAITOR_PLACE: N_("Traitor: put {card} on your side of a stone."),
  RECRUIT_DRAW: N_("Recruiter: choose a deck to draw from. Cards still to draw: {n}"),
  RECRUIT_RETURN: N_("Recruiter: click a card in your hand to put it under its deck. Cards still to return: {n}"),
};

const PENDING_SYNC_MS = 5000;
const CARD_PLAY = /^(\w\w)@([1-9])$/;

const game = {
  ws: null,
  msg: null,
  info: null,
  selected: null,
  pending: false,
  provisional: null,
  confirmPlays: loadPref("confirmPlays", "1") !== "0",
  retries: 0,
  stopped: false,
  roundsSeen: -1,
  asking: false,
  sortBy: loadPref("sort", "colour"),
};

// ------------------------------------------------------------------ legal actions

function parseLegal(legal) {
  const L = {
    plays: new Map(), ruses: [], claims: [], draws: [], picks: [], places: [], returns: [],
    pass: false, done: false, discard: false,
  };
  for (const action of legal) {
    let m;
    if ((m = action.match(/^(\w\w)@([1-9])$/))) {
      if (!L.plays.has(m[1])) L.plays.set(m[1], []);
      L.plays.get(m[1]).push(Number(m[2]));
    } else if ((m = action.match(/^claim ([1-9])$/))) L.claims.push(Number(m[1]));
    else if ((m = action.match(/^draw (clan|tactic)$/))) L.draws.push(m[1]);
    else if ((m = action.match(/^(take|banish) (\w\w)@([1-9])$/))) {
      L.picks.push({ action, card: m[2], stone: Number(m[3]) });
    } else if ((m = action.match(/^to ([1-9])$/))) L.places.push(Number(m[1]));
    else if ((m = action.match(/^return (\w\w)$/))) L.returns.push(m[1]);
    else if (action === "pass") L.pass = true;
    else if (action === "done") L.done = true;
    else if (action === "discard") L.discard = true;
    else if (RUSE_CODES.includes(action)) L.ruses.push(action);
  }
  return L;
}

/** The moves the page offers: the seat's legal actions while the game is played (none while a
 * table waits for its second player, or was closed). */
function legalNow() {
  return game.msg.status === "playing" ? game.msg.view.legal : [];
}

function isPlayable(L, card) {
  return L.plays.has(card) || L.ruses.includes(card);
}

// ------------------------------------------------------------------ sending

function send(data) {
  if (!game.ws || game.ws.readyState !== WebSocket.OPEN) {
    showMessage(t("Not connected: reconnecting…"));
    return false;
  }
  game.ws.send(JSON.stringify(data));
  return true;
}

function act(action) {
  if (game.pending || !game.msg || game.provisional) return;
  if (!legalNow().includes(action)) {
    showMessage(t("That move is not allowed now."));
    return;
  }
  if (needsConfirm(action)) propose(action);
  else sendAction(action);
}

function sendAction(action) {
  if (!send({ type: "action", action, version: game.msg.version })) return false;
  game.pending = true;
  game.selected = null;
  document.body.classList.add("pending");
  const version = game.msg.version;
  window.setTimeout(() => {
    if (game.pending && game.msg.version === version) send({ type: "sync" });
  }, PENDING_SYNC_MS);
  return true;
}

// ------------------------------------------------------------------ provisional card plays

/** Whether a card play now draws at once (exactly one deck has cards left): no undo after it. */
function drawIsAutomatic(view) {
  return (view.clan_deck > 0) !== (view.tactic_deck > 0);
}

function needsConfirm(action) {
  const { view } = game.msg;
  return game.confirmPlays && view.phase === "PLAY" && CARD_PLAY.test(action) && drawIsAutomatic(view);
}

function propose(action) {
  const [, card, stone] = action.match(CARD_PLAY);
  game.provisional = { action, card, stone: Number(stone), sent: false };
  game.selected = null;
  clearMessage();
  render();
  const confirm = document.querySelector('#prompt [data-action="confirm"]');
  if (confirm) confirm.focus();
}

function confirmPlay() {
  const play = game.provisional;
  if (!play || play.sent || game.pending) return;
  if (!game.msg.view.legal.includes(play.action)) {
    dropProvisional();
    render();
    return;
  }
  if (sendAction(play.action)) {
    play.sent = true;
    render();
  }
}

function takeBack() {
  const play = game.provisional;
  if (!play || play.sent) return;
  game.provisional = null;
  render();
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
function reviewProvisional(msg) {
  const play = game.provisional;
  if (!play) return;
  if (play.sent) game.provisional = null;
  else if (msg.view.phase !== "PLAY" || !msg.view.legal.includes(play.action)) dropProvisional();
}

// ------------------------------------------------------------------ rendering

function names() {
  const players = game.msg ? game.msg.players : [null, null];
  return players.map((p) => (p ? playerName(p) : t("(free seat)")));
}

function bottomSeat() {
  const seat = game.msg.seat;
  return seat === 0 || seat === 1 ? seat : 0;
}

function isMine() {
  return legalNow().length > 0;
}

/** Why a closed rematch table is closed, as its own page tells it. */
function closedTableText() {
  const closed = game.msg.rematch_closed;
  return closed && closed.reason === "declined" ? t("The rematch was declined.")
    : t("The rematch offer was withdrawn.");
}

function statusText() {
  const { msg } = game;
  if (msg.status === "over") return t("Game over");
  if (msg.status === "closed") return closedTableText();
  if (msg.status === "open" && msg.rematch_of) return t("Waiting for your opponent to accept the rematch…");
  if (msg.status === "open") return t("Waiting for an opponent to join…");
  if (isMine()) return t("Your turn");
  return t("{name}'s turn", { name: names()[msg.view.turn] });
}

function renderStatus() {
  const node = byId("status");
  node.textContent = statusText();
  node.dataset.version = String(game.msg.version);
  node.dataset.mine = isMine() ? "1" : "0";
  node.dataset.phase = game.msg.view.phase;
  node.dataset.status = game.msg.status;
  node.dataset.turn = String(game.msg.view.turn);
  node.classList.toggle("mine", isMine());
}

function renderScore() {
  const { view } = game.msg;
  const [n0, n1] = names();
  const round = Math.min(view.round + 1, view.rounds);
  fill(byId("score"),
    el("span", { class: "variant", text: t(variantName(view.variant)) }),
    el("span", { text: t("Round {round} of {rounds}", { round, rounds: view.rounds }) }),
    el("span", {
      class: "points",
      text: t("Score: {name0} {p0} – {p1} {name1}", { name0: n0, p0: view.scores[0], p1: view.scores[1], name1: n1 }),
    }));
}

function variantName(variant) {
  const names = { base: N_("Base game"), tactics: N_("Tactics"), expert: N_("Expert"),
    "expert-base": N_("Expert, without tactic cards") };
  return names[variant] || variant;
}

function handCards(seat) {
  const { msg } = game;
  if (msg.reveal && msg.reveal.hands) return msg.reveal.hands[seat];
  if (seat === msg.seat) return msg.view.hand;
  return null;
}

function renderPanel(id, seat, L) {
  const { view } = game.msg;
  const name = names()[seat];
  const cards = handCards(seat);
  const isSelf = seat === game.msg.seat;
  const header = el("div", { class: "panel-head" },
    el("span", { class: "pname", text: isSelf ? t("{name} (you)", { name }) : name }),
    view.variant !== "base" ? el("span", {
      class: "muted",
      text: t("Tactic cards played: {n}", { n: view.tactics_played[seat] }),
    }) : null);
  let hand;
  if (isSelf && !game.msg.reveal) hand = handNode(cards, L);
  else if (cards) hand = el("div", { class: "hand revealed" }, ...sortCards(cards, game.sortBy).map((c) => cardFace(c)));
  else hand = backsNode(view.hand_sizes[seat]);
  const panel = byId(id);
  panel.classList.toggle("turn", game.msg.status === "playing" && view.turn === seat);
  panel.dataset.seat = String(seat);
  fill(panel, header, hand, pileNode(t("Discard pile"), view.discards[seat], `discards-${seat}`));
}

function handNode(cards, L) {
  const { phase } = game.msg.view;
  const node = el("div", { class: "hand", attrs: { id: "hand" } });
  const shown = game.provisional ? cards.filter((c) => c !== game.provisional.card) : cards;
  for (const text of sortCards(shown, game.sortBy)) {
    const returning = phase === "RECRUIT_RETURN" && L.returns.includes(text);
    const playable = phase === "PLAY" && !game.provisional && isPlayable(L, text);
    const classes = [];
    if (playable) classes.push("playable");
    if (returning) classes.push("pickable");
    if (text === game.selected) classes.push("selected");
    const card = cardFace(text, {
      extraClass: classes.join(" "),
      data: { action: returning ? `return ${text}` : undefined },
    });
    if (playable || returning) card.tabIndex = 0;
    if (playable) {
      card.draggable = true;
      card.addEventListener("click", () => selectCard(text));
      card.addEventListener("dragstart", (event) => startDrag(event, text));
    }
    node.append(card);
  }
  return node;
}

function selectCard(text) {
  game.selected = game.selected === text ? null : text;
  for (const node of document.querySelectorAll("#hand .card")) {
    node.classList.toggle("selected", node.dataset.card === game.selected);
  }
  renderBoardAndPrompt();
}

function startDrag(event, text) {
  game.selected = text;
  event.dataTransfer.setData("text/plain", text);
  event.dataTransfer.effectAllowed = "move";
  for (const node of document.querySelectorAll("#hand .card")) {
    node.classList.toggle("selected", node.dataset.card === text);
  }
  renderBoardAndPrompt();
}

function stoneActions(L) {
  const map = new Map();
  if (game.provisional) return map;
  const { phase } = game.msg.view;
  if (phase === "PLAY" && game.selected && L.plays.has(game.selected)) {
    for (const stone of L.plays.get(game.selected)) map.set(stone, `${game.selected}@${stone}`);
  }
  if (phase === "STRATEGIST_PLACE" || phase === "TRAITOR_PLACE") {
    for (const stone of L.places) map.set(stone, `to ${stone}`);
  }
  return map;
}

function cardActions(L) {
  const map = new Map();
  const { phase } = game.msg.view;
  const me = game.msg.seat;
  for (const pick of L.picks) {
    const seat = phase === "STRATEGIST_TAKE" ? me : 1 - me;
    map.set(`${seat}:${pick.stone}:${pick.card}`, pick.action);
  }
  return map;
}

/** The translated explanation of the claim proof for `stone` (1-9), from the state message. */
function claimWhy(stone) {
  return claimText(game.msg.claims ? game.msg.claims[String(stone)] : null);
}

function claimMap(L) {
  const map = new Map();
  for (const stone of L.claims) {
    map.set(stone, { action: `claim ${stone}`, why: claimWhy(stone) });
  }
  return map;
}

function renderBoardAndPrompt() {
  const L = parseLegal(legalNow());
  const { last } = game.msg;
  renderBoard(byId("board"), game.msg.view, {
    bottom: bottomSeat(),
    names: names(),
    stoneActions: stoneActions(L),
    cardActions: cardActions(L),
    claims: claimMap(L),
    last: last ? actionFocus(last.action, last.mover) : null,
    over: game.msg.status === "over",
    provisional: game.provisional ? { ...game.provisional, seat: game.msg.seat } : null,
  });
  for (const node of document.querySelectorAll("#board [data-action]")) node.tabIndex = 0;
  renderPrompt(L);
}

function button(action, label, extra = "") {
  return el("button", {
    class: `btn ${extra}`.trim(),
    text: label,
    data: { action },
    attrs: { type: "button" },
  });
}

function heldCard() {
  const { view } = game.msg;
  return view.held ? cardName(view.held) : "";
}

function playPrompt(L) {
  const parts = [];
  const card = game.selected;
  if (card && L.ruses.includes(card)) {
    parts.push(el("p", { text: cardTip(card) }), button(card, t("Play {card}", { card: cardName(card) }), "primary"));
  } else if (card) {
    parts.push(el("p", { text: t("Now choose a lit stone for {card}.", { card: cardName(card) }) }));
    if (TACTICS[card]) parts.push(el("p", { class: "tip", text: cardTip(card) }));
  } else if (L.plays.size === 0 && L.ruses.length === 0) {
    parts.push(el("p", { text: t("You cannot play any card: you must pass.") }));
  } else {
    parts.push(el("p", { text: t(PROMPTS.PLAY) }));
  }
  if (card) parts.push(el("button", { class: "btn", text: t("Cancel"), attrs: { type: "button", id: "cancel" } }));
  if (L.pass) parts.push(button("pass", t("Pass")));
  return parts;
}

function confirmBar() {
  const play = game.provisional;
  const { view } = game.msg;
  const draw = view.clan_deck > 0
    ? t("When you confirm, a card is drawn for you from the clan deck at once: then this play can no longer be taken back.")
    : t("When you confirm, a card is drawn for you from the tactic deck at once: then this play can no longer be taken back.");
  const confirm = button("confirm", t("Confirm"), "primary");
  const back = button("take-back", t("Take back"));
  confirm.disabled = back.disabled = play.sent;
  return [el("div", { class: "confirm-bar", attrs: { id: "confirm-bar" } },
    el("p", { class: "confirm-what", text: t("Play {card} on stone {stone}?", { card: cardName(play.card), stone: play.stone }) }),
    el("p", { class: "tip", text: draw }),
    el("div", { class: "row" }, confirm, back,
      el("span", { class: "muted small-text", text: t("Enter: confirm · Escape: take back") })))];
}

function claimPrompt(L) {
  const list = el("ul", { class: "claims" }, ...L.claims.map((stone) => el("li", {
    text: t("Stone {n}: {why}", { n: stone, why: claimWhy(stone) }),
  })));
  return [el("p", { text: t(PROMPTS.CLAIM) }), list, L.done ? button("done", t("Done"), "primary") : null];
}

function drawButtons(L) {
  return L.draws.map((deck) => button(`draw ${deck}`,
    deck === "clan" ? t("Draw a clan card") : t("Draw a tactic card"), "primary"));
}

function phasePrompt(L) {
  const { view } = game.msg;
  switch (view.phase) {
    case "PLAY": return game.provisional ? confirmBar() : playPrompt(L);
    case "CLAIM": return claimPrompt(L);
    case "DRAW": return [el("p", { text: t(PROMPTS.DRAW) }), ...drawButtons(L)];
    case "RECRUIT_DRAW":
      return [el("p", { text: t(PROMPTS.RECRUIT_DRAW, { n: view.recruit_draws }) }), ...drawButtons(L)];
    case "RECRUIT_RETURN":
      return [el("p", { text: t(PROMPTS.RECRUIT_RETURN, { n: view.recruit_returns }) })];
    case "STRATEGIST_PLACE":
      return [el("p", { text: t(PROMPTS.STRATEGIST_PLACE, { card: heldCard() }) }),
        view.held ? cardFace(view.held, { small: true }) : null,
        L.discard ? button("discard", t("Discard it")) : null];
    case "TRAITOR_PLACE":
      return [el("p", { text: t(PROMPTS.TRAITOR_PLACE, { card: heldCard() }) }),
        view.held ? cardFace(view.held, { small: true }) : null];
    default:
      return PROMPTS[view.phase] ? [el("p", { text: t(PROMPTS[view.phase]) })] : [];
  }
}

function waitingPrompt() {
  const { msg } = game;
  const { view } = msg;
  const parts = [];
  if (msg.status === "open" || msg.status === "closed") {
    parts.push(el("p", { text: statusText() }), ...rematchTableControls());
  } else if (msg.status === "playing") {
    parts.push(el("p", { text: t("Waiting for {name}…", { name: names()[view.turn] }) }));
  }
  if (view.held) {
    parts.push(el("p", {
      text: t("{name} holds {card}, taken from stone {stone}.", {
        name: names()[view.turn], card: cardName(view.held), stone: view.held_from + 1,
      }),
    }));
  }
  return parts;
}

/** On a rematch table: the asker may withdraw the offer while it is open; once closed, go back. */
function rematchTableControls() {
  const { msg } = game;
  if (!msg.rematch_of) return [];
  if (msg.status === "closed") {
    return [el("a", { class: "btn", text: t("Back to the game"),
      attrs: { id: "back-to-game", href: `/game/${encodeURIComponent(msg.rematch_of)}` } })];
  }
  if (msg.seat !== 0 && msg.seat !== 1) return [];
  return [el("button", { class: "btn", text: t("Cancel rematch"),
    attrs: { type: "button", id: "withdraw-rematch" }, on: { click: withdrawFromTable } })];
}

/** Buttons for any legal action the page shows nowhere else (a safety net). */
function otherMoves(L) {
  const shown = new Set([...document.querySelectorAll("[data-action]")].map((n) => n.dataset.action));
  const missing = legalNow().filter((a) => !shown.has(a) && !/^\w\w@[1-9]$/.test(a)
    && !(RUSE_CODES.includes(a) && isPlayable(L, a)));
  if (!missing.length) return [];
  const who = names()[game.msg.seat];
  return [el("div", { class: "other-moves" }, ...missing.map((a) => button(a, describeAction(a, who))))];
}

function renderPrompt(L) {
  const node = byId("prompt");
  const mine = isMine();
  fill(node, ...(mine ? phasePrompt(L) : waitingPrompt()));
  if (mine && !game.provisional) node.append(...otherMoves(L));
  node.classList.toggle("mine", mine);
  node.hidden = node.childElementCount === 0;
  const cancel = document.getElementById("cancel");
  if (cancel) cancel.addEventListener("click", () => selectCard(game.selected));
}

function renderDecks(L) {
  const { view } = game.msg;
  const drawable = new Map(L.draws.map((deck) => [deck, `draw ${deck}`]));
  const notes = [];
  if (view.under_clan.length) {
    notes.push(t("You put under the clan deck: {cards}", { cards: view.under_clan.map((u) => cardName(u.card)).join(", ") }));
  }
  if (view.under_tactic.length) {
    notes.push(t("You put under the tactic deck: {cards}", { cards: view.under_tactic.map((u) => cardName(u.card)).join(", ") }));
  }
  fill(byId("decks"), decksNode(view, drawable), ...notes.map((n) => el("p", { class: "muted small-text", text: n })));
}

function renderLast() {
  const { last } = game.msg;
  byId("last").textContent = last
    ? t("Last move: {move}", { move: describeAction(last.action, names()[last.mover]) })
    : "";
}

function renderLog() {
  const { view } = game.msg;
  const all = names();
  const items = view.history.map((action, i) => el("li", { text: describeAction(action, all[view.movers[i]]) }));
  fill(byId("log-list"), ...items.slice(-60));
  byId("log-count").textContent = String(view.history.length);
}

function renderUndo() {
  byId("undo").hidden = !game.msg.can_undo || Boolean(game.provisional);
}

function renderInvite() {
  const box = byId("invite");
  const show = game.msg.status === "open" && game.msg.seat !== null && !game.msg.rematch_of
    && (!game.info || game.info.mode !== "ai");
  box.hidden = !show;
  if (show) byId("invite-link").value = `${window.location.origin}/game/${encodeURIComponent(gameId)}?join=1`;
}

function resultHeading() {
  const { view, seat } = game.msg;
  const result = view.result;
  if (!result) return t("Game over");
  if (result.winner === null || result.winner === undefined) return t("The match is drawn.");
  if (seat === result.winner) return t("You win the match!");
  if (seat === 0 || seat === 1) return t("{name} wins the match.", { name: names()[result.winner] });
  return t("{name} wins the match.", { name: names()[result.winner] });
}

function renderResult() {
  const box = byId("result");
  const over = game.msg.status === "over";
  box.hidden = !over;
  if (!over) return;
  const { view } = game.msg;
  const [n0, n1] = names();
  byId("result-title").textContent = resultHeading();
  byId("result-score").textContent = t("Score: {name0} {p0} – {p1} {name1}", {
    name0: n0, p0: view.scores[0], p1: view.scores[1], name1: n1,
  });
  fill(byId("result-rounds"), ...roundLines(view, names()));
  byId("result-forfeit").textContent = view.forfeit
    ? t("{name} forfeited: {reason}", { name: names()[view.forfeit[0]], reason: view.forfeit[1] }) : "";
  byId("replay-link").href = `/replay/${encodeURIComponent(gameId)}`;
  renderRematch();
}

function rematchButton(id, label, primary, onClick = playAgain) {
  return el("button", {
    class: primary ? "btn primary" : "btn",
    text: label,
    attrs: { type: "button", id },
    on: { click: onClick },
  });
}

/** What the seat may do about the rematch: accept or decline the other's offer, or go to the
 * table it sits at (and withdraw its own offer while nobody accepted it). */
function seatRematch(rematch, seat) {
  const other = names()[1 - seat];
  if (seat !== rematch.by && !rematch.accepted) {
    return [el("p", { class: "rematch-offer", text: t("{name} wants a rematch.", { name: names()[rematch.by] }) }),
      rematchButton("accept-rematch", t("Accept the rematch"), true, acceptRematch),
      rematchButton("decline-rematch", t("Decline the rematch"), false, declineRematch)];
  }
  const text = rematch.accepted ? t("The rematch has started.")
    : t("You asked for a rematch: waiting for {name}.", { name: other });
  const go = rematchButton("go-to-rematch", t("Go to the rematch"), true);
  if (rematch.accepted) return [el("p", { text }), go];
  return [el("p", { text }), go, rematchButton("withdraw-rematch", t("Cancel rematch"), false, withdrawFromGame)];
}

/** How the last rematch offer of this finished game was closed, as this seat (or a spectator) reads it. */
function closedOfferText(closed, seat) {
  const asker = names()[closed.by];
  const other = names()[1 - closed.by];
  if (closed.reason === "declined") {
    return seat === 1 - closed.by ? t("You declined the rematch.") : t("{name} declined the rematch.", { name: other });
  }
  return seat === closed.by ? t("You withdrew your rematch offer.")
    : t("{name} withdrew the rematch offer.", { name: asker });
}

function renderRematch() {
  const { rematch, seat } = game.msg;
  const closed = game.msg.rematch_closed;
  const seated = seat === 0 || seat === 1;
  byId("play-again").hidden = !seated || Boolean(rematch);
  const box = byId("rematch");
  box.hidden = !rematch && !closed;
  if (!rematch) {
    if (closed) fill(box, el("p", { class: "rematch-closed", text: closedOfferText(closed, seat) }));
    return;
  }
  if (seated) {
    fill(box, ...seatRematch(rematch, seat));
    return;
  }
  const text = rematch.accepted ? t("The rematch has started.")
    : t("{name} wants a rematch.", { name: names()[rematch.by] });
  fill(box, el("p", { text }), el("a", {
    class: "btn", text: t("Watch the rematch"), attrs: { href: `/game/${encodeURIComponent(rematch.id)}` },
  }));
}

/** Whether `seat` is the player who did not close the offer (the asker of a declined one, the
 * other player of a withdrawn one): the one to be told. */
function toldOfClosing(closed, seat) {
  const closer = closed.reason === "declined" ? 1 - closed.by : closed.by;
  return (seat === 0 || seat === 1) && seat !== closer;
}

/** Say so when the other player asks for a rematch, withdraws it or declines it while this page is open. */
function announceRematch(before, msg) {
  if (!before) return;
  const { rematch } = msg;
  const closed = msg.rematch_closed;
  if (!before.rematch && rematch && msg.seat !== rematch.by) {
    showMessage(t("{name} wants a rematch.", { name: names()[rematch.by] }), "info");
  } else if (closed && before.rematch && !rematch && toldOfClosing(closed, msg.seat)) {
    showMessage(closedOfferText(closed, msg.seat), "info");
  } else if (closed && before.status === "open" && msg.status === "closed" && toldOfClosing(closed, msg.seat)) {
    showMessage(closedTableText(), "info");
  }
}

function announceRounds() {
  const done = game.msg.view.round_outcomes.length;
  if (game.roundsSeen >= 0 && done > game.roundsSeen && game.msg.status !== "over") {
    const lines = roundLines(game.msg.view, names());
    showMessage(lines[lines.length - 1].textContent, "info");
  }
  game.roundsSeen = done;
  fill(byId("rounds"), ...roundLines(game.msg.view, names()));
}

function render() {
  const L = parseLegal(legalNow());
  if (game.selected && !(game.msg.view.phase === "PLAY" && isPlayable(L, game.selected))) game.selected = null;
  const bottom = bottomSeat();
  renderStatus();
  renderScore();
  renderPanel("panel-top", 1 - bottom, L);
  renderPanel("panel-bottom", bottom, L);
  renderDecks(L);
  renderBoardAndPrompt();
  renderLast();
  renderLog();
  renderUndo();
  renderInvite();
  announceRounds();
  renderResult();
  const seated = (game.msg.seat === 0 || game.msg.seat === 1) && !game.msg.reveal;
  byId("sort").hidden = !seated;
  byId("confirm-pref").hidden = !seated;
  document.body.classList.toggle("spectator", game.msg.seat === null);
  window.schotten = { state: game.msg, provisional: game.provisional };
}

// ------------------------------------------------------------------ the connection

function onState(msg) {
  if (game.msg && msg.version < game.msg.version) return;
  const before = game.msg;
  const wasOpen = before && before.status === "open";
  game.msg = msg;
  game.pending = false;
  reviewProvisional(msg);
  document.body.classList.remove("pending");
  if (msg.status === "over" || (wasOpen && msg.status !== "open")) loadInfo();
  render();
  announceRematch(before, msg);
}

function onError(msg) {
  game.pending = false;
  document.body.classList.remove("pending");
  if (game.provisional && game.provisional.sent) {
    game.provisional = null;
    if (game.msg) render();
  }
  const key = ERROR_TEXT[msg.code];
  showMessage(key ? t(key, { reason: msg.message }) : msg.message || t("Something went wrong."));
}

function setConnection(text) {
  const node = byId("conn");
  node.textContent = text;
  node.hidden = !text;
}

function connect() {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const query = token ? `?token=${encodeURIComponent(token)}` : "";
  const ws = new WebSocket(`${scheme}://${window.location.host}/ws/games/${encodeURIComponent(gameId)}${query}`);
  game.ws = ws;
  ws.addEventListener("open", () => {
    game.retries = 0;
    setConnection("");
  });
  ws.addEventListener("message", (event) => {
    let msg;
    try {
      msg = JSON.parse(event.data);
    } catch {
      return;
    }
    if (msg.type === "state") onState(msg);
    else if (msg.type === "error") onError(msg);
  });
  ws.addEventListener("close", (event) => onClose(ws, event));
}

function onClose(ws, event) {
  if (game.ws !== ws) return;
  game.pending = false;
  document.body.classList.remove("pending");
  if (event.code === 4403 || event.code === 4404) {
    game.stopped = true;
    setConnection(event.code === 4403 ? t(ERROR_TEXT.bad_token) : t(ERROR_TEXT.not_found));
    return;
  }
  if (game.stopped) return;
  setConnection(t("Connection lost: reconnecting…"));
  const delay = Math.min(500 * 2 ** game.retries, 5000);
  game.retries += 1;
  window.setTimeout(connect, delay);
}

function resync() {
  if (game.stopped || document.visibilityState !== "visible") return;
  if (game.ws && game.ws.readyState === WebSocket.OPEN) send({ type: "sync" });
}

async function loadInfo() {
  try {
    game.info = await getJSON(`/api/games/${encodeURIComponent(gameId)}`);
    if (game.msg) renderInvite();
  } catch {
    /* the table info only serves "play again" and the invite box */
  }
}

// ------------------------------------------------------------------ page actions

/** A new table against the AI: the same variant, rounds and level. */
function newAiTable(info) {
  const nickname = cleanNickname(names()[game.msg.seat]) || cleanNickname(savedNickname()) || t("Player");
  const body = { variant: info.variant, rounds: info.rounds, mode: "ai", level: info.level, nickname, seat: null };
  return postJSON("/api/tables", body);
}

/** Ask for the rematch (or take the seat kept at it): this seat's token, else its cookie, is sent. */
function askRematch() {
  return postJSON(`/api/games/${encodeURIComponent(gameId)}/rematch`, { token: token || null });
}

function rematchError(error) {
  if (error.status === 403) return t("Only the players of this game can ask for a rematch.");
  if (error.status === 409) return t("You already took your seat in the rematch: open it from the browser you took it in.");
  if (error.status === 410) return t("This rematch offer is no longer open.");
  if (error.status === 429) return t("This game has had too many rematch offers: open a new table from the lobby.");
  return error.message;
}

function answerError(error) {
  if (error.status === 403) return t(ERROR_TEXT.bad_token);
  if (error.status === 409) return t("Too late: the rematch has already started.");
  return error.message;
}

/** Run one rematch request for a button (one at a time, the button disabled meanwhile); errors are
 * shown with `explain`. When `leadsTo` names a page for the answer, the browser goes there and the
 * button stays disabled. Resolves to the answer, or null after an error. */
async function rematchRequest(event, call, explain, leadsTo = () => null) {
  if (game.asking) return null;
  const node = event && event.currentTarget instanceof HTMLButtonElement ? event.currentTarget : null;
  game.asking = true;
  if (node) node.disabled = true;
  let page = null;
  try {
    const answer = await call();
    page = answer ? leadsTo(answer) : null;
    return answer;
  } catch (error) {
    showMessage(explain(error));
    return null;
  } finally {
    if (page) {
      window.location.assign(page);
    } else {
      game.asking = false;
      if (node) node.disabled = false;
    }
  }
}

/** POST about this finished game's current rematch offer: accept it (`answer` ""), or "/withdraw"
 * or "/decline" it. */
function answerOffer(answer) {
  const offer = game.msg.rematch ? game.msg.rematch.id : null;
  return postJSON(`/api/games/${encodeURIComponent(gameId)}/rematch${answer}`, { token: token || null, rematch: offer });
}

/** Accept the other player's offer: take the seat kept at its table, unless it was withdrawn meanwhile. */
function acceptRematch(event) {
  return rematchRequest(event, () => answerOffer(""), rematchError, (seat) => seat.url);
}

function declineRematch(event) {
  return rematchRequest(event, () => answerOffer("/decline"), answerError);
}

function withdrawFromGame(event) {
  return rematchRequest(event, () => answerOffer("/withdraw"), answerError);
}

/** On the rematch table: withdraw its offer (this seat's token of the table), then go back to the game. */
function withdrawFromTable(event) {
  const from = game.msg.rematch_of;
  const body = { token: token || null, rematch: gameId };
  const path = `/api/games/${encodeURIComponent(from)}/rematch/withdraw`;
  return rematchRequest(event, () => postJSON(path, body), answerError, () => `/game/${encodeURIComponent(from)}`);
}

/** "Play again": a new table against the AI, or the rematch offer (or the seat kept in it). */
function playAgain(event) {
  const ask = async () => {
    const info = game.info || (await getJSON(`/api/games/${encodeURIComponent(gameId)}`));
    return info.mode === "ai" ? newAiTable(info) : askRematch();
  };
  return rematchRequest(event, ask, rematchError, (seat) => seat.url);
}

async function join(event) {
  event.preventDefault();
  const input = byId("join-nickname");
  const nickname = cleanNickname(input.value);
  if (!nickname) {
    showMessage(t("Choose a nickname of 1 to 24 characters."));
    return;
  }
  savePref("nickname", nickname);
  try {
    const seat = await postJSON(`/api/tables/${encodeURIComponent(gameId)}/join`, { nickname });
    window.location.replace(seat.url);
  } catch (error) {
    showMessage(error.status === 409 ? t("This table has no free seat any more: you are watching.") : error.message);
    byId("join").hidden = true;
  }
}

function setUpJoin() {
  const box = byId("join");
  box.hidden = false;
  byId("join-nickname").value = savedNickname();
  byId("join-form").addEventListener("submit", join);
  byId("watch").addEventListener("click", () => {
    box.hidden = true;
  });
}

async function copyInvite() {
  const input = byId("invite-link");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand("copy");
  }
  showMessage(t("Invite link copied."), "info");
}

function onBoardClick(event) {
  const target = event.target.closest("[data-action], [data-draw-action]");
  if (!target || !event.currentTarget.contains(target)) return;
  const action = target.dataset.action || target.dataset.drawAction;
  if (action === "confirm") confirmPlay();
  else if (action === "take-back") takeBack();
  else act(action);
}

function onDragOver(event) {
  const col = event.target.closest(".col.target");
  const ruse = game.selected && RUSE_CODES.includes(game.selected);
  if (col || ruse) {
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
  }
}

function onDrop(event) {
  event.preventDefault();
  const col = event.target.closest(".col.target");
  if (col && col.dataset.action) act(col.dataset.action);
  else if (game.selected && RUSE_CODES.includes(game.selected)) act(game.selected);
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

function setSort(by) {
  game.sortBy = by;
  savePref("sort", by);
  byId("sort-colour").setAttribute("aria-pressed", String(by === "colour"));
  byId("sort-value").setAttribute("aria-pressed", String(by === "value"));
  if (game.msg) render();
}

function setConfirmPlays(on) {
  game.confirmPlays = on;
  savePref("confirmPlays", on ? "1" : "0");
}

function wire() {
  byId("board").addEventListener("click", onBoardClick);
  byId("board").addEventListener("dragover", onDragOver);
  byId("board").addEventListener("drop", onDrop);
  byId("prompt").addEventListener("click", onBoardClick);
  byId("decks").addEventListener("click", onBoardClick);
  byId("panel-bottom").addEventListener("click", onBoardClick);
  byId("undo").addEventListener("click", () => {
    if (send({ type: "undo" })) game.pending = true;
  });
  byId("play-again").addEventListener("click", playAgain);
  byId("copy-invite").addEventListener("click", copyInvite);
  byId("sort-colour").addEventListener("click", () => setSort("colour"));
  byId("sort-value").addEventListener("click", () => setSort("value"));
  const confirmBox = byId("confirm-plays");
  confirmBox.checked = game.confirmPlays;
  confirmBox.addEventListener("change", () => setConfirmPlays(confirmBox.checked));
  byId("message").addEventListener("click", clearMessage);
  document.addEventListener("keydown", onKey);
  document.addEventListener("visibilitychange", resync);
  window.addEventListener("online", resync);
}

async function main() {
  await initI18n();
  wire();
  setSort(game.sortBy);
  if (!gameId) {
    showMessage(t(ERROR_TEXT.not_found));
    return;
  }
  if (params.get("join") === "1" && !token) setUpJoin();
  loadInfo();
  connect();
}

main();
