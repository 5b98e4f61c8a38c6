// The rematch, as the game page shows it. At the end of a friend game "Play again" asks the
// server for the rematch: the first player to ask opens its table, and the other player's page
// (told by a state message whose `rematch` names it) offers to take the seat kept for them at
// that same table, or to decline. Until then the asker may withdraw the offer (from either
// page). A withdrawn or declined offer closes its table (`rematch_closed` says how); either
// player may then ask again. Against the AI, "Play again" opens a new table. A tournament game (its
// state names its `tournament`) offers none: the tournament pairs the next game.

import { cleanNickname, getJSON, postJSON, savedNickname, showMessage } from "./api.js";
import { ERROR_TEXT } from "./connection.js";
import { byId, el, fill } from "./dom.js";
import { t } from "./i18n.js";
import { closedTableText } from "./panels.js";
import { game, gameId, isSeated, names } from "./state.js";

/** A new table against the AI: the same variant, rounds and level. */
function newAiTable(info) {
  const nickname = cleanNickname(names()[game.msg.seat]) || cleanNickname(savedNickname()) || t("Player");
  const body = { variant: info.variant, rounds: info.rounds, mode: "ai", level: info.level, nickname, seat: null };
  return postJSON("/api/tables", body);
}

/** Ask for the rematch (or take the seat kept at it): the seat's cookie is the credential. */
function askRematch() {
  return postJSON(`/api/games/${encodeURIComponent(gameId)}/rematch`, {});
}

/** The page of a seat just granted: its cookie, set by the answer, holds the token (not the address). */
function seatPage(seat) {
  return `/game/${encodeURIComponent(seat.id)}`;
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
  return postJSON(`/api/games/${encodeURIComponent(gameId)}/rematch${answer}`, { rematch: offer });
}

function acceptRematch(event) {
  return rematchRequest(event, () => answerOffer(""), rematchError, seatPage);
}

function declineRematch(event) {
  return rematchRequest(event, () => answerOffer("/decline"), answerError);
}

function withdrawFromGame(event) {
  return rematchRequest(event, () => answerOffer("/withdraw"), answerError);
}

/** On the rematch table: withdraw its offer (this seat's cookie of the table), then go back to the game. */
function withdrawFromTable(event) {
  const from = game.msg.rematch_of;
  const body = { rematch: gameId };
  const path = `/api/games/${encodeURIComponent(from)}/rematch/withdraw`;
  return rematchRequest(event, () => postJSON(path, body), answerError, () => `/game/${encodeURIComponent(from)}`);
}

/** "Play again": a new table against the AI, or the rematch offer (or the seat kept in it). */
export function playAgain(event) {
  const ask = async () => {
    const info = game.info || (await getJSON(`/api/games/${encodeURIComponent(gameId)}`));
    return info.mode === "ai" ? newAiTable(info) : askRematch();
  };
  return rematchRequest(event, ask, rematchError, seatPage);
}

function rematchButton(id, label, primary, onClick = playAgain) {
  return el("button", {
    class: primary ? "btn primary" : "btn", text: label, attrs: { type: "button", id }, on: { click: onClick },
  });
}

/** On a rematch table: the asker may withdraw the offer while it is open; once closed, go back. */
export function rematchTableControls() {
  const { msg } = game;
  if (!msg.rematch_of) return [];
  if (msg.status === "closed") {
    return [el("a", { class: "btn", text: t("Back to the game"),
      attrs: { id: "back-to-game", href: `/game/${encodeURIComponent(msg.rematch_of)}` } })];
  }
  if (!isSeated()) return [];
  return [rematchButton("withdraw-rematch", t("Cancel rematch"), false, withdrawFromTable)];
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

/** The rematch box of the end-of-game summary ("Play again" for a seat, but not in a tournament). */
export function renderRematch() {
  const { rematch, seat } = game.msg;
  const closed = game.msg.rematch_closed;
  byId("play-again").hidden = !isSeated() || Boolean(rematch) || Boolean(game.msg.tournament);
  const box = byId("rematch");
  box.hidden = !rematch && !closed;
  if (!rematch) {
    if (closed) fill(box, el("p", { class: "rematch-closed", text: closedOfferText(closed, seat) }));
    return;
  }
  if (isSeated()) {
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
export function announceRematch(before, msg) {
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

/** On a rematch table waiting for its second player: learn whom the free seat is kept for (the
 * players of the finished game it is the rematch of, who keep their seats); `done` redraws. */
export async function loadKeptSeat(done) {
  const from = game.msg ? game.msg.rematch_of : null;
  if (!from || game.keptFor) return;
  try {
    const table = await getJSON(`/api/games/${encodeURIComponent(from)}`);
    game.keptFor = table.players;
    done();
  } catch {
    /* the free seat is then shown as free */
  }
}
