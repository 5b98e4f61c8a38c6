// Reporting from the table: the Report button (the opponent, when an account plays that seat) and
// a Report button on each chat line an account's seat wrote, for a signed-in viewer other than its
// author. The dialog is report.js; a chat line's report names its index, and the server keeps the
// stored lines around it; it blocks the author too unless the reporter unchecks "Also block".

import { currentUser } from "./account.js";
import { byId, el } from "./dom.js";
import { t } from "./i18n.js";
import { openReport } from "./report.js";
import { game, gameId, isSeated } from "./state.js";

let viewer = null;
currentUser().then((name) => { viewer = name; });
document.addEventListener("account-changed", () => currentUser().then((name) => { viewer = name; }));

function same(a, b) {
  return Boolean(a && b) && a.toLowerCase() === b.toLowerCase();
}

/** The account that plays `seat`, if one does and it is not the viewer (else null). */
export function reportableSeat(seat) {
  const accounts = (game.info && game.info.accounts) || [];
  const name = seat === 0 || seat === 1 ? accounts[seat] : null;
  return viewer && name && !same(name, viewer) ? name : null;
}

/** A chat line's Report button (a flag drawn by CSS, so the line's text stays the line's), or null. */
export function lineReport(line) {
  const author = reportableSeat(line.seat);
  if (!author) return null;
  const label = t("Report {name}", { name: author });
  return el("button", {
    class: "chat-report", title: label,
    attrs: { type: "button", "aria-label": label },
    on: { click: () => openReport({ player: author, game: gameId, line: line.index, block: true }) },
  });
}

/** Show the table's Report button for a seated viewer whose opponent is an account. */
export function renderReportButton() {
  const button = byId("report-opponent");
  const opponent = isSeated() && game.msg ? reportableSeat(1 - game.msg.seat) : null;
  button.hidden = !opponent;
  button.onclick = opponent ? () => openReport({ player: opponent, game: gameId }) : null;
}
