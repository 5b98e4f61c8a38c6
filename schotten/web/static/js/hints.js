// Hints at a table against the AI that allows them: the "Hint" button asks the server, which
// answers the move its engine would play for this seat and why (as data, put in words here); the
// "Analyse" button asks for the position's analysis (a hint too) and opens the analysis board on the
// position the server gives (the opponent's hand and the decks dealt anew: no secret in the address).

import { postJSON, showMessage } from "./api.js";
import { cardName } from "./cards.js";
import { send } from "./connection.js";
import { byId, el, fill } from "./dom.js";
import { t } from "./i18n.js";
import { formationText } from "./proofs.js";
import { game, gameId, isMine } from "./state.js";

const hint = { asked: null, shown: null };

/** Whether this seat may ask for a hint now (the table allows them and the decision is its own). */
function askable() {
  const { msg } = game;
  return Boolean(msg && msg.hints && msg.status === "playing" && isMine() && !game.provisional);
}

/** The reason of a hint in the page's words, from the server's data. */
export function hintText(reason) {
  const chance = t("You win about {pct}% of the rounds played from here.", { pct: Math.round(reason.win * 100) });
  if (reason.kind === "claim") return `${t("Claim stone {n}: it is yours now.", { n: reason.stone })} ${chance}`;
  if (reason.kind !== "play") return `${t("The engine's choice.")} ${chance}`;
  const where = { card: cardName(reason.card), n: reason.stone };
  let text = t("{card} on stone {n}.", where);
  if (reason.mine) {
    const words = { ...where, formation: formationText(reason.mine) };
    text = reason.complete ? t("{card} on stone {n} makes {formation}.", words)
      : t("{card} on stone {n} keeps {formation} open.", words);
  }
  if (reason.blocks) text += ` ${t("It blocks their {formation}.", { formation: formationText(reason.blocks) })}`;
  return `${text} ${chance}`;
}

/** The nodes the hinted action concerns: the card and its stone, or the action's own button. */
function hintedNodes(action) {
  const played = /^(\S{2})@(\d)$/.exec(action);
  if (played) {
    return [...document.querySelectorAll(`#hand .card[data-card="${played[1]}"], #board .col[data-stone="${played[2]}"]`)];
  }
  return [...document.querySelectorAll(`[data-action="${action}"], [data-draw-action="${action}"]`)];
}

/** Show the button, and the hint of the decision shown (its move highlighted, its reason in words). */
export function renderHint() {
  const { msg } = game;
  const button = byId("hint");
  button.hidden = !askable();
  byId("analyse").hidden = !askable();
  if (hint.shown && (!msg || hint.shown.version !== msg.version)) hint.shown = null;
  button.disabled = hint.asked === msg.version || Boolean(hint.shown);
  const box = byId("hint-box");
  box.hidden = !hint.shown || !askable();
  for (const node of document.querySelectorAll(".hinted")) node.classList.remove("hinted");
  if (box.hidden) {
    fill(box);
    return;
  }
  fill(box, el("p", {}, el("strong", { text: `${t("Hint")}: ` }), hintText(hint.shown.reason)));
  box.dataset.action = hint.shown.action;
  for (const node of hintedNodes(hint.shown.action)) node.classList.add("hinted");
}

/** The server's hint: kept when it is for the decision shown. */
export function onHint(msg) {
  hint.asked = null;
  if (!game.msg || msg.version !== game.msg.version) return;
  hint.shown = msg;
  renderHint();
}

/** A refused hint lets the button be pressed again. */
export function hintRefused() {
  hint.asked = null;
}

/** Ask for this decision's analysis and open the analysis board on the position it was made on. */
async function analyseHere() {
  const button = byId("analyse");
  if (!askable()) return;
  button.disabled = true;
  try {
    const found = await postJSON(`/api/games/${encodeURIComponent(gameId)}/analysis`, {});
    window.location.assign(`/analysis?position=${encodeURIComponent(found.position)}`);
  } catch (error) {
    showMessage(error.message);
  } finally {
    button.disabled = false;
  }
}

/** Wire the "Hint" and "Analyse" buttons. */
export function wireHint() {
  byId("analyse").addEventListener("click", analyseHere);
  byId("hint").addEventListener("click", () => {
    if (!askable() || !send({ type: "hint" })) return;
    hint.asked = game.msg.version;
    renderHint();
  });
}
