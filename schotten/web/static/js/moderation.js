// The moderators' page (/moderation): the open reports with their evidence (the chat as the server
// stored it, the game, the fair-play figures) and one-click actions; the moderation log. Everything
// comes from /api/moderation/*, which answers 403 to anyone else (the page then says so).

import { getJSON, postJSON, showMessage } from "./api.js";
import { byId, el, fill } from "./dom.js";
import { initI18n, N_, t } from "./i18n.js";
import { REASONS } from "./report.js";

const ACTIONS = {
  warn: N_("Warn"), mute: N_("Mute 24 h"), ban: N_("Ban"), clear: N_("Clear"), unban: N_("Unban"),
};
const MUTE_HOURS = 24;

function when(iso) {
  return new Date(iso).toLocaleString();
}

function percent(share) {
  return share === null || share === undefined ? "–" : `${Math.round(share * 100)}%`;
}

function chatLines(lines) {
  if (!lines.length) return el("p", { class: "muted", text: t("No chat lines were kept with this report.") });
  return el("ol", { class: "report-chat" }, lines.map((line) => el("li", {
    class: line.reported ? "reported" : "", data: { index: line.index },
  }, el("span", { class: "who", text: `${line.name}: ` }), el("span", { text: line.text ?? "" }))));
}

function fairPlay(figures) {
  const mine = t("Moves that were the AI's best: {share} of {n} in {games} reviewed rated games.", {
    share: percent(figures.agreement), n: figures.decisions, games: figures.games,
  });
  const band = figures.band ? t("Players of {band}: {share} of {n}.", {
    band: figures.band, share: percent(figures.band_agreement), n: figures.band_decisions,
  }) : t("No rating band yet.");
  return el("p", { class: "fair-play" }, `${mine} ${band}`);
}

function actionButtons(report, note) {
  return Object.entries(ACTIONS).filter(([action]) => action !== "unban").map(([action, label]) => el("button", {
    text: t(label), attrs: { type: "button" }, data: { action },
    on: { click: () => act(report, action, note.value) },
  }));
}

function reportCard(report) {
  const note = el("input", {
    attrs: { type: "text", maxlength: 500, "aria-label": t("Note (the player reads it for a warning, mute or ban)") },
  });
  note.value = t(REASONS[report.reason] || report.reason);
  const game = report.game ? el("a", { text: t("Open the game"), attrs: { href: `/replay/${encodeURIComponent(report.game)}` } }) : null;
  return el("article", { class: "report", data: { report: report.id } },
    el("h2", {}, el("a", { text: report.player, attrs: { href: `/player/${encodeURIComponent(report.player)}` } }),
      ` – ${t(REASONS[report.reason] || report.reason)}`),
    el("p", { class: "muted", text: t("Reported by {name} on {time}", { name: report.reporter, time: when(report.created) }) }),
    report.text ? el("blockquote", { text: report.text }) : null,
    game, chatLines(report.chat), fairPlay(report.fair_play),
    el("div", { class: "actions" }, note, actionButtons(report, note)));
}

async function act(report, action, note) {
  const body = { player: report.player, action, note, report: report.id };
  if (action === "mute") body.hours = MUTE_HOURS;
  try {
    await postJSON("/api/moderation/actions", body);
    await load();
  } catch (error) {
    showMessage(error.message);
  }
}

function logRow(entry) {
  return el("tr", {}, el("td", { text: when(entry.time) }), el("td", { text: entry.moderator }),
    el("td", { text: entry.player }), el("td", { text: t(ACTIONS[entry.action] || entry.action) }),
    el("td", { text: entry.note }));
}

async function load() {
  try {
    const [queue, log] = await Promise.all([getJSON("/api/moderation/reports"), getJSON("/api/moderation/log")]);
    fill(byId("reports"), ...queue.reports.map(reportCard));
    byId("no-reports").hidden = queue.reports.length > 0;
    fill(byId("log"), ...log.log.map(logRow));
  } catch (error) {
    showMessage(error.message);
  }
}

async function main() {
  await initI18n();
  await load();
}

main();
