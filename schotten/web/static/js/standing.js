// What a moderator told this player: a warning is shown once (until a new one comes), a mute or a
// ban while it holds (GET /api/account/standing; nothing for a guest).

import { getJSON, loadPref, savePref, showMessage } from "./api.js";
import { currentUser } from "./account.js";
import { initI18n, t } from "./i18n.js";

const SEEN = "seen-warning";

/** Show the signed-in player's standing, if a moderator said something. */
export async function showStanding() {
  if (!(await currentUser())) return;
  let standing;
  try {
    standing = await getJSON("/api/account/standing");
  } catch {
    return;
  }
  if (standing.muted_until) {
    const until = new Date(standing.muted_until).toLocaleString();
    showMessage(t("A moderator muted your chat until {time}: {note}", { time: until, note: standing.note || "" }));
  } else if (standing.warning && loadPref(SEEN, "") !== standing.warning) {
    savePref(SEEN, standing.warning);
    showMessage(t("A moderator warned you: {note}", { note: standing.warning }));
  }
}

initI18n().then(showStanding);
document.addEventListener("account-changed", showStanding);
