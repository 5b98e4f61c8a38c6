// The leaderboard (/leaderboard?pool=...): a pool's best established players, what it takes to be
// one of them and, for a logged-in viewer, their own rank or how many rated games they are from it
// (the server's numbers: `ranking`).

import { getJSON, showMessage } from "./api.js";
import { byId, el, fill } from "./dom.js";
import { initI18n, t, tn } from "./i18n.js";
import { POOLS, poolName, provisionalNote, ratingText } from "./pools.js";

const DEFAULT_POOL = "base.realtime";

function chosenPool() {
  const asked = new URLSearchParams(window.location.search).get("pool");
  return POOLS.includes(asked) ? asked : DEFAULT_POOL;
}

function playerLink(username) {
  return el("a", { text: username, attrs: { href: `/player/${encodeURIComponent(username)}` } });
}

function row(player) {
  return el("tr", { data: { rank: player.rank } },
    el("td", { text: `${player.rank}` }), el("td", {}, playerLink(player.username)),
    el("td", { class: "num", text: String(player.rating) }), el("td", { class: "num", text: String(player.rd) }),
    el("td", { class: "num", text: String(player.games) }));
}

function youText(you, ranking) {
  if (!you) return t("Log in and play rated games to get a rank.");
  const rating = ratingText(you.rating, you.provisional);
  const left = ranking.games_to_ranked;
  if (you.rank) return t("Your rank: {rank} (rating {rating})", { rank: you.rank, rating });
  if (you.provisional) {
    return tn("Your rating {rating} is still provisional: ranked after about {n} more rated game.",
      "Your rating {rating} is still provisional: ranked after about {n} more rated games.", left, { rating });
  }
  if (left) return t("Your rating {rating}: play a rated game to be ranked again.", { rating });
  return t("Your rating {rating} is established, but not among the {size} best of this pool.", { rating, size: ranking.size });
}

/** Who is listed, with the server's numbers. */
function rulesText(ranking) {
  return t("Listed: the {size} best ratings that are no longer provisional, each with a rated game in the last {days} days.", {
    size: ranking.size, days: ranking.days,
  });
}

async function load(pool) {
  try {
    const board = await getJSON(`/api/leaderboard?pool=${encodeURIComponent(pool)}`);
    fill(byId("players"), ...board.players.map(row));
    byId("empty").hidden = board.players.length > 0;
    byId("you").textContent = youText(board.you, board.ranking);
    byId("ranking-rules").textContent = rulesText(board.ranking);
    byId("provisional-note").textContent = provisionalNote(board.ranking);
  } catch (error) {
    showMessage(error.message);
  }
}

function wirePools(pool) {
  const select = byId("pool");
  fill(select, ...POOLS.map((value) => el("option", { text: poolName(value), attrs: { value } })));
  select.value = pool;
  select.addEventListener("change", () => {
    const url = new URL(window.location.href);
    url.searchParams.set("pool", select.value);
    window.history.replaceState(null, "", url);
    load(select.value);
  });
}

async function main() {
  await initI18n();
  const pool = chosenPool();
  wirePools(pool);
  await load(pool);
}

main();
