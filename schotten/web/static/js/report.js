// Reporting a player to the moderators (POST /api/reports): a small dialog with the reason, an
// optional text and "Also block NAME" (PUT /api/blocks/{name}; checked for a chat line, so Report on
// the line then Send reports and blocks). From a profile, the table's menu and a chat line (`game`
// and `line` then tell the server which stored chat lines to keep with the report; the page sends
// no chat text itself). A block made here is told to the page as a "player-blocked" event.

import { postJSON, sendEmpty, showMessage } from "./api.js";
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

function blockField(about) {
  const box = el("input", { attrs: { type: "checkbox", id: "report-block" } });
  box.checked = Boolean(about.block);
  return el("label", { class: "check", attrs: { for: "report-block" } }, box, t("Also block {name}", { name: about.player }));
}

/** Block `name` (silent for them; the page is told by a "player-blocked" event): null, or the
 * reason it failed. */
async function blockFailure(name) {
  try {
    await sendEmpty("PUT", `/api/blocks/${encodeURIComponent(name)}`);
  } catch (error) {
    return error.message || t("Something went wrong.");
  }
  document.dispatchEvent(new CustomEvent("player-blocked", { detail: { name } }));
  return null;
}

function reportBody(dialog, about) {
  const body = { player: about.player, reason: dialog.querySelector("#report-reason").value };
  const text = dialog.querySelector("#report-text").value.trim();
  if (text) body.text = text;
  if (about.game) body.game = about.game;
  if (about.line !== undefined && about.line !== null) body.line = about.line;
  return body;
}

async function send(dialog, about) {
  const name = about.player;
  const blocking = dialog.querySelector("#report-block").checked;
  try {
    await postJSON("/api/reports", reportBody(dialog, about));
  } catch (error) {
    dialog.querySelector(".report-error").textContent = error.message;
    return;
  }
  const failure = blocking ? await blockFailure(name) : null;
  dialog.close();
  dialog.remove();
  if (failure) {
    showMessage(t("Your report on {name} was sent, but {name} could not be blocked: {reason}", { name, reason: failure }));
    return;
  }
  const said = [t("Thank you: the moderators will look at your report on {name}.", { name })];
  if (blocking) said.push(t("You block {name}: their chat is hidden from you and Play now never pairs you.", { name }));
  showMessage(said.join(" "), "info");
}

/** Open the report dialog about `player` ({player, game?, line?, block?}: `block` checks "Also block"). */
export function openReport(about) {
  document.getElementById("report-dialog")?.remove();
  const dialog = el("dialog", { attrs: { id: "report-dialog", "aria-labelledby": "report-title" } },
    el("form", { attrs: { method: "dialog" }, on: { submit: (event) => { event.preventDefault(); send(dialog, about); } } },
      el("h2", { text: t("Report {name}", { name: about.player }), attrs: { id: "report-title" } }),
      ...reasonField(), ...textField(), blockField(about),
      el("p", { class: "report-error error", attrs: { role: "alert" } }),
      el("div", { class: "row" },
        el("button", { class: "btn primary", text: t("Send the report"), attrs: { type: "submit", id: "report-send" } }),
        el("button", { class: "btn", text: t("Cancel"), attrs: { type: "button" }, on: { click: () => { dialog.close(); dialog.remove(); } } }))));
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}
