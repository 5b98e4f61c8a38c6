// The profile's Follow and Block buttons (/player/{name}) for a signed-in visitor on another player's
// profile: each says what pressing it does now (Follow or Unfollow, Block or Unblock), read from the
// visitor's lists (GET /api/follows, GET /api/blocks) and changed with PUT / DELETE (a block made from
// the report dialog too: its "player-blocked" event). Hidden for a guest and on one's own profile.

import { getJSON, sendEmpty, showMessage } from "./api.js";
import { currentUser } from "./account.js";
import { byId } from "./dom.js";
import { initI18n, N_, t } from "./i18n.js";

const name = decodeURIComponent(window.location.pathname.split("/").filter(Boolean)[1] || "");
const KINDS = {
  follows: {
    button: "follow", on: N_("Unfollow"), off: N_("Follow"),
    done: N_("You follow {name}: their games in progress are listed on your home page."),
  },
  blocks: {
    button: "block", on: N_("Unblock"), off: N_("Block"),
    done: N_("You block {name}: their chat is hidden from you and Play now never pairs you."),
  },
};
const listed = { follows: false, blocks: false };

function same(a, b) {
  return a.toLowerCase() === b.toLowerCase();
}

function draw(kind) {
  const button = byId(KINDS[kind].button);
  button.textContent = t(listed[kind] ? KINDS[kind].on : KINDS[kind].off);
  button.setAttribute("aria-pressed", listed[kind] ? "true" : "false");
}

async function toggle(kind) {
  const url = `/api/${kind}/${encodeURIComponent(name)}`;
  try {
    await sendEmpty(listed[kind] ? "DELETE" : "PUT", url);
    listed[kind] = !listed[kind];
    draw(kind);
    if (listed[kind]) showMessage(t(KINDS[kind].done, { name: byId("username").textContent || name }), "info");
  } catch (error) {
    showMessage(error.message);
  }
}

async function show() {
  const box = byId("relations");
  const user = await currentUser();
  box.hidden = true;
  if (!user || !name || same(user, name)) return;
  try {
    for (const kind of Object.keys(KINDS)) {
      const list = await getJSON(`/api/${kind}`);
      listed[kind] = list.players.some((entry) => same(entry.name, name));
      draw(kind);
    }
    box.hidden = false;
    box.dataset.ready = "1";
  } catch (error) {
    showMessage(error.message);
  }
}

async function main() {
  await initI18n();
  for (const kind of Object.keys(KINDS)) byId(KINDS[kind].button).addEventListener("click", () => toggle(kind));
  document.addEventListener("account-changed", show);
  document.addEventListener("player-blocked", (event) => {
    if (same(event.detail.name, name)) {
      listed.blocks = true;
      draw("blocks");
    }
  });
  await show();
}

main();
