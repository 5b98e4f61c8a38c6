"""A fixed-size numeric encoding of a View (R10): what one seat may know, as a float32 vector.

``encode(seen)`` reads only the view (never the state), so two states that differ only in
what the seat may not know give the same vector. Everything is seat-relative ("my" is the
observing seat, "their" the other) and every value lies in [0, 1]. ``LAYOUT`` names each
block and its shape; ``block(vector, name)`` cuts one out. The layout is documented, block
by block, in docs/rl.md.

``legal_mask(ids)`` turns action ids into the int8 action mask; ``view_mask(seen)`` builds the
same mask from a view's legal actions (notation), for code that holds only a view.
``board_text(seen)`` draws a view as a small text board (the environments' ``render``).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ..engine.actions import NUM_ACTIONS
from ..engine.cards import (
    BLUFF,
    JOKER,
    MODE_BLUFF,
    MODE_MUD,
    MUD,
    NUM_CARD_CODES,
    NUM_CLAN,
    NUM_STONES,
    SHIELD,
    TACTIC_DECK,
)
from ..engine.numeric import NumericView, legal_ids
from ..engine.phases import Phase
from ..engine.view import StoneView, View

Vector = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]

SIDE_CODES = SHIELD + 1
"""Cards that can lie on a side of a stone: the 54 clan cards and the three elite troops."""
MAX_HAND = 9
"""The most cards a hand can hold: 6 after playing the Recruiter, plus its 3 draws (R7.7)."""
MAX_TACTICS_PLAYED = 5
"""Each tactic card is played at most once and nobody gets two ahead (R7.2): at most 5 each."""
NUM_PHASES = len(Phase)

LAYOUT: dict[str, tuple[int, ...]] = {
    "my_side": (NUM_STONES, SIDE_CODES),
    "their_side": (NUM_STONES, SIDE_CODES),
    "my_count": (NUM_STONES,),
    "their_count": (NUM_STONES,),
    "bluff": (NUM_STONES,),
    "mud": (NUM_STONES,),
    "my_stone": (NUM_STONES,),
    "their_stone": (NUM_STONES,),
    "my_complete": (NUM_STONES,),
    "their_complete": (NUM_STONES,),
    "my_first": (NUM_STONES,),
    "their_first": (NUM_STONES,),
    "claimable": (NUM_STONES,),
    "held_from": (NUM_STONES,),
    "hand": (NUM_CARD_CODES,),
    "my_discards": (NUM_CARD_CODES,),
    "their_discards": (NUM_CARD_CODES,),
    "my_under": (NUM_CARD_CODES,),
    "unseen_clan": (NUM_CLAN,),
    "unseen_tactic": (NUM_CARD_CODES - NUM_CLAN,),
    "held": (SIDE_CODES,),
    "hand_sizes": (4,),
    "decks": (2,),
    "tactics_played": (2,),
    "phase": (NUM_PHASES,),
    "to_move": (1,),
    "recruit": (2,),
    "passes": (1,),
    "match": (7,),
    "variant": (2,),
}
"""Every block of the observation, in order, with its shape (see docs/rl.md)."""


def _offsets() -> dict[str, tuple[int, int]]:
    found, start = {}, 0
    for name, shape in LAYOUT.items():
        size = int(np.prod(shape))
        found[name] = (start, start + size)
        start += size
    return found


OFFSETS: dict[str, tuple[int, int]] = _offsets()
"""Each block's ``(start, end)`` in the flat vector."""
OBS_SIZE: int = max(end for _, end in OFFSETS.values())
"""The length of the observation vector."""

_MODES = ((MODE_BLUFF, BLUFF), (MODE_MUD, MUD))
_COPIES = np.ones(NUM_CARD_CODES, dtype=np.float32)
_COPIES[JOKER] = 2
_TACTIC_COPIES = np.bincount(np.array(TACTIC_DECK) - NUM_CLAN, minlength=NUM_CARD_CODES - NUM_CLAN)
_PHASE_INDEX = {phase.name: int(phase) for phase in Phase}


