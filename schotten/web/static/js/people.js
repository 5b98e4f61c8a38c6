// Who sits at a table, as the lobby, the table and the replay show it: an account's name links to
// its profile (/player/{name}) with its rating in the table's pool ("1500?" while provisional);
// a guest's or the AI's name is plain text. The server says which seats are accounts.

import { el } from "./dom.js";
import { t, tn } from "./i18n.js";
import { playerName } from "./labels.js";

/** A seat's rating as shown ("1523", "1500?"), or "" for a guest, the AI or an untimed table. */
export function ratingText(table, seat) {
  const rating = table.ratings ? table.ratings[seat] : null;
  if (rating === null || rating === undefined) return "";
  return table.provisional && table.provisional[seat] ? `${rating}?` : String(rating);
}

/** A seat's name: a link to the account's profile with its rating, else the plain `fallback`. */
export function playerNode(table, seat, fallback) {
  const account = table.accounts ? table.accounts[seat] : null;
  if (!account) return el("span", { class: "player", text: fallback });
  const rating = ratingText(table, seat);
  return el("span", { class: "player" },
    el("a", { class: "player-link", text: account, attrs: { href: `/player/${encodeURIComponent(account)}` } }),
    rating ? el("span", { class: "rating", text: ` (${rating})`, title: t("Rating") }) : null);
}

/** Both seats, "A (1500) – B (1490?)", with a "Rated" tag for a rated table and a "hints" tag for a
 * table that allows hints; `names` as shown. */
export function playersLine(table, names) {
  const line = el("span", { class: "players" },
    playerNode(table, 0, names[0]), " – ", playerNode(table, 1, names[1]));
  if (table.rated) line.append(" ", el("span", { class: "tag rated", text: t("Rated") }));
  if (table.hints) line.append(" ", hintsTag(table));
  return line;
}

/** The "hints" tag of a table against the AI that allows hints, its title how many were used. */
export function hintsTag(table) {
  return el("span", {
    class: "tag hints-tag", text: t("hints"),
    attrs: { title: tn("{n} hint used", "{n} hints used", table.hints_used || 0) },
  });
}

/** The default names of a table's seats: a player's name, else "(free seat)". */
export function seatNames(table) {
  return table.players.map((p) => (p ? playerName(p) : t("(free seat)")));
}
