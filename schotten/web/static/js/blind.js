// The screen-reader mode (a preference, as lichess's "blind mode"): the table as text under
// headings (whose turn, the clocks, each stone's two sides with their formations, one's hand,
// the decks, what one may do), the moves announced in a live region with the log's sentences,
// and moves typed as commands (commands.js), turned into the notation and sent: the server takes
// them or refuses them with the engine's reason.

import { loadPref, savePref } from "./api.js";
import { cardName } from "./cards.js";
import { orderExamples, orderText, readCommand } from "./commands.js";
import { byId, el, fill } from "./dom.js";
import { t, tn } from "./i18n.js";
import { moveText } from "./moves.js";
import { formationName } from "./proofs.js";
import { game, legalNow, names } from "./state.js";

const KEPT_LINES = 30;
const CLOCK_EVERY_MS = 1000;
const blind = { on: loadPref("blind", "0") === "1", send: () => false };

/** Whether the screen-reader mode is on. */
export function blindOn() {
  return blind.on;
}

function cardsText(cards) {
  return cards.length ? cards.map(cardName).join(", ") : t("no cards");
}

function sideText(stone, formations, seat) {
  const who = seat === game.msg.seat ? t("You") : names()[seat];
  const shape = formations ? formations[seat] : null;
  const formation = shape ? ` (${formationName(shape)} ${shape.total})` : "";
  return `${who}: ${cardsText(stone.cards[seat])}${formation}`;
}

function stoneLine(stone, index, claims) {
  const { formations } = game.msg;
  const parts = [t("Stone {n}", { n: index + 1 }), sideText(stone, formations && formations[index], 0),
    sideText(stone, formations && formations[index], 1)];
  if (stone.modes.length) parts.push(t("combat modes: {cards}", { cards: stone.modes.map(cardName).join(", ") }));
  if (stone.owner >= 0) parts.push(t("claimed by {name}", { name: names()[stone.owner] }));
  else if (claims.has(index)) parts.push(t("you may claim it"));
  return el("li", { text: parts.join(". "), data: { stone: index + 1 } });
}

function clocksText() {
  const lines = [0, 1].map((seat) => {
    const node = document.getElementById(`clock-${seat}`);
    return node ? `${names()[seat]}: ${node.textContent}` : null;
  }).filter(Boolean);
  return lines.length ? lines.join("; ") : t("This table has no clocks.");
}

function handsText() {
  const { view, seat } = game.msg;
  const lines = [];
  if (seat === 0 || seat === 1) lines.push(t("Your hand: {cards}", { cards: cardsText(view.hand) }));
  for (const other of [0, 1].filter((s) => s !== seat)) {
    const [clan, tactic] = view.hand_sizes[other];
    lines.push(t("{name} holds {cards}", {
      name: names()[other],
      cards: [tn("{n} clan card", "{n} clan cards", clan), tactic ? tn("{n} tactic card", "{n} tactic cards", tactic) : ""]
        .filter(Boolean).join(", "),
    }));
  }
  return lines;
}

function decksText() {
  const { view } = game.msg;
  const decks = [`${t("Clan deck")}: ${view.clan_deck}`];
  if (view.tactics) decks.push(`${t("Tactic deck")}: ${view.tactic_deck}`);
  return decks.join("; ");
}

function part(id, heading, ...lines) {
  return el("section", { attrs: { "aria-labelledby": `${id}-title` }, data: { part: id } },
    el("h3", { text: heading, attrs: { id: `${id}-title` } }), ...lines);
}

function orderLines(legal) {
  if (!legal.length) return [el("p", { text: t("Nothing: it is not your decision now.") })];
  return [el("ul", { class: "blind-orders" },
    ...legal.map((entry) => el("li", { text: `${entry.action}: ${orderText(entry)}`, data: { action: entry.action } })))];
}

