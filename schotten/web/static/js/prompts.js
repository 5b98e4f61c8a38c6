// The prompt under the board: what this seat may do now, in words, with its buttons (the
// claims with their proofs, the draws, a ruse's questions, the confirmation of a card play),
// or whom the table waits for.

import { cardFace, cardName, cardTip, TACTICS } from "./cards.js";
import { byId, el, fill } from "./dom.js";
import { N_, t } from "./i18n.js";
import { moveText } from "./moves.js";
import { statusText } from "./panels.js";
import { claimText } from "./proofs.js";
import { rematchTableControls } from "./rematch.js";
import { game, isMine, legalNow, names } from "./state.js";
import { withWhy } from "./why.js";

const PROMPTS = {
  PLAY: N_("Play a card: pick one from your hand, then a stone."),
  DRAW: N_("Draw a card: choose a deck."),
  STRATEGIST_TAKE: N_("Strategist: take one of your cards from an unclaimed stone."),
  STRATEGIST_PLACE: N_("Strategist: put {card} on another stone, or discard it."),
  BANSHEE: N_("Banshee: choose one of your opponent's cards to discard."),
  TRAITOR_TAKE: N_("Traitor: choose one of your opponent's clan cards to take."),
  TRAITOR_PLACE: N_("Traitor: put {card} on your side of a stone."),
  RECRUIT_DRAW: N_("Recruiter: choose a deck to draw from. Cards still to draw: {n}"),
  RECRUIT_RETURN: N_("Recruiter: click a card in your hand to put it under its deck. Cards still to return: {n}"),
};

function button(action, label, extra = "") {
  return el("button", { class: `btn ${extra}`.trim(), text: label, data: { action }, attrs: { type: "button" } });
}

/** The proof that `stone` (1-9) may be claimed, in words, and the rules it rests on. */
export function claimWhy(stone) {
  return claimText(game.msg.claims ? game.msg.claims[String(stone)] : null);
}

function playPrompt(moves) {
  const parts = [];
  const card = game.selected;
  if (card && moves.ruses.has(card)) {
    parts.push(el("p", { text: cardTip(card) }), button(moves.ruses.get(card), t("Play {card}", { card: cardName(card) }), "primary"));
  } else if (card) {
    parts.push(el("p", { text: t("Now choose a lit stone for {card}.", { card: cardName(card) }) }));
    if (TACTICS[card]) parts.push(el("p", { class: "tip", text: cardTip(card) }));
  } else if (moves.plays.size === 0 && moves.ruses.size === 0) {
    parts.push(el("p", { text: t("You cannot play any card: you must pass.") }));
  } else {
    parts.push(el("p", { text: t(PROMPTS.PLAY) }));
  }
  if (card) {
    parts.push(el("button", {
      class: "btn", text: t("Cancel"), attrs: { type: "button", id: "cancel" },
      on: { click: () => { game.selected = null; game.render(); } },
    }));
  }
  if (moves.pass) parts.push(button(moves.pass, t("Pass")));
  return parts;
}

function confirmBar() {
  const play = game.provisional;
  const confirm = button("confirm", t("Confirm"), "primary");
  const back = button("take-back", t("Take back"));
  confirm.disabled = back.disabled = play.sent;
  return [el("div", { class: "confirm-bar", attrs: { id: "confirm-bar" } },
    el("p", { class: "confirm-what", text: t("Play {card} on stone {stone}?", { card: cardName(play.card), stone: play.stone }) }),
    el("p", { class: "tip", text: t("When you confirm, a card is drawn for you at once (there is no deck to choose): then this play can no longer be taken back.") }),
    el("div", { class: "row" }, confirm, back,
      el("span", { class: "muted small-text", text: t("Enter: confirm · Escape: take back") })))];
}

function claimedThisStep() {
  const { log, seat, view } = game.msg;
  const last = log[log.length - 1];
  return Boolean(last) && last.kind === "claim" && last.mover === seat && last.round === view.round;
}

