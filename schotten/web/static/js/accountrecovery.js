// The account page's recovery box: the e-mail address (set, change, remove; confirmed by a link) and
// the recovery codes (how many are left; new ones, shown once).

import { ApiError, errorText, getJSON, postJSON, showMessage } from "./api.js";
import { byId } from "./dom.js";
import { t } from "./i18n.js";
import { showCodes } from "./recoverycodes.js";

const CONFIRMED = {
  confirmed: () => t("Your e-mail address is confirmed."),
  expired: () => t("This confirmation link is not valid any more: ask for a new one."),
};

function emailText(state) {
  if (!state.mail) return t("This server sends no e-mail: keep your recovery codes.");
  if (state.pending) return t("Waiting for confirmation: {email} (open the link sent to it).", { email: state.pending });
  if (state.email) return t("Confirmed address: {email}", { email: state.email });
  return t("No address yet: a forgotten password can then be reset with a recovery code only.");
}

/** Show the account's recovery (nothing for a guest). */
export async function showRecovery(user) {
  byId("recovery-box").hidden = !user;
  if (!user) return;
  const state = await getJSON("/api/account/recovery").catch(() => null);
  if (!state) return;
  byId("email-state").textContent = emailText(state);
  byId("email-form").hidden = !state.mail;
  byId("remove-email").hidden = !state.email && !state.pending;
  byId("codes-state").textContent = t("Unused recovery codes: {count}", { count: state.codes_left });
}

async function setEmail(event) {
  event.preventDefault();
  try {
    await postJSON("/api/account/email", { password: byId("email-password").value, email: byId("email-address").value.trim() });
    byId("email-form").reset();
    showMessage(t("A confirmation link was sent: open it within a day."), "info");
  } catch (error) {
    showMessage(error.message);
  }
  await showRecovery(true);
}

async function removeEmail() {
  const response = await fetch("/api/account/email", {
    method: "DELETE", credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ password: byId("email-password").value }),
  }).catch(() => null);
  if (!response || !response.ok) {
    const body = response ? await response.json().catch(() => null) : null;
    showMessage(errorText(body, t("The server cannot be reached.")));
    return;
  }
  byId("email-form").reset();
  await showRecovery(true);
}

async function newCodes(event) {
  event.preventDefault();
  try {
    const answer = await postJSON("/api/account/recovery-codes", { password: byId("codes-password").value });
    byId("codes-form").reset();
    showCodes(answer.recovery_codes);
  } catch (error) {
    showMessage(error instanceof ApiError ? error.message : String(error));
  }
  await showRecovery(true);
}

/** Wire the box's forms, and say what a confirmation link did (then drop it from the address). */
export function initRecovery() {
  byId("email-form").addEventListener("submit", setEmail);
  byId("remove-email").addEventListener("click", removeEmail);
  byId("codes-form").addEventListener("submit", newCodes);
  const done = new URLSearchParams(window.location.search).get("email");
  if (done in CONFIRMED) {
    showMessage(CONFIRMED[done](), done === "confirmed" ? "info" : "error");
    window.history.replaceState(null, "", "/account");
  }
}