def observation_box() -> spaces.Box:
    """The gymnasium space of ``encode``'s vectors: float32 in [0, 1], shape ``(OBS_SIZE,)``."""
    return spaces.Box(low=0.0, high=1.0, shape=(OBS_SIZE,), dtype=np.float32)


def mask_box() -> spaces.Box:
    """The space of action masks: int8 0/1, one per action id."""
    return spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8)


def observation_space() -> spaces.Dict:
    """The Dict space ``{"observation": observation_box(), "action_mask": mask_box()}``."""
    return spaces.Dict({"observation": observation_box(), "action_mask": mask_box()})


def block(vector: Vector, name: str) -> Vector:
    """The block ``name`` of an observation vector, in its ``LAYOUT`` shape."""
    start, end = OFFSETS[name]
    return vector[start:end].reshape(LAYOUT[name])


def legal_mask(ids: Iterable[int]) -> Mask:
    """The int8 action mask with a 1 at each of ``ids``."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[list(ids)] = 1
    return mask


def view_mask(seen: View) -> Mask:
    """The action mask of a view's legal actions (all zeros unless it is the seat's decision)."""
    return legal_mask(legal_ids(seen))


def _counts(cards: Iterable[int]) -> npt.NDArray[np.float32]:
    counts = np.zeros(NUM_CARD_CODES, dtype=np.float32)
    for card in cards:
        counts[card] += 1
    return counts


class _Writer:
    """Fills the blocks of one observation vector."""

    def __init__(self) -> None:
        self.vector = np.zeros(OBS_SIZE, dtype=np.float32)

    def put(self, name: str, values: npt.ArrayLike) -> None:
        start, end = OFFSETS[name]
        self.vector[start:end] = np.minimum(np.asarray(values, dtype=np.float32).ravel(), 1.0)

    def flag(self, name: str, index: int) -> None:
        self.vector[OFFSETS[name][0] + index] = 1.0


def encode(seen: View) -> Vector:
    """The observation vector of a seat's view (``view(state, seat)`` with seat 0 or 1)."""
    if seen.seat is None or seen.hand is None:
        raise ValueError("an observation is made from a seat's view, not a spectator's")
    out = _Writer()
    me, numbers = seen.seat, NumericView.of(seen)
    _stones(out, seen, numbers, me)
    _cards(out, seen, numbers, me)
    _counters(out, seen, me)
    return out.vector


def _stones(out: _Writer, seen: View, numbers: NumericView, me: int) -> None:
    for s, stone in enumerate(seen.stones):
        for who, prefix in ((me, "my"), (1 - me, "their")):
            cards = numbers.sides[who][s]
            for card in cards:
                out.flag(f"{prefix}_side", s * SIDE_CODES + card)
            out.vector[OFFSETS[f"{prefix}_count"][0] + s] = len(cards) / 4
            if stone.complete[who]:
                out.flag(f"{prefix}_complete", s)
            if stone.owner == who:
                out.flag(f"{prefix}_stone", s)
            if stone.first == who:
                out.flag(f"{prefix}_first", s)
        if numbers.modes[s] & MODE_BLUFF:
            out.flag("bluff", s)
        if numbers.modes[s] & MODE_MUD:
            out.flag("mud", s)
    for s in seen.claimable:
        out.flag("claimable", s)
    if seen.held_from >= 0:
        out.flag("held_from", seen.held_from)


def _cards(out: _Writer, seen: View, numbers: NumericView, me: int) -> None:
    hand = _counts(numbers.hand)
    mine, theirs = _counts(numbers.discards[me]), _counts(numbers.discards[1 - me])
    under = _counts(card for deck in numbers.under for _, card in deck)
    held = _counts([numbers.held] if numbers.held >= 0 else [])
    board = _counts(c for side in numbers.sides for stone in side for c in stone)
    board += _counts(card for bit, card in _MODES for m in numbers.modes if m & bit)
    known = hand + mine + theirs + under + held + board
    out.put("hand", hand / _COPIES)
    out.put("my_discards", mine / _COPIES)
    out.put("their_discards", theirs / _COPIES)
    out.put("my_under", under / _COPIES)
    out.put("unseen_clan", known[:NUM_CLAN] == 0)
    if seen.variant in ("tactics", "expert"):
        out.put("unseen_tactic", np.maximum(_TACTIC_COPIES - known[NUM_CLAN:], 0) / _TACTIC_COPIES)
    out.put("held", held[:SIDE_CODES])


