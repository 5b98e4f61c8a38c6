// The table: the nine stones with both sides' cards, the players' panels (hands, discard
// piles), the decks. Shared by the game page and the replay page; pure rendering, the
// callers decide what is clickable.

import { cardBack, cardFace, cardLabel, MODE_CODES } from "./cards.js";
import { el, fill, fittedText } from "./dom.js";
import { N_, t, tn } from "./i18n.js";
import { formationName, formationText } from "./proofs.js";

export { playerName } from "./labels.js";

/** The label of a complete side: its formation's name and total (never cut, never broken
 * inside a word) and the card each elite troop stands for; the whole proof as its tooltip. */
function formationLabel(shape, seat) {
  if (!shape) return null;
  const text = `${formationName(shape)} ${shape.total}`;
  return el("div", { class: "formation", title: formationText(shape), data: { formation: seat } },
    fittedText(text, { cls: "fname", width: 44, size: 10 }),
    ...shape.troops.map((tr) => el("span", { class: "troop" }, `${cardLabel(tr.card)}=`, cardFace(tr.as, { small: true }))));
}

/** Whether `text` on `stone` (seat's side, or the stone itself for seat null) is the provisional play. */
function isProvisional(opts, seat, number, text) {
  const play = opts.provisional;
  return Boolean(play) && play.stone === number && play.card === text
    && (seat === null ? MODE_CODES.includes(text) : play.seat === seat);
}

function isMarked(opts, key) {
  return Boolean(opts.marks) && opts.marks.has(key);
}

function sideNode(stone, number, seat, where, opts) {
  const node = el("div", { class: `side ${where}`, data: { seat } });
  stone.cards[seat].forEach((text) => {
    const action = opts.cardActions ? opts.cardActions.get(`${seat}:${number}:${text}`) : undefined;
    const classes = [];
    if (isMarked(opts, `${seat}:${number}:${text}`)) classes.push("last");
    if (action) classes.push("pickable");
    if (isProvisional(opts, seat, number, text)) classes.push("provisional");
    node.append(cardFace(text, {
      extraClass: classes.join(" "),
      data: { action, where: `${seat}:${number}` },
    }));
  });
  if (node.querySelector(".pickable")) node.classList.add("spread");
  const shape = stone.formations ? stone.formations[seat] : null;
  if (shape) node.title = formationText(shape);
  if (stone.owner >= 0 || opts.over) {
    const label = formationLabel(shape, seat);
    if (label) node.append(label);
  }
  return node;
}

function stoneToken(stone, number, opts) {
  const claim = opts.claims ? opts.claims.get(number) : undefined;
  const classes = ["stone"];
  if (stone.owner >= 0) classes.push("claimed", stone.owner === opts.bottom ? "mine" : "theirs");
  if (claim) classes.push("claimable");
  if (isMarked(opts, `claim:${number}`)) classes.push("last");
  const owner = stone.owner >= 0 ? t("claimed by {name}", { name: opts.names[stone.owner] }) : "";
  const token = el("div", {
    class: classes.join(" "),
    title: [t("Stone {n}", { n: number }), owner].filter(Boolean).join(" — "),
  }, el("span", { class: "num", text: String(number) }));
  for (const code of stone.modes) {
    const extra = [isProvisional(opts, null, number, code) ? "provisional" : "",
      isMarked(opts, `mode:${number}:${code}`) ? "last" : ""].join(" ");
    token.append(cardFace(code, { small: true, extraClass: `mode ${extra}`.trim(), data: { where: `stone:${number}` } }));
  }
  if (claim) {
    token.append(el("button", {
      class: "claim",
      title: claim.why,
      data: { action: claim.action },
      attrs: { type: "button", "aria-label": t("Claim stone {n}", { n: number }) },
    }, fittedText(t("Claim"), { cls: "claim-label", width: 40, size: 10, weight: 700 })));
  } else if (opts.whyNot && opts.whyNot.has(number)) {
    token.append(whyNotButton(number, opts));
  }
  return token;
}

/** The "Why not?" button of a stone the seat has a complete side of but may not claim now: it
 * asks the page to show the server's answer (opts.onWhyNot), which it controls. */
function whyNotButton(number, opts) {
  const label = t("Why can I not claim stone {n}?", { n: number });
  return el("button", {
    class: "why-not",
    title: label,
    data: { whyNot: number },
    attrs: {
      type: "button", "aria-label": label, "aria-controls": "why-not",
      "aria-expanded": String(opts.whyOpen === number),
    },
    on: {
      click: (event) => {
        event.stopPropagation();
        opts.onWhyNot(number);
      },
    },
  }, fittedText(t("Why not?"), { cls: "why-not-label", width: 40, size: 10 }));
}

function columnNode(stone, index, opts) {
  const number = index + 1;
  const top = 1 - opts.bottom;
  const action = opts.stoneActions ? opts.stoneActions.get(number) : undefined;
  const classes = ["col"];
  if (action) classes.push("target");
  if (stone.owner >= 0) classes.push(stone.owner === opts.bottom ? "owned-bottom" : "owned-top");
  if (stone.modes.includes("MF")) classes.push("mud");
  const token = stoneToken(stone, number, opts);
  const col = el("div", {
    class: classes.join(" "),
    data: { stone: number, action },
    attrs: { "aria-label": t("Stone {n}", { n: number }), role: opts.grid ? "gridcell" : "group" },
  },
  el("div", { class: "slot slot-top" }, stone.owner === top ? token : null),
  sideNode(stone, number, top, "top", opts),
  el("div", { class: "slot slot-mid" }, stone.owner < 0 ? token : el("div", { class: "border-mark" })),
  sideNode(stone, number, opts.bottom, "bottom", opts),
  el("div", { class: "slot slot-bottom" }, stone.owner === opts.bottom ? token : null));
  return col;
}

