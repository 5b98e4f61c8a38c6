// The reset page (/reset): choose a new password with a reset link (its token is in an HttpOnly
// cookie: the server moved it out of the address), ask for a link, or use a recovery code.

import { postJSON, showMessage } from "./api.js";
import { accountChanged } from "./account.js";
import { byId } from "./dom.js";
import { initI18n } from "./i18n.js";

function done() {
  for (const id of ["link-box", "forgot-box", "code-box"]) byId(id).hidden = true;
  byId("reset-done").hidden = false;
  accountChanged();
}

async function send(event, url, body) {
  event.preventDefault();
  try {
    await postJSON(url, body());
    done();
  } catch (error) {
    showMessage(error.message);
  }
}

async function forgot(event) {
  event.preventDefault();
  try {
    await postJSON("/api/recovery/forgot", { name: byId("forgot-name").value.trim() });
    byId("forgot-sent").hidden = false;
  } catch (error) {
    showMessage(error.message);
  }
}

async function main() {
  await initI18n();
  const link = new URLSearchParams(window.location.search).get("link") === "1";
  byId("link-box").hidden = !link;
  byId("forgot-box").hidden = link;
  byId("code-box").hidden = link;
  byId("link-form").addEventListener("submit", (event) => send(event, "/api/recovery/reset",
    () => ({ new_password: byId("link-password").value })));
  byId("code-form").addEventListener("submit", (event) => send(event, "/api/recovery/code", () => ({
    username: byId("code-username").value.trim(), code: byId("code-code").value.trim(),
    new_password: byId("code-password").value,
  })));
  byId("forgot-form").addEventListener("submit", forgot);
  document.body.dataset.ready = "1";
}

main();
