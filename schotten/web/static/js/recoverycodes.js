// The recovery codes of an account, shown once (after sign-up, or made anew on the account page).

import { el } from "./dom.js";
import { t } from "./i18n.js";

/** Show `codes` in a dialog the player closes once they are saved. */
export function showCodes(codes) {
  const dialog = el("dialog", { class: "account-dialog", attrs: { id: "codes-dialog", "aria-labelledby": "codes-title" } },
    el("h2", { text: t("Your recovery codes"), attrs: { id: "codes-title" } }),
    el("p", { class: "muted", text: t("Each code resets your password once if you forget it. Keep them somewhere safe: they are shown only now.") }),
    el("ol", { class: "recovery-codes", attrs: { id: "recovery-codes" } }, codes.map((code) => el("li", { text: code }))),
    el("button", { class: "btn primary", text: t("I have saved them"), attrs: { type: "button", id: "codes-saved" }, on: { click: () => dialog.remove() } }));
  document.body.append(dialog);
  dialog.addEventListener("close", () => dialog.remove());
  dialog.showModal();
}
