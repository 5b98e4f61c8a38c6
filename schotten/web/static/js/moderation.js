// The moderators' page (/moderation): the open reports with their evidence (the chat as the server
// stored it, the game, the fair-play figures) and their actions; an action on any player by name
// (unban among them); the moderation log. Everything comes from /api/moderation/*, which answers 403
// to anyone else (the page then says so). A mute's or ban's hours are sent as typed (empty: none
// sent) and the server judges them.

import { getJSON, postJSON, showMessage } from "./api.js";
import { byId, el, fill } from "./dom.js";
import { initI18n, N_, t } from "./i18n.js";
import { REASONS } from "./report.js";

const ACTIONS = {
  warn: N_("Warn"), mute: N_("Mute"), ban: N_("Ban"), clear: N_("Clear"), unban: N_("Unban"),
};
// The actions that take the hours field (the API's "hours").
const TIMED = new Set(["mute", "ban"]);
const HOURS_LABEL = N_("Hours of a mute or ban (empty: a ban lasts until it is lifted)");

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

function hoursInput() {
  return el("input", {
    class: "hours", attrs: { type: "number", step: "any", inputmode: "decimal", "aria-label": t(HOURS_LABEL), placeholder: t("Hours") },
  });
}

function hoursOf(input) {
  const text = input.value.trim();
  return text === "" ? null : Number(text);
}

function button(action, click) {
  return el("button", { text: t(ACTIONS[action]), attrs: { type: "button" }, data: { action }, on: { click } });
}

function reportActions(report, note, hours) {
  const ban = report.standing && report.standing.banned ? "unban" : "ban";
  return ["warn", "mute", ban, "clear"].map((action) => button(action, () => act(
    { player: report.player, action, note: note.value, report: report.id }, hoursOf(hours))));
}

function reportCard(report) {
  const note = el("input", {
    attrs: { type: "text", maxlength: 500, "aria-label": t("Note (the player reads it for a warning, mute or ban)") },
  });
  note.value = t(REASONS[report.reason] || report.reason);
  const hours = hoursInput();
  const game = report.game ? el("a", { text: t("Open the game"), attrs: { href: `/replay/${encodeURIComponent(report.game)}` } }) : null;
  return el("article", { class: "report", data: { report: report.id } },
    el("h2", {}, el("a", { text: report.player, attrs: { href: `/player/${encodeURIComponent(report.player)}` } }),
      ` – ${t(REASONS[report.reason] || report.reason)}`),
    el("p", { class: "muted", text: t("Reported by {name} on {time}", { name: report.reporter, time: when(report.created) }) }),
    report.text ? el("blockquote", { text: report.text }) : null,
    game, chatLines(report.chat), fairPlay(report.fair_play),
    el("div", { class: "actions" }, note, hours, reportActions(report, note, hours)));
}

// Take an action (the hours field's value goes with a mute or a ban when it is filled in): whether
// the server took it. The reports and the log are read again.
async function act(body, hours) {
  const sent = TIMED.has(body.action) && hours !== null ? { ...body, hours } : body;
  try {
    await postJSON("/api/moderation/actions", sent);
  } catch (error) {
    showMessage(error.message);
    return false;
  }
  await load();
  return true;
}

// The form that acts on any player by name (warn, mute, ban, unban).
function actForm() {
  const form = byId("act-form");
  const [player, note, hours] = [byId("act-player"), byId("act-note"), byId("act-hours")];
  form.addEventListener("submit", (event) => event.preventDefault());
  for (const control of form.querySelectorAll("button[data-action]")) {
    const action = control.dataset.action;
    control.addEventListener("click", async () => {
      const name = player.value.trim();
      if (!await act({ player: name, action, note: note.value }, hoursOf(hours))) return;
      showMessage(t("{action}: done for {name}.", { action: t(ACTIONS[action]), name }), "info");
      note.value = "";
      hours.value = "";
    });
  }
}

function actionText(entry) {
  const label = t(ACTIONS[entry.action] || entry.action);
  return entry.hours === null || entry.hours === undefined ? label : t("{action} for {hours} h", { action: label, hours: entry.hours });
}

function logRow(entry) {
  return el("tr", {}, el("td", { text: when(entry.time) }), el("td", { text: entry.moderator }),
    el("td", { text: entry.player }), el("td", { text: actionText(entry) }),
    el("td", { text: entry.note }));
}

async function load() {
  try {
    const [queue, log] = await Promise.all([getJSON("/api/moderation/reports"), getJSON("/api/moderation/log")]);
    fill(byId("reports"), ...queue.reports.map(reportCard));
    byId("no-reports").hidden = queue.reports.length > 0;
    fill(byId("log"), ...log.log.map(logRow));
    byId("act").hidden = false;
  } catch (error) {
    showMessage(error.message);
  }
}

async function main() {
  await initI18n();
  actForm();
  await load();
}

main();
