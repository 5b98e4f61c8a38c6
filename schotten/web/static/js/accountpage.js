// The account page (/account): change the password, the e-mail address and recovery codes
// (accountrecovery.js), delete the account (after a confirmation).

import { errorText, postJSON, showMessage } from "./api.js";
import { currentUser } from "./account.js";
import { byId } from "./dom.js";
import { initI18n, t } from "./i18n.js";
import { initRecovery, showRecovery } from "./accountrecovery.js";

async function changePassword(event) {
  event.preventDefault();
  try {
    await postJSON("/api/account/password", {
      password: byId("current-password").value, new_password: byId("new-password").value,
    });
    byId("password-form").reset();
    byId("password-done").hidden = false;
  } catch (error) {
    showMessage(error.message);
  }
}

async function deleteAccount(event) {
  event.preventDefault();
  if (!window.confirm(t("Delete your account? This cannot be undone."))) return;
  const response = await fetch("/api/account", {
    method: "DELETE", credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ password: byId("delete-password").value }),
  }).catch(() => null);
  if (response && response.ok) {
    window.location.assign("/");
    return;
  }
  const body = response ? await response.json().catch(() => null) : null;
  showMessage(errorText(body, t("The server cannot be reached.")));
}

async function show() {
  const user = await currentUser();
  byId("logged-out").hidden = Boolean(user);
  byId("password-box").hidden = !user;
  byId("delete-box").hidden = !user;
  if (user) byId("account-title").textContent = user;
  await showRecovery(user);
}

async function main() {
  await initI18n();
  byId("password-form").addEventListener("submit", changePassword);
  byId("delete-form").addEventListener("submit", deleteAccount);
  initRecovery();
  document.addEventListener("account-changed", show);
  await show();
  document.body.dataset.ready = "1";
}

main();
