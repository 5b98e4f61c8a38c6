// Reporting a player to the moderators (POST /api/reports): a small dialog with the reason and an
// optional text. From a profile, the table's menu and a chat line (`game` and `line` then tell the
// server which stored chat lines to keep with the report; the page sends no chat text itself).

import { postJSON, showMessage } from "./api.js";
import { el } from "./dom.js";
import { N_, t } from "./i18n.js";

export const REASONS = { abuse: N_("Abuse"), cheating: N_("Cheating"), stalling: N_("Stalling"), other: N_("Other") };
const TEXT_MAX = 500;

function reasonField() {
  const select = el("select", { attrs: { id: "report-reason" } },
    ...Object.entries(REASONS).map(([value, label]) => el("option", { text: t(label), attrs: { value } })));
  return [el("label", { text: t("Reason"), attrs: { for: "report-reason" } }), select];
}

function textField() {
  return [el("label", { text: t("What happened (optional)"), attrs: { for: "report-text" } }),
    el("textarea", { attrs: { id: "report-text", maxlength: TEXT_MAX, rows: 3 } })];
}

async function send(dialog, about) {
  const body = { player: about.player, reason: dialog.querySelector("#report-reason").value };
  const text = dialog.querySelector("#report-text").value.trim();
  if (text) body.text = text;
  if (about.game) body.game = about.game;
  if (about.line !== undefined && about.line !== null) body.line = about.line;
  try {
    await postJSON("/api/reports", body);
    dialog.close();
    dialog.remove();
    showMessage(t("Thank you: the moderators will look at your report on {name}.", { name: about.player }), "info");
  } catch (error) {
    dialog.querySelector(".report-error").textContent = error.message;
  }
}

/** Open the report dialog about `player` ({player, game?, line?}). */
export function openReport(about) {
  document.getElementById("report-dialog")?.remove();
  const dialog = el("dialog", { attrs: { id: "report-dialog", "aria-labelledby": "report-title" } },
    el("form", { attrs: { method: "dialog" }, on: { submit: (event) => { event.preventDefault(); send(dialog, about); } } },
      el("h2", { text: t("Report {name}", { name: about.player }), attrs: { id: "report-title" } }),
      ...reasonField(), ...textField(),
      el("p", { class: "report-error error", attrs: { role: "alert" } }),
      el("div", { class: "row" },
        el("button", { class: "btn primary", text: t("Send the report"), attrs: { type: "submit", id: "report-send" } }),
        el("button", { class: "btn", text: t("Cancel"), attrs: { type: "button" }, on: { click: () => { dialog.close(); dialog.remove(); } } }))));
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}
