// Coming to a table by its invite link (?join=1): the Join form while a seat is free; once the
// table is full or over, the page says so and offers to watch. The invite box, for the player
// waiting at a friend table, gives the link to send.

import { cleanNickname, postJSON, savedNickname, savePref, showMessage } from "./api.js";
import { byId } from "./dom.js";
import { t } from "./i18n.js";
import { game, gameId, isSeated, params } from "./state.js";

const invited = params.get("join") === "1";
const join = { dismissed: false };

function freeSeat(msg) {
  return msg.status === "open" && !msg.rematch_of && msg.players.some((p) => p === null);
}

/** Why an invited visitor cannot sit down here, or "" while a seat is free. */
function fullText(msg) {
  if (msg.status === "over") return t("This game is over: nobody can join it any more.");
  if (msg.status === "closed") return t("This table is closed: nobody can join it.");
  if (msg.rematch_of && msg.status === "open") {
    return t("This is a rematch: its free seat is kept for the other player.");
  }
  return t("This table is full: both seats are taken.");
}

/** Show the Join form, or why there is none, to a visitor who came by the invite link. */
export function renderJoin() {
  const { msg } = game;
  const form = byId("join");
  const full = byId("table-full");
  if (!invited || isSeated() || join.dismissed) {
    form.hidden = true;
    full.hidden = true;
    return;
  }
  const open = freeSeat(msg);
  form.hidden = !open;
  full.hidden = open;
  if (!open) byId("table-full-text").textContent = fullText(msg);
}

async function sitDown(event) {
  event.preventDefault();
  const nickname = cleanNickname(byId("join-nickname").value);
  if (!nickname) {
    showMessage(t("Choose a nickname of 1 to 24 characters."));
    return;
  }
  savePref("nickname", nickname);
  try {
    const seat = await postJSON(`/api/tables/${encodeURIComponent(gameId)}/join`, { nickname });
    window.location.replace(`/game/${encodeURIComponent(seat.id)}`);
  } catch (error) {
    showMessage(error.status === 409 ? t("This table has no free seat any more: you are watching.") : error.message);
    join.dismissed = true;
    if (game.msg) renderJoin();
  }
}

function watch() {
  join.dismissed = true;
  renderJoin();
}

/** The invite box: shown to the player waiting at a friend table for its second player. */
export function renderInvite() {
  const box = byId("invite");
  const show = game.msg.status === "open" && isSeated() && !game.msg.rematch_of
    && (!game.info || game.info.mode !== "ai");
  box.hidden = !show;
  if (show) byId("invite-link").value = `${window.location.origin}/game/${encodeURIComponent(gameId)}?join=1`;
}

async function copyInvite() {
  const input = byId("invite-link");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand("copy");
  }
  showMessage(t("Invite link copied."), "info");
}

/** Wire the Join form, the Watch buttons and the invite box's Copy button. */
export function wireJoin() {
  byId("join-nickname").value = savedNickname();
  byId("join-form").addEventListener("submit", sitDown);
  byId("watch").addEventListener("click", watch);
  byId("watch-full").addEventListener("click", watch);
  byId("copy-invite").addEventListener("click", copyInvite);
}
