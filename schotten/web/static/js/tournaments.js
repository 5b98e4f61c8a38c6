// The tournaments page (/tournaments): upcoming, running and finished events (GET /api/tournaments)
// and, for a signed-in player, a form creating one (POST /api/tournaments).

import { getJSON, postJSON, showMessage } from "./api.js";
import { currentUser } from "./account.js";
import { byId, el, fill } from "./dom.js";
import { initI18n, t } from "./i18n.js";
import { VARIANTS, clockName, variantName } from "./labels.js";

const LISTS = { created: "upcoming", started: "running", finished: "finished" };

function item(tournament) {
  const kind = tournament.format === "arena" ? t("Arena") : t("Swiss");
  const when = new Date(tournament.starts_at).toLocaleString();
  return el("li", {},
    el("a", { text: tournament.name, attrs: { href: `/tournaments/${tournament.id}` } }),
    el("span", { class: "muted", text: ` ${kind} · ${variantName(tournament.variant)} · ${clockName(tournament.clock)} · ${when} · ${t("Players: {n}", { n: tournament.players })}` }));
}

async function load() {
  try {
    const { tournaments } = await getJSON("/api/tournaments");
    for (const [status, id] of Object.entries(LISTS)) {
      fill(byId(id), ...tournaments.filter((found) => found.status === status).map(item));
    }
  } catch (error) {
    showMessage(error.message);
  }
}

function body() {
  const format = byId("t-format").value;
  const length = Number(byId("t-length").value);
  return {
    format, name: byId("t-name").value, variant: byId("t-variant").value, rated: byId("t-rated").checked,
    clock: { initial: Number(byId("t-initial").value) * 60, increment: Number(byId("t-increment").value) },
    starts_in: Number(byId("t-starts").value) * 60,
    ...(format === "arena" ? { minutes: length } : { rounds: length }),
  };
}

async function create(event) {
  event.preventDefault();
  try {
    const made = await postJSON("/api/tournaments", body());
    window.location.assign(`/tournaments/${made.id}`);
  } catch (error) {
    showMessage(error.message);
  }
}

async function main() {
  await initI18n();
  fill(byId("t-variant"), ...Object.keys(VARIANTS).map((value) => el("option", { text: variantName(value), attrs: { value } })));
  byId("create").addEventListener("submit", create);
  byId("create-box").hidden = !(await currentUser());
  await load();
  setInterval(load, 10000);
}

main();
