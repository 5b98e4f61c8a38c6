// The account bar at the top of every page: Sign up and Log in (a small dialog) for a guest; the
// username (a link to the profile), the account page and Log out once logged in. Other modules ask
// `currentUser()` and listen for the document's "account-changed" event. Once the bar is drawn, the
// player's challenges are followed (challenges.js).

import { ApiError, getJSON, postJSON } from "./api.js";
import { byId, el, fill } from "./dom.js";
import { initI18n, t } from "./i18n.js";
import { showCodes } from "./recoverycodes.js";

let known = null;

/** The username this browser is logged in as, or null (asked of the server once per page). */
export function currentUser() {
  known ??= getJSON("/api/session").then((body) => body.username || null).catch(() => null);
  return known;
}

/** Forget who the browser is (it logged in or out), tell the page's modules and redraw the bar. */
export function accountChanged() {
  changed();
}

function changed() {
  known = null;
  document.dispatchEvent(new CustomEvent("account-changed"));
  renderBar();
}

async function logOut() {
  try {
    await fetch("/api/session", { method: "DELETE", credentials: "same-origin" });
  } finally {
    changed();
  }
}

function field(id, label, type, autocomplete) {
  return [el("label", { text: label, attrs: { for: id } }),
    el("input", { attrs: { id, type, autocomplete, required: true } })];
}

/** The sign-up or log-in dialog; `signUp` says which. */
function openDialog(signUp) {
  const error = el("p", { class: "account-error", attrs: { id: "account-error", role: "alert" } });
  const form = el("form", { class: "account-form", attrs: { id: "account-form", method: "dialog" } },
    el("h2", { text: signUp ? t("Sign up") : t("Log in") }),
    ...field("account-username", t("Username"), "text", "username"),
    ...field("account-password", t("Password"), "password", signUp ? "new-password" : "current-password"),
    signUp ? el("p", { class: "muted", text: t("3 to 20 letters, digits, _ or -; a password of 8 characters or more.") })
      : el("a", { text: t("Forgot your password?"), attrs: { href: "/reset", id: "forgot-password" } }),
    error,
    el("div", { class: "row" },
      el("button", { class: "btn primary", text: signUp ? t("Sign up") : t("Log in"), attrs: { type: "submit", id: "account-submit" } }),
      el("button", { class: "btn", text: t("Cancel"), attrs: { type: "button", id: "account-cancel" } })));
  const dialog = el("dialog", { class: "account-dialog", attrs: { id: "account-dialog" } }, form);
  document.body.append(dialog);
  byId("account-cancel").addEventListener("click", () => dialog.remove());
  form.addEventListener("submit", (event) => submit(event, signUp, dialog, error));
  dialog.addEventListener("close", () => dialog.remove());
  dialog.showModal();
}

async function submit(event, signUp, dialog, error) {
  event.preventDefault();
  const body = { username: byId("account-username").value.trim(), password: byId("account-password").value };
  try {
    const answer = await postJSON(signUp ? "/api/accounts" : "/api/session", body);
    dialog.remove();
    changed();
    if (answer && answer.recovery_codes) showCodes(answer.recovery_codes);
  } catch (failure) {
    error.textContent = failure instanceof ApiError && failure.status === 401
      ? t("Wrong username or password.") : failure.message;
  }
}

/** Draw the bar for the current user. */
export async function renderBar() {
  const bar = byId("account-bar");
  if (!bar) return;
  const user = await currentUser();
  bar.dataset.user = user || "";
  if (user) {
    fill(bar,
      el("a", { class: "account-name", text: user, attrs: { href: `/player/${encodeURIComponent(user)}` } }),
      el("a", { text: t("Account"), attrs: { href: "/account" } }),
      el("button", { class: "btn small", text: t("Log out"), attrs: { type: "button", id: "log-out" }, on: { click: logOut } }));
  } else {
    fill(bar,
      el("button", { class: "btn small", text: t("Log in"), attrs: { type: "button", id: "log-in" }, on: { click: () => openDialog(false) } }),
      el("button", { class: "btn small primary", text: t("Sign up"), attrs: { type: "button", id: "sign-up" }, on: { click: () => openDialog(true) } }));
  }
  bar.dataset.ready = "1";
  import("./challenges.js").then((module) => module.watchChallenges(user || null));
}

initI18n().then(renderBar);
