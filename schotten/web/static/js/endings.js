// Ending a game off the board, as the page offers it: Resign (after a confirmation) and Abort
// while the server allows them (`can_resign`, `can_abort`), and, when the other player has had
// no connection for a while (`away`, also told by `presence` messages), "X left the game" or
// the seconds until the win may be claimed, with a "Claim victory" button once the server says
// so (`can_claim_victory`). The page only shows what the server sends: it decides nothing.

import { send } from "./connection.js";
import { byId, el, fill } from "./dom.js";
import { t } from "./i18n.js";
import { game, isSeated, names } from "./state.js";

const TICK_MS = 250;
const away = { since: 0, timer: null };

/** Take the `away` countdowns of a state or presence message (at the moment it is received). */
export function setAway(msg) {
  game.msg.away = msg.away || [null, null];
  game.msg.can_claim_victory = Boolean(msg.can_claim_victory);
  away.since = performance.now();
  window.clearInterval(away.timer);
  const counting = game.msg.away.some((ms) => ms);
  away.timer = counting ? window.setInterval(renderAway, TICK_MS) : null;
  renderAway();
}

function waitLeft(seat) {
  const ms = game.msg.away ? game.msg.away[seat] : null;
  return ms === null || ms === undefined ? null : Math.max(0, ms - (performance.now() - away.since));
}

function seatNotice(other) {
  const name = names()[other];
  const ms = waitLeft(other);
  if (ms === null) return [];
  if (ms > 0) {
    const text = t("{name} is disconnected: you may claim the win in {n} s", { name, n: Math.ceil(ms / 1000) });
    return [el("p", { text })];
  }
  const parts = [el("p", { text: t("{name} left the game.", { name }) })];
  if (game.msg.can_claim_victory) {
    parts.push(el("button", {
      class: "btn primary", text: t("Claim victory"), attrs: { type: "button", id: "claim-victory" },
      on: { click: () => send({ type: "claim_victory" }) },
    }));
  }
  return parts;
}

function watcherNotice() {
  return [0, 1].filter((seat) => waitLeft(seat) !== null)
    .map((seat) => el("p", { text: t("{name} is disconnected.", { name: names()[seat] }) }));
}

/** The notice of a player who left (or is disconnected), while the game is played. */
export function renderAway() {
  const box = byId("away");
  const playing = game.msg && game.msg.status === "playing";
  const parts = !playing ? [] : isSeated() ? seatNotice(1 - game.msg.seat) : watcherNotice();
  box.hidden = !parts.length;
  fill(box, ...parts);
  if (!parts.length || !game.msg.away.some((_, seat) => waitLeft(seat))) {
    window.clearInterval(away.timer);
    away.timer = null;
  }
}

/** The Resign and Abort buttons, as the server allows them now. */
export function renderEndButtons() {
  byId("resign").hidden = !game.msg.can_resign;
  byId("abort").hidden = !game.msg.can_abort;
}

function ask(question, type) {
  const dialog = byId("confirm-end");
  byId("confirm-end-text").textContent = question;
  dialog.dataset.type = type;
  dialog.showModal();
}

function answered() {
  const dialog = byId("confirm-end");
  if (dialog.returnValue === "yes" && dialog.dataset.type) send({ type: dialog.dataset.type });
  dialog.dataset.type = "";
}

/** Wire Resign and Abort to their confirmation dialog. */
export function wireEndings() {
  byId("resign").addEventListener("click", () => {
    ask(t("Resign this game? {name} wins the match.", { name: names()[1 - game.msg.seat] }), "resign");
  });
  byId("abort").addEventListener("click", () => {
    ask(t("Abort this game? It ends with no winner."), "abort");
  });
  byId("confirm-end").addEventListener("close", answered);
}