def _counters(out: _Writer, seen: View, me: int) -> None:
    (my_clan, my_tactic), (their_clan, their_tactic) = seen.hand_sizes[me], seen.hand_sizes[1 - me]
    out.put("hand_sizes", np.array([my_clan, my_tactic, their_clan, their_tactic]) / MAX_HAND)
    out.put("decks", [seen.clan_deck / NUM_CLAN, seen.tactic_deck / len(TACTIC_DECK)])
    played = seen.tactics_played
    out.put("tactics_played", [played[me] / MAX_TACTICS_PLAYED, played[1 - me] / MAX_TACTICS_PLAYED])
    out.flag("phase", _PHASE_INDEX[seen.phase])
    if seen.turn == me and seen.phase != Phase.OVER.name:
        out.flag("to_move", 0)
    out.put("recruit", [seen.recruit_draws / 3, seen.recruit_returns / 2])
    out.put("passes", [seen.passes / 2])
    out.put("match", _match(seen, me))
    out.put("variant", [seen.variant in ("tactics", "expert"), seen.variant.startswith("expert")])


def _match(seen: View, me: int) -> list[float]:
    rounds = seen.rounds
    began = seen.first_player if seen.round % 2 == 0 else 1 - seen.first_player
    return [
        seen.round / rounds,
        1 / rounds,
        seen.scores[me] / (5 * rounds),
        seen.scores[1 - me] / (5 * rounds),
        seen.rounds_won[me] / rounds,
        seen.rounds_won[1 - me] / rounds,
        float(began == me),
    ]


def board_text(seen: View, names: tuple[str, str] = ("player_0", "player_1")) -> str:
    """A small text board of a view (use the spectator's view, ``view(state, None)``, to hide hands)."""
    lines = [
        f"Schotten Totten ({seen.variant}), round {seen.round + 1} of {seen.rounds}, "
        f"scores {seen.scores[0]}-{seen.scores[1]}",
    ]
    for seat in (0, 1):
        clan, tactic = seen.hand_sizes[seat]
        lines.append(
            f"{names[seat]}: {clan + tactic} in hand ({clan} clan, {tactic} tactic), "
            f"{seen.tactics_played[seat]} tactics played, discards: {' '.join(seen.discards[seat]) or '-'}"
        )
    if seen.seat is not None and seen.hand is not None:
        lines.append(f"{names[seen.seat]}'s hand: {' '.join(seen.hand) or '-'}")
    lines.append(f"decks: clan {seen.clan_deck}, tactic {seen.tactic_deck}")
    lines.append(f"{names[0]:>18} | stone | {names[1]}")
    lines += [_stone_line(s, stone) for s, stone in enumerate(seen.stones)]
    lines.append(_status(seen, names))
    return "\n".join(lines)


def _stone_line(s: int, stone: StoneView) -> str:
    marks = [" *" if stone.complete[seat] else "  " for seat in (0, 1)]
    owner = {0: f"<{s + 1} ", 1: f" {s + 1}>"}.get(stone.owner, f" {s + 1} ")
    modes = " ".join(stone.modes)
    left = " ".join(stone.cards[0]) + marks[0]
    return f"{left:>18} | {owner} {modes:<2}| {' '.join(stone.cards[1])}{marks[1]}".rstrip()


def _status(seen: View, names: tuple[str, str]) -> str:
    if seen.result is not None:
        winner = "a drawn match" if seen.result.winner is None else f"{names[seen.result.winner]} wins"
        return f"over: {winner}, {seen.result.scores[0]}-{seen.result.scores[1]}"
    held = f", holding {seen.held}" if seen.held else ""
    return f"to move: {names[seen.turn]} ({seen.phase}{held})"