/** The stones with a play not yet sent ({seat, stone, card}) added: a combat mode on its stone,
 * any other card at the end of the seat's side. */
function withProvisional(stones, play) {
  if (!play) return stones;
  return stones.map((stone, i) => {
    if (i !== play.stone - 1) return stone;
    if (MODE_CODES.includes(play.card)) return { ...stone, modes: [...stone.modes, play.card] };
    return { ...stone, cards: stone.cards.map((side, seat) => (seat === play.seat ? [...side, play.card] : side)) };
  });
}

/**
 * Draw the nine stones of `data` (a view, a reveal dict or a state message's round_end: stones
 * and the server's `formations`) into `container`; stones are numbered 1-9.
 * opts: {bottom: seat shown at the bottom, names: [n0, n1], stoneActions: Map(stone -> action),
 * cardActions: Map("seat:stone:card" -> action), claims: Map(stone -> {action, why}),
 * whyNot: a Set of the stones with a "Why not?" button, whyOpen: the stone whose answer is shown,
 * onWhyNot(stone): what a click on one does,
 * marks: a Set of what to frame as the last turn ("seat:stone:card", "mode:stone:card",
 * "claim:stone"; see lastturn.js), over: bool (label every complete side), provisional:
 * {seat, stone, card} (a play shown on the board but not sent yet, class "provisional") or null,
 * grid: each stone a gridcell (the game page's board is a grid of one row, game.html)}
 */
export function renderBoard(container, data, opts) {
  const shaped = data.stones.map((stone, i) => ({ ...stone, formations: data.formations ? data.formations[i] : null }));
  const stones = withProvisional(shaped, opts.provisional);
  fill(container, ...stones.map((stone, i) => columnNode(stone, i, opts)));
  container.classList.toggle("has-target", Boolean(opts.stoneActions && opts.stoneActions.size));
}

/** A row of small face-up cards (a discard pile); `label` is shown before it. */
export function pileNode(label, cards, id) {
  return el("div", { class: "pile", attrs: { id } },
    el("span", { class: "pile-label", text: label }),
    cards.length ? el("div", { class: "pile-cards" }, ...cards.map((c) => cardFace(c, { small: true })))
      : el("span", { class: "muted", text: "—" }));
}

/** The card backs of a hidden hand: [clan, tactic] counts, with the counts written out. */
export function backsNode(sizes) {
  const [clan, tactic] = sizes;
  const backs = [];
  for (let i = 0; i < clan; i += 1) backs.push(cardBack("clan", { small: true }));
  for (let i = 0; i < tactic; i += 1) backs.push(cardBack("tactic", { small: true }));
  const counts = [
    tn("{n} clan card", "{n} clan cards", clan),
    tactic ? tn("{n} tactic card", "{n} tactic cards", tactic) : null,
  ].filter(Boolean).join(", ");
  return el("div", { class: "backs", title: counts },
    el("div", { class: "backs-cards" }, ...backs),
    el("span", { class: "backs-count", text: counts }));
}

/** The decks with their card counts; `drawable` maps "clan"/"tactic" to an action or nothing. */
export function decksNode(data, drawable = new Map()) {
  const deck = (kind, count, label) => {
    const action = drawable.get(kind);
    const node = el("div", {
      class: `deck${action ? " pickable" : ""}`,
      title: `${label}: ${count}`,
      data: { deck: kind, drawAction: action },
    }, cardBack(kind, { small: true }), el("span", { class: "deck-count", text: String(count) }),
    el("span", { class: "deck-label", text: label }));
    return node;
  };
  const nodes = [deck("clan", data.clan_deck, t("Clan deck"))];
  if (data.tactics) nodes.push(deck("tactic", data.tactic_deck, t("Tactic deck")));
  return el("div", { class: "decks" }, ...nodes);
}

// The engine's reasons for the end of a round (schotten.engine.state.Reason) are catalogue keys.
const REASONS = [
  N_("three adjacent stones"), N_("five stones"), N_("more stones when play ran out"),
  N_("equal stones when play ran out"), N_("forfeit"),
];

/** The translated reason a round ended. */
export function reasonText(reason) {
  return REASONS.includes(reason) ? t(reason) : reason;
}

/** How round `i` (0-based) ended, in words: who won, why, and the points. */
export function roundText(round, i, names) {
  const values = { n: i + 1, reason: reasonText(round.reason), p0: round.points[0], p1: round.points[1] };
  return round.winner === null || round.winner === undefined
    ? t("Round {n}: a draw ({reason}), {p0}–{p1}", values)
    : t("Round {n}: {name} won ({reason}), {p0}–{p1}", { ...values, name: names[round.winner] });
}

/** One line per finished round: who won, why, and the points. */
export function roundLines(data, names) {
  return data.round_outcomes.map((round, i) => el("li", { text: roundText(round, i, names), data: { round: i + 1 } }));
}
