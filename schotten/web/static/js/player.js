// A player's profile (/player/{name}): their rating in each pool they played with a chart of its
// history (an SVG drawn here) and how far it is from ranked (the server's count), their counts of
// games, and their games being played (links to the table) and finished (links to the replay), each
// naming its players (accounts linked to their profiles), and the tournaments they played (rank of the
// field) and their podiums. Tables only: the server sends no game's state.

import { getJSON, showMessage } from "./api.js";
import { byId, el, fill, svg } from "./dom.js";
import { initI18n, language, t, tn } from "./i18n.js";
import { clockName, resultName, variantName } from "./labels.js";
import { playersLine, seatNames } from "./people.js";
import { poolName, provisionalNote, ratingText } from "./pools.js";

const name = decodeURIComponent(window.location.pathname.split("/").filter(Boolean)[1] || "");
const START_RATING = 1500;
const WIDTH = 480;
const HEIGHT = 160;
const PAD = 28;

function date(text) {
  return new Date(text).toLocaleDateString(language());
}

function counts(games) {
  const played = tn("{n} game played", "{n} games played", games.played);
  return `${played} · ${t("won {w}, lost {l}, drawn {d}", { w: games.won, l: games.lost, d: games.drawn })}`;
}

/** The chart of a pool's history: the rating after each game, from the start rating before the first. */
function chart(pool, history) {
  const values = [START_RATING, ...history.map((point) => point.rating)];
  const low = Math.min(...values) - 20;
  const high = Math.max(...values) + 20;
  const x = (i) => PAD + (i * (WIDTH - 2 * PAD)) / Math.max(1, values.length - 1);
  const y = (v) => HEIGHT - PAD + ((v - low) * (2 * PAD - HEIGHT)) / (high - low);
  const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const label = (value, at) => svg("text", { x: 2, y: y(at) + 4, class: "axis" }, document.createTextNode(String(value)));
  const dots = history.map((point, i) => svg("circle", { cx: x(i + 1), cy: y(point.rating), r: 3, class: "dot" },
    svg("title", {}, document.createTextNode(`${point.rating} · ${date(point.time)}`))));
  return svg("svg", {
    class: "rating-chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "data-pool": pool,
    "aria-label": t("Rating history: {pool}", { pool: poolName(pool) }),
  }, label(Math.round(high - 20), high - 20), label(Math.round(low + 20), low + 20),
  svg("polyline", { points, class: "line" }), ...dots);
}

/** How far a pool's rating is from the leaderboard, from the server's `games_to_ranked`. */
function rankedText(rating) {
  const left = rating.games_to_ranked;
  if (!left) return "";
  if (rating.provisional) {
    return tn("Provisional: ranked after about {n} more rated game.", "Provisional: ranked after about {n} more rated games.", left);
  }
  return t("Not ranked: no rated game lately. One more puts it back on the leaderboard.");
}

function ratingBox(pool, rating) {
  const details = t("RD {rd} · {games} rated: {w} won, {l} lost, {d} drawn", {
    rd: rating.rd, games: rating.games, w: rating.wins, l: rating.losses, d: rating.draws,
  });
  return el("div", { class: "rating-pool", data: { pool } },
    el("h3", { text: poolName(pool) }),
    el("p", { class: "rating" }, el("strong", { class: "value", text: ratingText(rating.rating, rating.provisional) }),
      rating.provisional ? el("span", { class: "muted", text: ` ${t("provisional")}` }) : null),
    el("p", { class: "muted details", text: details }),
    rankedText(rating) ? el("p", { class: "ranked", text: rankedText(rating) }) : null,
    chart(pool, rating.history));
}

function describe(table) {
  return el("span", { class: "desc" }, `${variantName(table.variant)} · ${clockName(table.clock)} · `,
    playersLine(table, seatNames(table)));
}

function gameRow(table) {
  const finished = table.status === "over";
  const href = `/${finished ? "replay" : "game"}/${encodeURIComponent(table.id)}`;
  return el("li", { class: "table-row", data: { table: table.id, status: table.status } },
    describe(table),
    finished ? el("span", { class: "muted ended", text: resultName(table) }) : null,
    table.unrated_reason ? el("span", { class: "muted unrated", text: t(table.unrated_reason.say.text, table.unrated_reason.say.params) }) : null,
    el("a", { class: "btn small", text: finished ? t("Replay") : t("Watch"), attrs: { href } }));
}

function fillGames(id, tables) {
  if (!tables.length) fill(byId(id), el("li", { class: "muted", text: t("None at the moment.") }));
  else fill(byId(id), ...tables.map(gameRow));
}

const MEDALS = ["🥇", "🥈", "🥉"];

function tournamentRow(entry) {
  const kind = entry.format === "arena" ? t("Arena") : t("Swiss");
  const place = t("{rank} of {players}", { rank: entry.rank, players: entry.players });
  const running = entry.status === "started" ? ` · ${t("still running")}` : "";
  return el("li", { class: "table-row", data: { tournament: String(entry.id), rank: String(entry.rank) } },
    el("a", { text: entry.name, attrs: { href: `/tournaments/${entry.id}` } }),
    el("span", { class: "muted", text: ` ${kind} · ${variantName(entry.variant)} · ${date(entry.starts_at)}${running}` }),
    el("span", { class: "rank", text: ` ${place}` }));
}

function podiumRow(entry) {
  return el("li", { data: { tournament: String(entry.id) } }, `${MEDALS[entry.rank - 1]} `,
    el("a", { text: entry.name, attrs: { href: `/tournaments/${entry.id}` } }),
    el("span", { class: "muted", text: ` ${date(entry.starts_at)}` }));
}

function showTournaments(tournaments) {
  const { played, podiums } = tournaments;
  if (!played.length) fill(byId("tournaments-played"), el("li", { class: "muted", text: t("No tournament yet.") }));
  else fill(byId("tournaments-played"), ...played.map(tournamentRow));
  byId("podiums-box").hidden = !podiums.length;
  fill(byId("podiums"), ...podiums.map(podiumRow));
}

function show(profile) {
  document.title = `${profile.username} · Schotten Totten`;
  byId("username").textContent = profile.username;
  byId("since").textContent = t("Playing since {date}", { date: date(profile.created) });
  byId("counts").textContent = counts(profile.games);
  const pools = Object.entries(profile.ratings);
  if (!pools.length) fill(byId("ratings"), el("p", { class: "muted", text: t("No rated game yet.") }));
  else fill(byId("ratings"), ...pools.map(([pool, rating]) => ratingBox(pool, rating)));
  byId("ratings-note").textContent = provisionalNote(profile.ranking);
  fillGames("current-games", profile.current);
  fillGames("recent-games", profile.recent);
  showTournaments(profile.tournaments);
}

async function main() {
  await initI18n();
  try {
    show(await getJSON(`/api/players/${encodeURIComponent(name)}`));
  } catch (error) {
    showMessage(error.status === 404 ? t("There is no player of that name.") : error.message);
  }
}

main();
