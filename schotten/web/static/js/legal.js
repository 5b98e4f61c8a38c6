// The state message's legal actions grouped for the page: which cards light up, which stones,
// which buttons. Every action comes from the server with its parts ({action, kind, card,
// stone (0-8), deck}); the page only sorts them by kind (stones are 1-9 here, as on the board).

/**
 * The moves of `legal`: {all: Set(action), plays: Map(card -> [{stone, action}]), ruses:
 * Map(card -> action), claims: [{stone, action}], draws: [{deck, action}], picks: [{kind, card,
 * stone, action}] (take, banish), places: [{stone, action}], returns: Map(card -> action),
 * pass, done, discard: the action or null}.
 */
export function movesOf(legal) {
  const moves = {
    all: new Set(), plays: new Map(), ruses: new Map(), claims: [], draws: [], picks: [], places: [],
    returns: new Map(), pass: null, done: null, discard: null,
  };
  for (const move of legal) {
    const { action, card, deck, kind } = move;
    const stone = move.stone === null || move.stone === undefined ? null : move.stone + 1;
    moves.all.add(action);
    if (kind === "play") {
      if (!moves.plays.has(card)) moves.plays.set(card, []);
      moves.plays.get(card).push({ stone, action });
    } else if (kind === "ruse") moves.ruses.set(card, action);
    else if (kind === "claim") moves.claims.push({ stone, action });
    else if (kind === "draw") moves.draws.push({ deck, action });
    else if (kind === "take" || kind === "banish") moves.picks.push({ kind, card, stone, action });
    else if (kind === "place") moves.places.push({ stone, action });
    else if (kind === "return") moves.returns.set(card, action);
    else if (kind === "pass" || kind === "done" || kind === "discard") moves[kind] = action;
  }
  return moves;
}

/** Whether `card` of the hand can be played now (on a stone, or as a ruse). */
export function isPlayable(moves, card) {
  return moves.plays.has(card) || moves.ruses.has(card);
}

/** The legal entry of `action` (its parts), or undefined. */
export function entryOf(legal, action) {
  return legal.find((move) => move.action === action);
}