function claimPrompt(moves) {
  const items = moves.claims.map(({ stone, action }) => {
    const { text, rules } = claimWhy(stone);
    return el("li", { class: "claim-item", data: { stone } },
      button(action, t("Claim stone {n}", { n: stone }), "primary claim-stone"),
      el("span", { class: "proof" }, ...withWhy(text, rules)));
  });
  const skip = moves.done ? button(moves.done, claimedThisStep() ? t("Continue") : t("Don't claim"), "skip") : null;
  if (skip) skip.title = t("Go on without claiming these stones now: you may claim them on a later turn.");
  return [el("p", { text: t("You can claim these stones:") }), el("ul", { class: "claims" }, ...items), skip];
}

function drawButtons(moves) {
  return moves.draws.map((draw) => button(draw.action,
    draw.deck === "clan" ? t("Draw a clan card") : t("Draw a tactic card"), "primary"));
}

function heldCard() {
  const { view } = game.msg;
  return view.held ? cardName(view.held) : "";
}

function phasePrompt(moves) {
  const { view } = game.msg;
  switch (view.phase) {
    case "PLAY": return game.provisional ? confirmBar() : playPrompt(moves);
    case "CLAIM": return claimPrompt(moves);
    case "DRAW": return [el("p", { text: t(PROMPTS.DRAW) }), ...drawButtons(moves)];
    case "RECRUIT_DRAW":
      return [el("p", { text: t(PROMPTS.RECRUIT_DRAW, { n: view.recruit_draws }) }), ...drawButtons(moves)];
    case "RECRUIT_RETURN":
      return [el("p", { text: t(PROMPTS.RECRUIT_RETURN, { n: view.recruit_returns }) })];
    case "STRATEGIST_PLACE":
      return [el("p", { text: t(PROMPTS.STRATEGIST_PLACE, { card: heldCard() }) }),
        view.held ? cardFace(view.held, { small: true }) : null,
        moves.discard ? button(moves.discard, t("Discard it")) : null];
    case "TRAITOR_PLACE":
      return [el("p", { text: t(PROMPTS.TRAITOR_PLACE, { card: heldCard() }) }),
        view.held ? cardFace(view.held, { small: true }) : null];
    default:
      return PROMPTS[view.phase] ? [el("p", { text: t(PROMPTS[view.phase]) })] : [];
  }
}

function waitingPrompt() {
  const { msg } = game;
  const { view } = msg;
  const parts = [];
  if (msg.status === "open" || msg.status === "closed") {
    parts.push(el("p", { text: statusText() }), ...rematchTableControls());
  } else if (msg.status === "playing") {
    parts.push(el("p", { text: t("Waiting for {name}…", { name: names()[view.turn] }) }));
  }
  if (view.held) {
    parts.push(el("p", {
      text: t("{name} holds {card}, taken from stone {stone}.", {
        name: names()[view.turn], card: cardName(view.held), stone: view.held_from + 1,
      }),
    }));
  }
  return parts;
}

/** Buttons for any legal action the page shows nowhere else (a safety net). */
function otherMoves(moves) {
  const shown = new Set([...document.querySelectorAll("[data-action]")].map((n) => n.dataset.action));
  const missing = legalNow().filter((move) => !shown.has(move.action) && move.kind !== "play"
    && !(move.kind === "ruse" && moves.ruses.has(move.card)));
  if (!missing.length) return [];
  const who = names()[game.msg.seat];
  return [el("div", { class: "other-moves" }, ...missing.map((move) => button(move.action, moveText(move, who))))];
}

/** Draw the prompt; `override` (nodes) replaces it (the end of a round being shown). */
export function renderPrompt(moves, override = null) {
  const node = byId("prompt");
  const mine = isMine() && !override;
  fill(node, ...(override || (mine ? phasePrompt(moves) : waitingPrompt())));
  if (mine && !game.provisional) node.append(...otherMoves(moves));
  node.classList.toggle("mine", mine || Boolean(override));
  node.hidden = node.childElementCount === 0;
}
