// The home page's list of the games being played by the players one follows (GET /api/follows/games),
// each with a Watch link; shown to a signed-in player only, refreshed with the lobby.

import { getJSON } from "./api.js";
import { currentUser } from "./account.js";
import { byId, el, fill } from "./dom.js";
import { initI18n, t } from "./i18n.js";
import { clockName, variantName } from "./labels.js";
import { playersLine, seatNames } from "./people.js";

const REFRESH_MS = 10000;

function row(table) {
  return el("li", { class: "table-row", data: { table: table.id, status: table.status } },
    el("span", { class: "desc" }, `${variantName(table.variant)} · ${clockName(table.clock)} — `,
      playersLine(table, seatNames(table))),
    el("a", { class: "btn small", text: t("Watch"), attrs: { href: table.watch } }));
}

async function refresh() {
  const box = byId("followed-box");
  if (!(await currentUser())) {
    box.hidden = true;
    return;
  }
  try {
    const games = (await getJSON("/api/follows/games")).games;
    if (!games.length) fill(byId("followed-games"), el("li", { class: "muted", text: t("None of the players you follow is playing now.") }));
    else fill(byId("followed-games"), ...games.map(row));
    box.hidden = false;
    box.dataset.ready = "1";
  } catch {
    box.hidden = true;
  }
}

async function main() {
  await initI18n();
  document.addEventListener("account-changed", refresh);
  await refresh();
  window.setInterval(() => {
    if (document.visibilityState === "visible") refresh();
  }, REFRESH_MS);
}

main();
