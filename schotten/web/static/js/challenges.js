// Challenges by name on every page of a signed-in player (started by the account bar): the player's
// own socket (/ws/me) brings each challenge sent to them, shown with Accept and Decline (with a
// reason); an accepted challenge takes both players to its table. On a profile, the Challenge
// button (#challenge) opens a small form and sends one (POST /api/challenges).

import { getJSON, postJSON, showMessage } from "./api.js";
import { byId, el } from "./dom.js";
import { N_, t } from "./i18n.js";
import { clockName, VARIANTS, variantName } from "./labels.js";

const REASONS = {
  generic: N_("I'm not accepting challenges right now"),
  later: N_("Not now, please ask again later"),
  too_fast: N_("This time control is too fast for me"),
  too_slow: N_("This time control is too slow for me"),
  casual: N_("Casual games only, please"),
  rated: N_("Rated games only, please"),
  variant: N_("Not this variant, please"),
};
const CLOCKS = { "5+5": { initial: 300, increment: 5 }, "3+2": { initial: 180, increment: 2 },
  "10+10": { initial: 600, increment: 10 }, "1d": { days: 1 }, "3d": { days: 3 } };
const GUEST_CLOSE = 4401;
let player = null;
let socket = null;
let retry = 1000;

/** Follow the challenges of `user` (null: a guest, nothing to follow). */
export function watchChallenges(user) {
  if (user === player) return;
  player = user;
  if (socket) socket.close();
  socket = null;
  document.querySelectorAll(".challenge").forEach((node) => node.remove());
  if (!user) return;
  connect();
  getJSON("/api/challenges").then((list) => list.incoming.filter(pending).forEach(show)).catch(() => {});
}

/** The element `id`, or null (byId insists that it exists). */
function find(id) {
  return document.getElementById(id);
}

function pending(challenge) {
  return challenge.state === "pending";
}

function connect() {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${window.location.host}/ws/me`);
  socket = ws;
  ws.addEventListener("open", () => { retry = 1000; });
  ws.addEventListener("message", (event) => heard(JSON.parse(event.data)));
  ws.addEventListener("close", (event) => {
    if (socket !== ws || event.code === GUEST_CLOSE || !player) return;
    window.setTimeout(() => { if (socket === ws) connect(); }, retry);
    retry = Math.min(retry * 2, 30000);
  });
}

function heard(message) {
  const challenge = message.challenge;
  if (!challenge) return;
  if (message.type === "challenge") return show(challenge);
  find(`challenge-${challenge.id}`)?.remove();
  const mine = challenge.challenger.toLowerCase() === player.toLowerCase();
  if (message.type === "challenge_accepted" && mine) window.location.assign(challenge.url);
  if (message.type === "challenge_declined" && mine) {
    showMessage(t("{name} declined your challenge: {reason}.", { name: challenge.player, reason: t(REASONS[challenge.reason] || REASONS.generic) }), "info");
  }
}

/** The challenges' tray: shown at the corner, but placed right after the top bar so the keyboard
 * reaches a challenge's Accept in a few Tab presses, not after the whole page. */
function tray() {
  const found = find("challenges");
  if (found) return found;
  const made = el("aside", { class: "challenges", attrs: { id: "challenges", "aria-live": "polite", "aria-label": t("Challenges") } });
  const top = document.querySelector("header.topbar");
  if (top) top.after(made);
  else document.body.prepend(made);
  return made;
}

function terms(challenge) {
  return [variantName(challenge.variant), clockName(challenge.clock), challenge.rated ? t("rated") : t("casual")].join(" · ");
}

/** Show a challenge sent to this player, until it is answered or expires. */
function show(challenge) {
  if (find(`challenge-${challenge.id}`)) return;
  const reason = el("select", { attrs: { id: `decline-reason-${challenge.id}`, "aria-label": t("Why you decline") } },
    ...Object.entries(REASONS).map(([key, text]) => el("option", { text: t(text), attrs: { value: key } })));
  const box = el("div", { class: "challenge card-box", attrs: { id: `challenge-${challenge.id}`, role: "group" } },
    el("p", { text: t("{name} challenges you: {terms}", { name: challenge.challenger, terms: terms(challenge) }) }),
    el("div", { class: "row" },
      el("button", { class: "btn small primary challenge-accept", text: t("Accept"), attrs: { type: "button" }, on: { click: () => accept(challenge) } }),
      reason,
      el("button", { class: "btn small challenge-decline", text: t("Decline"), attrs: { type: "button" }, on: { click: () => decline(challenge, reason.value) } })));
  tray().append(box);
  window.setTimeout(() => box.remove(), challenge.expires_in);
}

async function accept(challenge) {
  try {
    const table = await postJSON(`/api/challenges/${encodeURIComponent(challenge.id)}/accept`, {});
    window.location.assign(table.url);
  } catch (error) {
    find(`challenge-${challenge.id}`)?.remove();
    showMessage(error.message);
  }
}

async function decline(challenge, reason) {
  find(`challenge-${challenge.id}`)?.remove();
  try {
    await postJSON(`/api/challenges/${encodeURIComponent(challenge.id)}/decline`, { reason });
  } catch (error) {
    showMessage(error.message);
  }
}

// ---------------------------------------------------------------- a profile's Challenge button

function options(id, entries, label) {
  return [el("label", { text: label, attrs: { for: id } }),
    el("select", { attrs: { id } }, ...entries.map(([value, text]) => el("option", { text, attrs: { value } })))];
}

function openForm(name) {
  const form = el("form", { class: "account-form", attrs: { id: "challenge-form", method: "dialog" } },
    el("h2", { text: t("Challenge {name}", { name }) }),
    ...options("challenge-variant", Object.keys(VARIANTS).map((key) => [key, variantName(key)]), t("Variant")),
    ...options("challenge-clock", Object.entries(CLOCKS).map(([key, clock]) => [key, clockName(clock)]), t("Time control")),
    el("label", { class: "check" }, el("input", { attrs: { id: "challenge-rated", type: "checkbox" } }), t("Rated")),
    el("div", { class: "row" },
      el("button", { class: "btn primary", text: t("Send the challenge"), attrs: { type: "submit", id: "challenge-send" } }),
      el("button", { class: "btn", text: t("Cancel"), attrs: { type: "button", id: "challenge-close" } })));
  const dialog = el("dialog", { class: "account-dialog", attrs: { id: "challenge-dialog" } }, form);
  document.body.append(dialog);
  byId("challenge-close").addEventListener("click", () => dialog.remove());
  dialog.addEventListener("close", () => dialog.remove());
  form.addEventListener("submit", (event) => send(event, name, dialog));
  dialog.showModal();
}

async function send(event, name, dialog) {
  event.preventDefault();
  const body = { player: name, variant: byId("challenge-variant").value, clock: CLOCKS[byId("challenge-clock").value],
    rated: byId("challenge-rated").checked };
  dialog.remove();
  try {
    await postJSON("/api/challenges", body);
    showMessage(t("Challenge sent to {name}: waiting for an answer.", { name }), "info");
  } catch (error) {
    showMessage(error.message);
  }
}

const profile = window.location.pathname.startsWith("/player/")
  ? decodeURIComponent(window.location.pathname.split("/").filter(Boolean)[1] || "") : "";
find("challenge")?.addEventListener("click", () => openForm(byId("username").textContent || profile));
