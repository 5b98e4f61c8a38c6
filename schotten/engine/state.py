"""The game state and its rules: a whole match of one or more rounds (R2-R9).

A game is ``(settings, seed, actions)``: ``GameState.new(settings, seed)`` deals
the first round from the seed and ``apply`` plays actions one at a time. All
randomness comes from the seed (R2.4), so replaying the same actions reaches the
same state. ``apply`` checks legality and leaves the state unchanged on error;
``apply_id`` is the unchecked fast path used by search.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import StrEnum

from . import actions as A
from .actions import ACTIONS, Action, Kind
from .cards import (
    BANSHEE,
    BLUFF,
    JOKER,
    MODE_BLUFF,
    MODE_MUD,
    MUD,
    NUM_CLAN,
    NUM_STONES,
    STRATEGIST,
    TACTIC_DECK,
    TRAITOR,
)
from .errors import IllegalActionError, NotationError
from .explain import why_illegal
from .formations import TRIPLE_STRENGTH, beating_completion, side_strength
from .phases import Phase

ALL_CLAN = (1 << NUM_CLAN) - 1
VARIANTS = ("base", "tactics", "expert", "expert-base")
SEED_DIGITS = 100
"""The most digits a seed may have (R2.4: the deals are made from its text)."""

_STONES_OF: list[tuple[int, ...]] = [
    tuple(s for s in range(NUM_STONES) if mask >> s & 1) for mask in range(1 << NUM_STONES)
]
_PLAY_ROWS: list[list[tuple[int, ...]]] = [
    [tuple(A.play_id(card, s) for s in stones) for stones in _STONES_OF] for card in range(NUM_CLAN)
]
"""``_PLAY_ROWS[card][mask]``: the ids of playing a clan card on each stone of a mask."""


_PLAY, _CLAIM, _DRAW, _OVER, _RECRUIT_DRAW = (
    Phase.PLAY, Phase.CLAIM, Phase.DRAW, Phase.OVER, Phase.RECRUIT_DRAW,
)
_K_PLAY, _K_CLAIM, _K_DONE, _K_PASS, _K_DRAW = Kind.PLAY, Kind.CLAIM, Kind.DONE, Kind.PASS, Kind.DRAW


class Reason(StrEnum):
    """Why a round ended (R6); each value is the words records and views carry."""

    ADJACENT = "three adjacent stones"
    FIVE = "five stones"
    MORE_STONES = "more stones when play ran out"
    EQUAL_STONES = "equal stones when play ran out"
    FORFEIT = "forfeit"


@dataclass(frozen=True, slots=True)
class Settings:
    """What is agreed before a game: variant (R7, R8), rounds (R9.1), first player (R2.3)."""

    tactics: bool = False
    expert: bool = False
    rounds: int = 1
    first_player: int | None = None
    hand_size: int = field(init=False, repr=False, compare=False)
    """Cards in a full hand: 6, or 7 with tactics (R2.1, R7.1)."""

    def __post_init__(self) -> None:
        if not 1 <= self.rounds <= 99:
            raise ValueError(f"a match has 1 to 99 rounds, not {self.rounds}")
        if self.first_player not in (None, 0, 1):
            raise ValueError(f"the first player is seat 0 or 1, not {self.first_player}")
        object.__setattr__(self, "hand_size", 7 if self.tactics else 6)

    @property
    def variant(self) -> str:
        """The variant's name: base, tactics, expert (with tactics) or expert-base."""
        if self.expert:
            return "expert" if self.tactics else "expert-base"
        return "tactics" if self.tactics else "base"

    @staticmethod
    def of(variant: str, rounds: int = 1, first_player: int | None = None) -> Settings:
        """Settings for a named variant (see ``VARIANTS``)."""
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}: choose one of {', '.join(VARIANTS)}")
        tactics = variant in ("tactics", "expert")
        return Settings(tactics, variant.startswith("expert"), rounds, first_player)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a round ended: the winner (None for a draw), why, and who holds each stone."""

    winner: int | None
    reason: Reason
    stones: tuple[int | None, ...]
    points: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Board:
    """The cards on the board when a round ended: ``sides[stone][seat]`` in play order, and
    each stone's combat-mode bits (so the final board can be shown after the next deal)."""

    sides: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    modes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How the whole game ended (R9.3): the winner or None, the points, each round's outcome."""

    winner: int | None
    scores: tuple[int, int]
    rounds: tuple[Outcome, ...]