/** Draw the text table from the last state message (nothing while the mode is off). */
export function renderBlind(status) {
  document.body.classList.toggle("blind", blind.on);
  byId("blind").hidden = !blind.on;
  if (!blind.on || !game.msg) return;
  const { view } = game.msg;
  const legal = legalNow();
  const claims = new Set(legal.filter((entry) => entry.kind === "claim").map((entry) => entry.stone));
  fill(byId("blind-table"),
    part("blind-turn", t("Turn"), el("p", { text: status }),
      el("p", { text: t("Round {round} of {rounds}", { round: Math.min(view.round + 1, view.rounds), rounds: view.rounds }) }),
      el("p", { text: t("Score: {name0} {p0} – {p1} {name1}", { name0: names()[0], p0: view.scores[0], p1: view.scores[1], name1: names()[1] }) })),
    part("blind-clocks", t("Clocks"), el("p", { text: clocksText(), attrs: { id: "blind-clocks-text" } })),
    part("blind-stones", t("Stones"), el("ol", {}, ...view.stones.map((stone, i) => stoneLine(stone, i, claims)))),
    part("blind-hands", t("Hands"), ...handsText().map((text) => el("p", { text }))),
    part("blind-decks", t("Decks"), el("p", { text: decksText() })),
    part("blind-moves", t("What you may do"), ...orderLines(legal)));
}

/** Read the clocks again (their paragraph is not a live region: it is read when one goes there). */
function refreshClocks() {
  const node = document.getElementById("blind-clocks-text");
  if (blind.on && game.msg && node) node.textContent = clocksText();
}

/** Say `text` in the live region (it keeps the last lines; `data-said` counts them all). */
export function announce(text) {
  if (!text) return;
  const live = byId("blind-live");
  live.dataset.said = String(Number(live.dataset.said || 0) + 1);
  live.append(el("p", { text }));
  while (live.childElementCount > KEPT_LINES) live.firstElementChild.remove();
}

/** Announce the moves a state message adds to the log (in the log's sentences), then `more`
 * (whose turn it became, how the game ended). */
export function announceMoves(before, msg, more = []) {
  if (!blind.on) return;
  if (before) for (const move of msg.log.slice(before.log.length)) announce(moveText(move, names()[move.mover]));
  for (const text of more) announce(text);
}

/** Tell the sentence of a refused command or action (the server's, or the page's). */
export function tellRefusal(text) {
  if (!blind.on) return;
  byId("blind-answer").textContent = text;
  announce(text);
}

function onCommand(event) {
  event.preventDefault();
  const input = byId("blind-command");
  const command = input.value.trim();
  if (!command || !game.msg) return;
  const read = readCommand(command, legalNow());
  byId("blind-answer").textContent = "";
  if (!read) {
    tellRefusal(t("“{command}” cannot be read as a move. Type a move's notation, as the list of what you may do shows it (7b@3, claim 4), or its order in words: {examples}.",
      { command, examples: orderExamples() }));
  } else if (read.ambiguous) {
    tellRefusal(t("“{command}” may name more than one move ({actions}): type the one you mean in its notation.",
      { command, actions: read.ambiguous.join(", ") }));
  } else if (blind.send(read.action)) {
    input.value = "";
  } else {
    tellRefusal(t("This move cannot be sent yet: the last one is still waiting for its answer."));
  }
}

function setOn(on) {
  blind.on = on;
  savePref("blind", on ? "1" : "0");
  byId("blind-toggle").setAttribute("aria-pressed", String(on));
  game.render();
  if (on) byId("blind-command").focus();
}

/** Wire the toggle and the command form; `send(action)` sends an action (false when it cannot). */
export function wireBlind(send) {
  blind.send = send;
  const toggle = byId("blind-toggle");
  toggle.setAttribute("aria-pressed", String(blind.on));
  toggle.addEventListener("click", () => setOn(!blind.on));
  byId("blind-form").addEventListener("submit", onCommand);
  window.setInterval(refreshClocks, CLOCK_EVERY_MS);
}
