// The game page's state: the last state message from the server and what the player chose on
// the page (the selected card, a play waiting for its confirmation, preferences), with the
// questions every part of the page asks about it (names, seat, whose decision it is).

import { loadPref } from "./api.js";
import { playerName } from "./board.js";
import { t } from "./i18n.js";
import { movesOf } from "./legal.js";

const path = window.location.pathname.split("/").filter(Boolean);

/** This table's id, from the address /game/{id}. */
export const gameId = decodeURIComponent(path[1] || "");

/** The address's query: ?join=1 (an invite link). */
export const params = new URLSearchParams(window.location.search);

/** Whether the page was opened with a seat link that is no seat's of this table. A seat's own link
 * never reaches the page: the server sets the seat's cookie (which the page uses from then on)
 * and sends the browser to the address without the token. */
export const badSeatLink = params.has("token");

/** Take a token out of the address bar (and so out of the history and the Referer). */
function dropToken() {
  params.delete("token");
  const query = params.toString();
  const { pathname, hash } = window.location;
  window.history.replaceState(window.history.state, "", `${pathname}${query ? `?${query}` : ""}${hash}`);
}

if (badSeatLink) dropToken();

/** Everything the page keeps between state messages. */
export const game = {
  msg: null,
  info: null,
  selected: null,
  pending: false,
  provisional: null,
  confirmPlays: loadPref("confirmPlays", "1") !== "0",
  sortBy: loadPref("sort", "colour"),
  roundsSeen: -1,
  asking: false,
  keptFor: null,
  spectators: 0,
  render: () => {},
};

/** Whether this page holds a seat (else it watches). */
export function isSeated() {
  const seat = game.msg ? game.msg.seat : null;
  return seat === 0 || seat === 1;
}

/** The players' names as shown; a free seat says so, or whom a rematch keeps it for. */
export function names() {
  const players = game.msg ? game.msg.players : [null, null];
  return players.map((p, seat) => {
    if (p) return playerName(p);
    const kept = game.keptFor && game.msg.status === "open" ? game.keptFor[seat] : null;
    return kept ? t("seat kept for {name}", { name: playerName(kept) }) : t("(free seat)");
  });
}

/** The seat shown at the bottom: this page's, or seat 0 for a spectator. */
export function bottomSeat() {
  return isSeated() ? game.msg.seat : 0;
}

/** The seat's legal actions as the server sent them, while the game is played (none while a
 * table waits for its second player, or was closed). */
export function legalNow() {
  return game.msg && game.msg.status === "playing" ? game.msg.legal : [];
}

/** Whether the decision is this page's now. */
export function isMine() {
  return legalNow().length > 0;
}

/** The legal moves grouped for the page (see legal.js). */
export function movesNow() {
  return movesOf(legalNow());
}