class GameState:
    """A match in progress: the table, the hands, the decks, whose decision it is.

    Seats are 0 and 1. ``sides[seat][stone]`` lists the cards on that seat's side
    of a stone in the order played; ``owner[stone]`` is the seat that claimed it
    or -1; ``modes[stone]`` holds MODE_BLUFF / MODE_MUD bits. Decks are drawn from
    their end. ``pool`` is the mask of clan cards not on the board nor discarded
    (the cards R5.2 lets the opponent still hope for). ``movers[i]`` is the seat that
    made ``history[i]``; ``round_starts`` the index in the history where each round
    began. ``returned_by[deck]`` lists, bottom up, which seat put each of the bottom
    cards of that deck there with the Recruiter (only cards still in the deck).
    ``last_draw`` is the index in the history of the last move that took a card from a
    deck (-1: none yet); ``round_boards[i]`` the board as round ``i`` ended (a state read
    from a position has none for the rounds before it).
    """

    __slots__ = (
        "_refuted",
        "_versions",
        "claimable",
        "clan_deck",
        "clock",
        "discards",
        "first",
        "forfeited",
        "hands",
        "held",
        "held_from",
        "history",
        "last_draw",
        "modes",
        "movers",
        "outcome",
        "owner",
        "passes",
        "phase",
        "pool",
        "recruit_draws",
        "recruit_returns",
        "returned_by",
        "round",
        "round_boards",
        "round_outcomes",
        "round_starts",
        "rounds_won",
        "scores",
        "seed",
        "settings",
        "sides",
        "stamps",
        "tactic_deck",
        "tactics_played",
        "turn",
    )

    settings: Settings
    seed: int
    round: int
    first: int
    turn: int
    phase: Phase
    hands: list[list[int]]
    sides: list[list[list[int]]]
    stamps: list[list[int]]
    modes: list[int]
    owner: list[int]
    clan_deck: list[int]
    tactic_deck: list[int]
    discards: list[list[int]]
    tactics_played: list[int]
    passes: int
    clock: int
    pool: int
    held: int
    held_from: int
    recruit_draws: int
    recruit_returns: int
    returned_by: list[list[int]]
    claimable: list[int]
    history: list[int]
    movers: list[int]
    round_starts: list[int]
    scores: list[int]
    rounds_won: list[int]
    round_outcomes: list[Outcome]
    round_boards: list[Board]
    last_draw: int
    outcome: MatchResult | None
    forfeited: tuple[int, str] | None
    _versions: list[int]
    _refuted: list[tuple[int, int] | None]

    @classmethod
    def new(cls, settings: Settings | None = None, seed: int = 0) -> GameState:
        """A new game: the first round dealt from ``seed`` (R2); ValueError for a seed that is not
        a whole number of at most ``SEED_DIGITS`` digits."""
        if not isinstance(seed, int) or isinstance(seed, bool) or abs(seed) >= 10**SEED_DIGITS:
            raise ValueError(f"a seed is a whole number of at most {SEED_DIGITS} digits")
        state = cls.__new__(cls)
        state.settings = settings or Settings()
        state.seed = seed
        state.history = []
        state.movers = []
        state.round_starts = []
        state.scores = [0, 0]
        state.rounds_won = [0, 0]
        state.round_outcomes = []
        state.round_boards = []
        state.last_draw = -1
        state.outcome = None
        state.forfeited = None
        if state.settings.first_player is None:
            state.first = random.Random(f"{seed}/first").randrange(2)
        else:
            state.first = state.settings.first_player
        state._deal(0)
        return state

    def _deal(self, round_index: int) -> None:
        rng = random.Random(f"{self.seed}/round/{round_index}")
        self.round = round_index
        first = self.first if round_index % 2 == 0 else 1 - self.first
        self.clan_deck = list(range(NUM_CLAN))
        rng.shuffle(self.clan_deck)
        self.tactic_deck = list(TACTIC_DECK) if self.settings.tactics else []
        rng.shuffle(self.tactic_deck)
        size = self.settings.hand_size
        self.hands = [[], []]
        for _ in range(size):
            for seat in (first, 1 - first):
                self.hands[seat].append(self.clan_deck.pop())
        self.sides = [[[] for _ in range(NUM_STONES)] for _ in range(2)]
        self.stamps = [[-1] * NUM_STONES for _ in range(2)]
        self.modes = [0] * NUM_STONES
        self.owner = [-1] * NUM_STONES
        self.discards = [[], []]
        self.tactics_played = [0, 0]
        self.passes = 0
        self.clock = 0
        self.pool = ALL_CLAN
        self.held = -1
        self.held_from = -1
        self.recruit_draws = 0
        self.recruit_returns = 0
        self.returned_by = [[], []]
        self.round_starts.append(len(self.history))
        self.claimable = []
        self._versions = [0] * NUM_STONES
        self._refuted = [None] * (2 * NUM_STONES)
        self.turn = first
        self._start_turn()

    def copy(self) -> GameState:
        """An independent copy (fast: for search)."""
        other = GameState.__new__(GameState)
        other.settings = self.settings
        other.seed = self.seed
        other.round = self.round
        other.first = self.first
        other.turn = self.turn
        other.phase = self.phase
        other.hands = [self.hands[0][:], self.hands[1][:]]
        other.sides = [[s[:] for s in self.sides[0]], [s[:] for s in self.sides[1]]]
        other.stamps = [self.stamps[0][:], self.stamps[1][:]]
        other.modes = self.modes[:]
        other.owner = self.owner[:]
        other.clan_deck = self.clan_deck[:]
        other.tactic_deck = self.tactic_deck[:]
        other.discards = [self.discards[0][:], self.discards[1][:]]
        other.tactics_played = self.tactics_played[:]
        other.passes = self.passes
        other.clock = self.clock
        other.pool = self.pool
        other.held = self.held
        other.held_from = self.held_from
        other.recruit_draws = self.recruit_draws
        other.recruit_returns = self.recruit_returns
        other.returned_by = [self.returned_by[0][:], self.returned_by[1][:]]
        other.claimable = self.claimable[:]
        other.history = self.history[:]
        other.movers = self.movers[:]
        other.round_starts = self.round_starts[:]
        other.scores = self.scores[:]
        other.rounds_won = self.rounds_won[:]
        other.round_outcomes = self.round_outcomes[:]
        other.round_boards = self.round_boards[:]
        other.last_draw = self.last_draw
        other.outcome = self.outcome
        other.forfeited = self.forfeited
        other._versions = self._versions[:]
        other._refuted = self._refuted[:]
        return other

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        """Whether the whole game (every round) has ended."""
        return self.phase == _OVER

    def known_under(self, seat: int) -> list[list[tuple[int, int]]]:
        """For each deck, ``(position from the bottom, card)`` of the cards ``seat`` put there
        with the Recruiter that are still in it (R10.2)."""
        decks = (self.clan_deck, self.tactic_deck)
        return [
            [(i, decks[d][i]) for i, who in enumerate(self.returned_by[d]) if who == seat] for d in (0, 1)
        ]

    @property
    def bottom_known(self) -> list[list[int]]:
        """For each seat, the cards it put under the decks that are still there (R10.2)."""
        return [[card for deck in self.known_under(seat) for _, card in deck] for seat in (0, 1)]

    @property
    def draw_is_forced(self) -> bool:
        """Whether a card played now would be followed by a draw with no choice of deck (R3.4):
        the hand would be short of the hand size and exactly one deck has cards."""
        short = len(self.hands[self.turn]) - 1 < self.settings.hand_size
        return self.phase == _PLAY and short and bool(self.clan_deck) != bool(self.tactic_deck)

    def round_of_move(self, index: int) -> int:
        """The round (0-based) in which the move ``history[index]`` was made."""
        return sum(1 for start in self.round_starts if start <= index) - 1

    def capacity(self, stone: int) -> int:
        """Cards a side of ``stone`` holds when complete: 3, or 4 under Mud Fight (R7.5)."""
        return 4 if self.modes[stone] & MODE_MUD else 3

    def is_complete(self, seat: int, stone: int) -> bool:
        """Whether ``seat``'s side of ``stone`` holds all its cards (R4)."""
        return len(self.sides[seat][stone]) == self.capacity(stone)

    def strength(self, seat: int, stone: int) -> int:
        """The strength of a complete side (formations.strength_of), troops at their best."""
        side = self.sides[seat][stone]
        mode = self.modes[stone]
        if not mode and len(side) == 3 and max(side) < NUM_CLAN:
            return TRIPLE_STRENGTH[tuple(sorted(side))]  # type: ignore[index]
        return side_strength(tuple(sorted(side)), 4 if mode & MODE_MUD else 3, bool(mode & MODE_BLUFF))

    def beats(self, seat: int, stone: int) -> bool:
        """Whether ``seat``'s complete side beats the opponent's complete side (R4.6, R5.1)."""
        mine, theirs = self.strength(seat, stone), self.strength(1 - seat, stone)
        if mine != theirs:
            return mine > theirs
        return self.stamps[seat][stone] < self.stamps[1 - seat][stone]

    def can_claim(self, seat: int, stone: int) -> bool:
        """Whether ``seat`` may claim ``stone`` now by R5 (ignoring whose turn it is)."""
        if self.owner[stone] >= 0 or not self.is_complete(seat, stone):
            return False
        return self._provable(seat, stone)

    def _provable(self, seat: int, stone: int) -> bool:
        """R5.1/R5.2 for an unclaimed stone on which ``seat``'s side is complete."""
        refuted = self._refuted[seat * NUM_STONES + stone]
        if refuted and refuted[0] == self._versions[stone] and not refuted[1] & ~self.pool:
            return False
        return self._prove(seat, stone)

    def _prove(self, seat: int, stone: int) -> bool:
        """Decide R5.1/R5.2 afresh and remember a refusal.

        A refusal is remembered with the unseen cards that refute it (none when the
        opponent's complete side wins): it stands while the stone is unchanged and
        those cards are still unseen.
        """
        theirs = self.sides[1 - seat][stone]
        mode = self.modes[stone]
        if len(theirs) == (4 if mode & MODE_MUD else 3):
            needed = -1 if self.beats(seat, stone) else 0
        else:
            needed = beating_completion(
                tuple(c for c in theirs if c < NUM_CLAN),
                tuple(c for c in theirs if c >= NUM_CLAN),
                4 if mode & MODE_MUD else 3,
                bool(mode & MODE_BLUFF),
                self.pool,
                self.strength(seat, stone),
            )
        if needed < 0:
            return True
        self._refuted[seat * NUM_STONES + stone] = (self._versions[stone], needed)
        return False

    def claimable_stones(self, seat: int) -> list[int]:
        """Every stone ``seat`` may claim now."""
        mine, owner, modes, versions = self.sides[seat], self.owner, self.modes, self._versions
        refuted, blocked, base = self._refuted, ~self.pool, seat * NUM_STONES
        stones = []
        for s in range(NUM_STONES):
            if owner[s] >= 0 or len(mine[s]) != (4 if modes[s] & MODE_MUD else 3):
                continue
            known = refuted[base + s]
            if known and known[0] == versions[s] and not known[1] & blocked:
                continue
            if self._prove(seat, s):
                stones.append(s)
        return stones

    def legal_action_ids(self) -> list[int]:
        """The ids of every legal action for the player to move."""
        phase = self.phase
        if phase == _PLAY:
            return self._play_ids()
        if phase == _CLAIM:
            return [A.CLAIM_BASE + s for s in self.claimable] + [A.DONE_ID]
        if phase in (_DRAW, _RECRUIT_DRAW):
            return [A.DRAW_BASE, A.DRAW_BASE + 1]
        return self._ruse_ids(phase)

    def legal_actions(self) -> list[Action]:
        """Every legal action for the player to move."""
        table = A.ACTIONS
        return [table[i] for i in self.legal_action_ids()]

    def _open_mask(self, seat: int) -> int:
        """Bit ``s`` set for each unclaimed stone whose side for ``seat`` has room (R3.1)."""
        side, owner, modes = self.sides[seat], self.owner, self.modes
        mask = 0
        for s in range(NUM_STONES):
            if owner[s] < 0 and len(side[s]) < (4 if modes[s] & MODE_MUD else 3):
                mask |= 1 << s
        return mask

    def _open_stones(self, seat: int) -> list[int]:
        return list(_STONES_OF[self._open_mask(seat)])

    def _play_ids(self) -> list[int]:
        seat = self.turn
        hand = self.hands[seat]
        open_mask = self._open_mask(seat)
        cards = sorted(set(hand))
        ids: list[int] = []
        for card in cards:
            if card < NUM_CLAN:
                ids += _PLAY_ROWS[card][open_mask]
        tactic_ok = self.tactics_played[seat] <= self.tactics_played[1 - seat]
        if cards and cards[-1] >= NUM_CLAN and tactic_ok:
            open_stones = list(_STONES_OF[open_mask])
            for card in cards:
                if card >= NUM_CLAN:
                    ids.extend(self._tactic_ids(seat, card, open_stones))
        return ids or [A.PASS_ID]

    def _tactic_ids(self, seat: int, card: int, open_stones: list[int]) -> list[int]:
        if card <= MUD:
            if card == JOKER and any(JOKER in side for side in self.sides[seat]):
                return []
            if card >= BLUFF:
                mode = MODE_BLUFF if card == BLUFF else MODE_MUD
                stones = [s for s in range(NUM_STONES) if self.owner[s] < 0 and not self.modes[s] & mode]
            else:
                stones = open_stones
            return [card * NUM_STONES + s for s in stones]
        return [A.ruse_id(card)] if self._ruse_has_target(seat, card, open_stones) else []

    def _ruse_has_target(self, seat: int, card: int, open_stones: list[int]) -> bool:
        unclaimed = [s for s in range(NUM_STONES) if self.owner[s] < 0]
        mine, theirs = self.sides[seat], self.sides[1 - seat]
        if card == STRATEGIST:
            return any(mine[s] for s in unclaimed)
        if card == BANSHEE:
            return any(theirs[s] for s in unclaimed)
        if card == TRAITOR:
            return bool(open_stones) and any(c < NUM_CLAN for s in unclaimed for c in theirs[s])
        return bool(self.clan_deck or self.tactic_deck)

    def _ruse_ids(self, phase: Phase) -> list[int]:
        seat = self.turn
        unclaimed = [s for s in range(NUM_STONES) if self.owner[s] < 0]
        if phase == Phase.STRATEGIST_TAKE:
            return [A.take_id(c, s) for s in unclaimed for c in self.sides[seat][s]]
        if phase == Phase.TRAITOR_TAKE:
            return [A.take_id(c, s) for s in unclaimed for c in self.sides[1 - seat][s] if c < NUM_CLAN]
        if phase == Phase.BANSHEE:
            return [A.banish_id(c, s) for s in unclaimed for c in self.sides[1 - seat][s]]
        if phase == Phase.STRATEGIST_PLACE:
            targets = [s for s in self._open_stones(seat) if s != self.held_from]
            return [A.place_id(s) for s in targets] + [A.DISCARD_ID]
        if phase == Phase.TRAITOR_PLACE:
            return [A.place_id(s) for s in self._open_stones(seat)]
        if phase == Phase.RECRUIT_RETURN:
            return [A.return_id(c) for c in sorted(set(self.hands[seat]))]
        return []

    # ------------------------------------------------------------------ applying

    def apply(self, action: Action | str) -> None:
        """Play ``action`` (an Action or its notation) after checking that it is legal.

        Raises NotationError for malformed text and IllegalActionError, naming why,
        for an action the rules do not allow now; the state is then unchanged.
        """
        if isinstance(action, str):
            action = A.parse_action(action)
        elif not isinstance(action, Action):
            raise NotationError(f"an action is an Action or its notation, not {action!r}")
        if action.id not in self.legal_action_ids():
            raise IllegalActionError(self.why_illegal(action))
        self.apply_id(action.id)

    def why_illegal(self, action: Action) -> str:
        """A sentence saying why ``action`` is not legal now (see ``explain.why_illegal``)."""
        return why_illegal(self, action)

    def apply_id(self, action_id: int) -> None:
        """Play the action of this id without checking it (the fast path for search)."""
        self.history.append(action_id)
        self.movers.append(self.turn)
        action = ACTIONS[action_id]
        kind = action.kind
        if kind == _K_PLAY:
            self._play(action.card, action.stone)
        elif kind == _K_CLAIM:
            self._claim(action.stone)
        elif kind == _K_DONE:
            self._claims_done()
        elif kind == _K_PASS:
            self.passes += 1
            self._after_play()
        elif kind == _K_DRAW:
            self._draw_choice(action.card)
        else:
            self._ruse_step(action)

    def _place(self, seat: int, card: int, stone: int) -> None:
        side = self.sides[seat][stone]
        side.append(card)
        self._versions[stone] += 1
        if len(side) == (4 if self.modes[stone] & MODE_MUD else 3):
            self.clock += 1
            self.stamps[seat][stone] = self.clock

    def _remove(self, seat: int, card: int, stone: int) -> None:
        self.sides[seat][stone].remove(card)
        self.stamps[seat][stone] = -1
        self._versions[stone] += 1

    def _play(self, card: int, stone: int) -> None:
        seat = self.turn
        self.hands[seat].remove(card)
        self.passes = 0
        if card < NUM_CLAN:
            self.pool &= ~(1 << card)
            self._place(seat, card, stone)
        else:
            self.tactics_played[seat] += 1
            if card >= BLUFF:
                self._set_mode(stone, MODE_BLUFF if card == BLUFF else MODE_MUD)
            else:
                self._place(seat, card, stone)
        self._after_play()

    def _set_mode(self, stone: int, mode: int) -> None:
        self.modes[stone] |= mode
        self._versions[stone] += 1
        if mode == MODE_MUD:
            self.stamps[0][stone] = self.stamps[1][stone] = -1

    def _after_play(self) -> None:
        if not self.settings.expert:
            self.claimable = self.claimable_stones(self.turn)
            if self.claimable:
                self.phase = _CLAIM
                return
        self._draw_step()

    def _claim(self, stone: int) -> None:
        seat = self.turn
        self.owner[stone] = seat
        self.claimable.remove(stone)
        reason = self._breakthrough(seat)
        if reason is not None:
            self._end_round(seat, reason)
        elif not self.claimable:
            self._claims_done()

    def _claims_done(self) -> None:
        self.claimable = []
        if self.settings.expert:
            self.phase = _PLAY
        else:
            self._draw_step()

    def _breakthrough(self, seat: int) -> Reason | None:
        owned = [o == seat for o in self.owner]
        if any(owned[s] and owned[s + 1] and owned[s + 2] for s in range(NUM_STONES - 2)):
            return Reason.ADJACENT
        if sum(owned) >= 5:
            return Reason.FIVE
        return None

    def _draw_step(self) -> None:
        hand = self.hands[self.turn]
        if len(hand) < self.settings.hand_size:
            if self.clan_deck and self.tactic_deck:
                self.phase = _DRAW
                return
            if self.clan_deck or self.tactic_deck:
                self._draw(A.CLAN_DECK if self.clan_deck else A.TACTIC_DECK)
        self._end_turn()

    def _draw(self, deck: int) -> None:
        source = self.clan_deck if deck == A.CLAN_DECK else self.tactic_deck
        self.hands[self.turn].append(source.pop())
        self.last_draw = len(self.history) - 1
        self.passes = 0
        if len(source) < len(self.returned_by[deck]):
            self.returned_by[deck].pop()

    def _draw_choice(self, deck: int) -> None:
        self._draw(deck)
        if self.phase == _RECRUIT_DRAW:
            self.recruit_draws -= 1
            self._recruit_continue()
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        if self.passes >= 2:
            self._settle()
            return
        self.turn = 1 - self.turn
        self._start_turn()

    def _start_turn(self) -> None:
        self.phase = _PLAY
        if self.settings.expert:
            self.claimable = self.claimable_stones(self.turn)
            if self.claimable:
                self.phase = _CLAIM

    # ------------------------------------------------------------------ ruses

    def _ruse_step(self, action: Action) -> None:
        kind, seat = action.kind, self.turn
        if kind == Kind.RUSE:
            self._start_ruse(action.card)
        elif kind == Kind.TAKE:
            owner = seat if self.phase == Phase.STRATEGIST_TAKE else 1 - seat
            self._remove(owner, action.card, action.stone)
            self.held, self.held_from = action.card, action.stone
            self.phase = (
                Phase.STRATEGIST_PLACE if self.phase == Phase.STRATEGIST_TAKE else Phase.TRAITOR_PLACE
            )
        elif kind == Kind.PLACE:
            self._place(seat, self.held, action.stone)
            self._drop_held()
        elif kind == Kind.DISCARD:
            self.discards[seat].append(self.held)
            self._drop_held()
        elif kind == Kind.BANISH:
            self._remove(1 - seat, action.card, action.stone)
            self.discards[1 - seat].append(action.card)
            self._after_play()
        elif kind == Kind.RETURN:
            self._return(action.card)

    def _drop_held(self) -> None:
        self.held = self.held_from = -1
        self._after_play()

    def _start_ruse(self, card: int) -> None:
        seat = self.turn
        self.hands[seat].remove(card)
        self.tactics_played[seat] += 1
        self.discards[seat].append(card)
        self.passes = 0
        if card == STRATEGIST:
            self.phase = Phase.STRATEGIST_TAKE
        elif card == BANSHEE:
            self.phase = Phase.BANSHEE
        elif card == TRAITOR:
            self.phase = Phase.TRAITOR_TAKE
        else:
            self.phase = Phase.RECRUIT_DRAW
            self.recruit_draws = 3
            self._recruit_continue()

    def _recruit_continue(self) -> None:
        while self.recruit_draws > 0 and (self.clan_deck or self.tactic_deck):
            if self.clan_deck and self.tactic_deck:
                return
            self._draw(A.CLAN_DECK if self.clan_deck else A.TACTIC_DECK)
            self.recruit_draws -= 1
        self.recruit_draws = 0
        self.recruit_returns = min(2, len(self.hands[self.turn]))
        self.phase = Phase.RECRUIT_RETURN
        if self.recruit_returns == 0:
            self._after_play()

    def _return(self, card: int) -> None:
        seat = self.turn
        self.hands[seat].remove(card)
        deck = A.CLAN_DECK if card < NUM_CLAN else A.TACTIC_DECK
        (self.clan_deck if card < NUM_CLAN else self.tactic_deck).insert(0, card)
        self.returned_by[deck].insert(0, seat)
        self.recruit_returns -= 1
        if self.recruit_returns == 0:
            self._after_play()

    # ------------------------------------------------------------------ end of a round

    def _settle(self) -> None:
        """R6.2: nothing can change any more; settle each stone as it stands."""
        for stone in range(NUM_STONES):
            if self.owner[stone] >= 0:
                continue
            complete = [self.is_complete(seat, stone) for seat in (0, 1)]
            if complete[0] and complete[1]:
                self.owner[stone] = 0 if self.beats(0, stone) else 1
            elif complete[0] != complete[1]:
                self.owner[stone] = 0 if complete[0] else 1
        breaks = [self._breakthrough(seat) for seat in (0, 1)]
        for seat, reason in enumerate(breaks):
            if reason is not None and breaks[1 - seat] is None:
                self._end_round(seat, reason)
                return
        counts = [self.owner.count(seat) for seat in (0, 1)]
        if counts[0] == counts[1]:
            self._end_round(None, Reason.EQUAL_STONES)
        else:
            self._end_round(0 if counts[0] > counts[1] else 1, Reason.MORE_STONES)

    def _end_round(self, winner: int | None, reason: Reason) -> None:
        stones = tuple(o if o >= 0 else None for o in self.owner)
        points = [self.owner.count(seat) for seat in (0, 1)]
        if winner is not None:
            points[winner] = 5
            self.rounds_won[winner] += 1
        self.scores = [self.scores[0] + points[0], self.scores[1] + points[1]]
        self.round_outcomes.append(Outcome(winner, reason, stones, (points[0], points[1])))
        self.round_boards.append(self._board())
        self.claimable = []
        if self.round + 1 < self.settings.rounds:
            self._deal(self.round + 1)
            return
        self.phase = Phase.OVER
        self.outcome = MatchResult(
            self._match_winner(), (self.scores[0], self.scores[1]), tuple(self.round_outcomes)
        )

    def forfeit(self, seat: int, reason: str) -> None:
        """End the game at once, lost by ``seat`` (a resignation, or a bot's bad or missing answer).

        The current round goes to the opponent (5 points, R9.2) and so does the match,
        whatever the points; ``forfeited`` keeps the seat and the reason.
        """
        if self.phase == _OVER:
            raise IllegalActionError("the game is over: it cannot be forfeited")
        if seat not in (0, 1):
            raise ValueError(f"a seat is 0 or 1, not {seat!r}")
        self.forfeited = (seat, reason)
        winner = 1 - seat
        points = [self.owner.count(s) for s in (0, 1)]
        points[winner] = 5
        self.rounds_won[winner] += 1
        self.scores = [self.scores[0] + points[0], self.scores[1] + points[1]]
        stones = tuple(o if o >= 0 else None for o in self.owner)
        self.round_outcomes.append(Outcome(winner, Reason.FORFEIT, stones, (points[0], points[1])))
        self.round_boards.append(self._board())
        self.claimable = []
        self.phase = _OVER
        self.outcome = MatchResult(winner, (self.scores[0], self.scores[1]), tuple(self.round_outcomes))

    def _board(self) -> Board:
        """The board as it stands: each stone's cards on both sides and its combat modes."""
        sides = tuple((tuple(self.sides[0][s]), tuple(self.sides[1][s])) for s in range(NUM_STONES))
        return Board(sides, tuple(self.modes))

    def _match_winner(self) -> int | None:
        for measure in (self.scores, self.rounds_won):
            if measure[0] != measure[1]:
                return 0 if measure[0] > measure[1] else 1
        return None

    # ------------------------------------------------------------------ helpers

    def play(self, *actions: str) -> GameState:
        """Apply several actions in notation, checked, and return self (for tests and examples)."""
        for text in actions:
            self.apply(text)
        return self

    def __repr__(self) -> str:
        return (
            f"<GameState {self.settings.variant} seed={self.seed} round={self.round + 1} "
            f"turn={self.turn} phase={self.phase.name} moves={len(self.history)}>"
        )

