"""The search bot: information-set Monte Carlo tree search (single observer, ISMCTS).

One tree is grown over the information set of the seat to move. Each iteration
deals the cards that seat cannot see at random (``sample.Sampler``, R10), walks down
the tree choosing among the children legal in that deal by UCB1 with availability
counts, adds one child, plays the round out with a cheap greedy policy and credits
the result to every node on the way, each from the point of view of the seat that
made the move into it. The most visited action at the root is played.

Choices and simplifications:

- Claims are never searched: whoever is in a claim step takes every provable claim
  before ``done`` (R5 proofs are final, so claiming is never wrong). At the root a
  claim is answered at once, as is a decision with a single legal action.
- Progressive widening: a node offers only its best few plays, ranked by the
  playout policy, and more as it is visited (``WIDENING``), so that the budget goes
  to plausible moves rather than to every card on every stone.
- The search ends with the current round. In a one-round game, and in the last round
  of a match, the reward is the match result for the seat searching (win 1, draw 0.5,
  loss 0); in earlier rounds it is the round's points (R9.2): 0.5 plus a tenth of the
  points margin, so that the points the match is decided on count.
- Playouts: every claim is taken; a play is the one that keeps its side's reachable
  formation strongest (``_play_scores``, a greedy step over the cards not yet on the
  board), and one in ``1 / RANDOM_SHARE`` is random; other decisions are random.
- The budget is ``iterations`` (reproducible: the search's random numbers come from
  the seed and the view, so the same seed and view give the same action) or
  ``seconds`` per decision (both: whichever ends first; neither: ``DEFAULT_SECONDS``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from itertools import combinations

from ..engine import Action, GameState, Phase, parse_action
from ..engine.actions import CLAIM_BASE, DONE_ID
from ..engine.cards import NUM_CLAN, NUM_STONES, NUM_VALUES
from ..engine.formations import COLOUR_RUN, TRIPLE_STRENGTH, strength_of
from ..engine.view import View
from .sample import Sampler

DEFAULT_SECONDS = 0.2
"""The time per decision when no budget is given."""

EXPLORATION = 0.5
"""The UCB1 exploration constant (rewards lie in 0..1)."""

WIDENING = (1.0, 0.5)
"""Progressive widening ``(c, alpha)``: a node visited ``n`` times offers ``1 + c * n ** alpha`` plays."""

POINTS_WEIGHT = 0.0
"""In the match's last round, the weight of the round's points margin in the reward (the rest: winning)."""

CANDIDATES = 8
"""The most root actions searched: the playout policy's best, halved phase by phase (sequential halving)."""

RANDOM_SHARE = 0.1
"""The share of playout plays made uniformly at random rather than by the policy."""

AHEAD_BONUS = 80
"""Policy: bonus for a play after which its side can still beat the best the other side can reach."""

WIN_BONUS = 150
"""Policy: further bonus for completing a side that beats the best the other side can reach."""

TACTIC_SCORE = -40.0
"""Policy: the score of playing a tactic card, or a card on a stone with tactic cards (plus noise)."""

SPARE_SCORE = -1e6
"""Policy: the score of a play on a stone empty on both sides other than the one scored."""

_CLAIM = Phase.CLAIM
_PLAY = Phase.PLAY


class Node:
    """A node of the search tree: the statistics of the move that leads to it.

    ``mover`` made that move; ``reward`` sums the playout results from the mover's
    point of view; ``avail`` counts the visits of the parent in which the move was
    legal (ISMCTS availability).
    """

    __slots__ = ("avail", "children", "mover", "reward", "visits")

    def __init__(self, mover: int) -> None:
        self.mover = mover
        self.visits = 0
        self.avail = 1
        self.reward = 0.0
        self.children: dict[int, Node] = {}


class MctsBot:
    """Information-set MCTS over the engine, with a budget in iterations or seconds per decision."""

    def __init__(
        self,
        seed: int | None = None,
        seconds: float | None = None,
        iterations: int | None = None,
        exploration: float = EXPLORATION,
        widening: tuple[float, float] = WIDENING,
        candidates: int = CANDIDATES,
    ) -> None:
        self.name = "mcts"
        self.seed = seed if seed is not None else random.randrange(1 << 62)
        self.seconds = DEFAULT_SECONDS if seconds is None and iterations is None else seconds
        self.iterations = iterations
        self.exploration = exploration
        self.widening = widening
        self.candidates = candidates
        self.root = Node(0)
        """The last search's tree (for inspection)."""
        self.last_iterations = 0
        """The iterations the last search ran (0 when the answer needed no search)."""

    def choose(self, seen: View) -> Action:
        """The action to play in ``seen``: a claim if any, the only action, or the search's choice."""
        legal = [parse_action(text) for text in seen.legal]
        if not legal:
            raise ValueError("the view offers no decision to this seat")
        self.last_iterations = 0
        claim = next((a for a in legal if CLAIM_BASE <= a.id < DONE_ID), None)
        if claim is not None or len(legal) == 1:
            return claim or legal[0]
        return Action.from_id(self.search(seen))

    def search(self, seen: View) -> int:
        """Search ``seen`` within the budget; the id of the action found best."""
        if seen.seat is None:
            raise ValueError("the search needs a seat's view, not a spectator's")
        me = seen.seat
        rng = random.Random(f"{self.seed}/{seen!r}")
        sampler = Sampler(seen)
        budget = _Budget(self.iterations, self.seconds)
        self.root = root = Node(1 - me)
        if ROOT_PRIOR == "heuristic" and seen.phase == "PLAY":
            survivors = _heuristic_order(seen)[: self.candidates]
        else:
            survivors = _candidates(sampler.sample(rng), rng, self.candidates)
        for action in survivors:
            root.children[action] = Node(me)
        phases = max(1, math.ceil(math.log2(len(survivors))))
        while not budget.spent():
            target = budget.share(phases, len(survivors)) if budget.done else None
            rounds = 0
            while not budget.spent() and (target is None or rounds < target):
                self._batch(root, survivors, sampler.sample(rng), rng.getrandbits(32), me, budget)
                rounds += 1
                if target is None:
                    target = rounds + budget.share(phases, len(survivors))
            if phases > 1:
                phases -= 1
                ranked = sorted(survivors, key=lambda a: -_mean(root.children[a]))
                survivors = ranked[: (len(survivors) + 1) // 2]
        self.last_iterations = budget.done
        return max(survivors, key=lambda a: _mean(root.children[a]))

    def _batch(
        self, root: Node, actions: list[int], deal: GameState, seed: int, me: int, budget: _Budget
    ) -> None:
        """One iteration per action on the same deal and playout random numbers (paired comparisons)."""
        for action in actions:
            if budget.spent():
                return
            state = deal.copy()
            child = root.children[action]
            child.avail += 1
            state.apply_id(action)
            self._descend(child, state, random.Random(seed), me)
            budget.done += 1

    def _descend(self, start: Node, state: GameState, rng: random.Random, me: int) -> None:
        rounds_before = len(state.round_outcomes)
        node = start
        path = [start]
        c, alpha = self.widening
        while True:
            _take_claims(state)
            if len(state.round_outcomes) != rounds_before:
                break
            ids = state.legal_action_ids()
            children = node.children
            present = [a for a in ids if a in children]
            for a in present:
                children[a].avail += 1
            if len(present) < min(len(ids), 1 + c * node.visits**alpha):
                action = _best_untried(state, ids, children, rng)
                node = children[action] = Node(state.turn)
                state.apply_id(action)
                path.append(node)
                break
            action = _select(children, present, self.exploration)
            node = children[action]
            state.apply_id(action)
            path.append(node)
        reward = _playout(state, rng, me, rounds_before)
        for n in path:
            n.visits += 1
            n.reward += reward if n.mover == me else 1.0 - reward


class _Budget:
    """Iterations done and left: a fixed number, or as many as fit in the time (estimated as it goes)."""

    def __init__(self, iterations: int | None, seconds: float | None) -> None:
        self.iterations = iterations
        self.start = time.perf_counter()
        self.deadline = None if seconds is None else self.start + seconds
        self.done = 0

    def spent(self) -> bool:
        if self.iterations is not None and self.done >= self.iterations:
            return True
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def left(self) -> int:
        """The iterations still expected to fit in the budget."""
        left = None if self.iterations is None else self.iterations - self.done
        if self.deadline is not None:
            now = time.perf_counter()
            rate = self.done / (now - self.start) if self.done else 0.0
            by_time = int((self.deadline - now) * rate) if rate else 1 << 30
            left = by_time if left is None else min(left, by_time)
        assert left is not None
        return left

    def share(self, phases: int, actions: int) -> int:
        """Rounds of one iteration per action for this phase (the last phase takes all that is left)."""
        if phases <= 1:
            return 1 << 30
        return max(1, self.left() // (phases * actions))


ROOT_PRIOR = "policy"


def _heuristic_order(seen: View) -> list[int]:
    from .heuristic import Board, Judge, Policy

    policy = Policy(Judge(Board.of(seen)))
    actions = [parse_action(t) for t in seen.legal]
    scored = sorted(((policy.score(a), a.id) for a in actions), reverse=True)
    return [a for _, a in scored]


def _mean(node: Node) -> float:
    return node.reward / node.visits if node.visits else -1.0


def _candidates(state: GameState, rng: random.Random, most: int) -> list[int]:
    """The root actions worth searching, best first: the policy's top plays, else all (shuffled)."""
    ids = state.legal_action_ids()
    if state.phase == _PLAY:
        scores = _play_scores(state, ids, rng.random, aware=False)
        ids = [a for _, a in sorted(zip(scores, ids, strict=True), reverse=True)]
    else:
        rng.shuffle(ids)
    return ids[:most]


def _select(children: dict[int, Node], present: list[int], c: float) -> int:
    """UCB1 over the children legal here, with availability counts."""
    best, best_value = present[0], -1.0
    log, sqrt = math.log, math.sqrt
    for a in present:
        child = children[a]
        value = child.reward / child.visits + c * sqrt(log(child.avail) / child.visits)
        if value > best_value:
            best, best_value = a, value
    return best


def _best_untried(state: GameState, ids: list[int], children: dict[int, Node], rng: random.Random) -> int:
    """The untried action to add: the policy's favourite in the play step, else a random one."""
    untried = [a for a in ids if a not in children]
    if len(untried) == 1:
        return untried[0]
    if state.phase != _PLAY:
        return untried[rng.randrange(len(untried))]
    scores = _play_scores(state, untried, rng.random)
    return untried[max(range(len(untried)), key=scores.__getitem__)]


def _take_claims(state: GameState) -> None:
    """Take every claim of a claim step (the round may end on one, R6.1)."""
    while state.phase == _CLAIM:
        state.apply_id(CLAIM_BASE + state.claimable[0])


def _playout(state: GameState, rng: random.Random, me: int, rounds_before: int) -> float:
    """Play the round out with the playout policy, claiming whenever possible; the reward for ``me``."""
    outcomes = state.round_outcomes
    rand = rng.random
    while len(outcomes) == rounds_before:
        if state.phase == _CLAIM:
            state.apply_id(CLAIM_BASE + state.claimable[0])
            continue
        ids = state.legal_action_ids()
        if len(ids) > 1 and state.phase == _PLAY and rand() >= RANDOM_SHARE:
            scores = _play_scores(state, ids, rand)
            state.apply_id(ids[max(range(len(ids)), key=scores.__getitem__)])
        else:
            state.apply_id(ids[int(rand() * len(ids))])
    return _reward(state, me, rounds_before)


def _reward(state: GameState, me: int, round_index: int) -> float:
    """The value of the finished round ``round_index`` for ``me`` (see the module's notes)."""
    outcome = state.round_outcomes[round_index]
    margin = 0.5 + (outcome.points[me] - outcome.points[1 - me]) / 10
    if round_index + 1 >= state.settings.rounds:
        result = state.outcome
        assert result is not None
        won = 0.5 if result.winner is None else float(result.winner == me)
        return (1 - POINTS_WEIGHT) * won + POINTS_WEIGHT * margin
    return margin


# ---------------------------------------------------------------- the playout policy

_NUM_PLAYS = NUM_CLAN * NUM_STONES
_EMPTY_REACH = strength_of(COLOUR_RUN, 24)
_TIE_BREAK = [(card % NUM_VALUES) / 100 for card in range(NUM_CLAN)]


Pair = tuple[list[int], list[int], list[int]]
"""A two-card side's completions: strengths (strongest first), card masks per strength, strength by card."""

_SINGLES: list[tuple[list[int], list[int]] | None] = [None] * NUM_CLAN
_PAIRS: list[Pair | None] = [None] * (NUM_CLAN * NUM_CLAN)


def _single(card: int) -> tuple[list[int], list[int]]:
    """The completions of a side holding ``card``: strengths (strongest first) and the two cards' masks."""
    table = _SINGLES[card]
    if table is None:
        rest = [c for c in range(NUM_CLAN) if c != card]
        scored = sorted(
            (-TRIPLE_STRENGTH[tuple(sorted((card, a, b)))], (1 << a) | (1 << b))  # type: ignore[index]
            for a, b in combinations(rest, 2)
        )
        table = _SINGLES[card] = ([-s for s, _ in scored], [m for _, m in scored])
    return table


def _pair(x: int, y: int) -> Pair:
    """The completions of a side holding the clan cards ``x`` and ``y`` (see ``Pair``)."""
    table = _PAIRS[x * NUM_CLAN + y]
    if table is None:
        groups: dict[int, int] = {}
        by_card = [-1] * NUM_CLAN
        for c in range(NUM_CLAN):
            if c != x and c != y:
                strength = by_card[c] = TRIPLE_STRENGTH[tuple(sorted((x, y, c)))]  # type: ignore[index]
                groups[strength] = groups.get(strength, 0) | (1 << c)
        ordered = sorted(groups.items(), reverse=True)
        table = ([s for s, _ in ordered], [m for _, m in ordered], by_card)
        _PAIRS[x * NUM_CLAN + y] = _PAIRS[y * NUM_CLAN + x] = table
    return table


def _reach_single(card: int, pool: int) -> int:
    """The strongest formation a side holding ``card`` can reach from ``pool`` (-1: none)."""
    strengths, masks = _SINGLES[card] or _single(card)
    for i, m in enumerate(masks):
        if m & pool == m:
            return strengths[i]
    return -1


def _reach_pair(pair: Pair, pool: int) -> int:
    """The strongest formation a side holding a pair can reach from ``pool`` (-1: none)."""
    strengths, masks, _ = pair
    for i, m in enumerate(masks):
        if m & pool:
            return strengths[i]
    return -1


P_UNC = 0
LOST_FREE = 0.0


def _reach_single_u(card: int, pool: int, sure: int) -> int:
    """Like ``_reach_single``, each completing card not in ``sure`` costing ``P_UNC``."""
    strengths, masks = _SINGLES[card] or _single(card)
    best = -1 << 20
    for i, m in enumerate(masks):
        s = strengths[i]
        if s <= best:
            break
        if m & pool == m:
            value = s - P_UNC * (m & ~sure).bit_count()
            if value > best:
                best = value
    return best if best > -1 << 20 else -1


def _reach_pair_u(pair: Pair, pool: int, sure: int) -> int:
    """Like ``_reach_pair``, a completing card not in ``sure`` costing ``P_UNC``."""
    strengths, masks, _ = pair
    best = -1 << 20
    for i, m in enumerate(masks):
        s = strengths[i]
        if s <= best:
            break
        if m & sure:
            return s
        if m & pool and s - P_UNC > best:
            best = s - P_UNC
    return best if best > -1 << 20 else -1


def _reach_u(side: list[int], pool: int, sure: int) -> int:
    n = len(side)
    if n == 0:
        return _EMPTY_REACH - 3 * P_UNC
    if n == 1:
        return _reach_single_u(side[0], pool, sure)
    if n == 2:
        return _reach_pair_u(_pair(side[0], side[1]), pool, sure)
    return TRIPLE_STRENGTH[tuple(sorted(side))]  # type: ignore[index]


def _reach(side: list[int], pool: int) -> int:
    """The strongest three-card formation a side of clan cards can reach from ``pool`` (-1: none)."""
    n = len(side)
    if n == 0:
        return _EMPTY_REACH
    if n == 1:
        return _reach_single(side[0], pool)
    if n == 2:
        return _reach_pair(_pair(side[0], side[1]), pool)
    return TRIPLE_STRENGTH[tuple(sorted(side))]  # type: ignore[index]


Info = tuple[int, float, int, int, list[int] | None]
"""What the policy knows of a stone: cards on the mover's side, its reach and the other side's
reach, the side's card if it holds one, its completions by card if it holds two."""

_SPARE: Info = (-1, -1, -1, -1, None)
"""An empty stone, empty on both sides, other than the one scored: a play there is the same."""


def _stone_infos(
    state: GameState, pools: tuple[int, int], rand: Callable[[], float], sures: tuple[int, int] = (0, 0)
) -> list[Info | None]:
    """Per stone, the policy's ``Info`` for the seat to move; None for a stone closed to it, or with
    tactic cards or a combat mode. ``pools``: the cards each side can still hope for."""
    seat, owner, modes = state.turn, state.owner, state.modes
    pool, their_pool = pools
    mine, theirs = state.sides[seat], state.sides[1 - seat]
    tactics = state.settings.tactics
    infos: list[Info | None] = []
    blank = -1
    for stone in range(NUM_STONES):
        side, other = mine[stone], theirs[stone]
        n = len(side)
        if owner[stone] >= 0 or n >= 3 or modes[stone] or (tactics and _has_tactic(side, other)):
            infos.append(None)
        elif not side and not other:
            if blank < 0 or rand() < 0.5:
                blank = stone
            infos.append(_SPARE)
        else:
            pair = _pair(side[0], side[1]) if n == 2 else None
            if P_UNC:
                before = _reach_u(side, pool, sures[0]) - rand() * 0.01
                their = _reach_u(other, their_pool, sures[1])
            else:
                before = (_reach_pair(pair, pool) if pair else _reach(side, pool)) - rand() * 0.01
                their = _reach(other, their_pool)
            single = side[0] if n == 1 else -1
            infos.append((n, before, their, single, pair[2] if pair else None))
    if blank >= 0:
        empty = _EMPTY_REACH - 3 * P_UNC
        infos[blank] = (0, empty, empty, -1, None)
    return infos


def _has_tactic(side: list[int], other: list[int]) -> bool:
    return any(c >= NUM_CLAN for c in side) or any(c >= NUM_CLAN for c in other)


HAND_AWARE = True
KEY_LOSS = True


def _pools(state: GameState) -> tuple[int, int]:
    """The clan cards the seat to move and the other seat can still get: not on the board nor in the
    other's hand (in a determinized state both hands are known)."""
    hands = [0, 0]
    for seat in (0, 1):
        for card in state.hands[seat]:
            if card < NUM_CLAN:
                hands[seat] |= 1 << card
    seat = state.turn
    return state.pool & ~hands[1 - seat], state.pool & ~hands[seat]


def _sole_cards(state: GameState, pool: int) -> dict[int, list[tuple[int, int]]]:
    """Cards that alone give one of the mover's two-card sides its best formation: card ->
    ``(stone, how much that side's reach drops without it)``."""
    found: dict[int, list[tuple[int, int]]] = {}
    seat = state.turn
    for stone, side in enumerate(state.sides[seat]):
        if len(side) != 2 or state.owner[stone] >= 0 or state.modes[stone] or max(side) >= NUM_CLAN:
            continue
        strengths, masks, _ = _pair(side[0], side[1])
        for i, m in enumerate(masks):
            avail = m & pool
            if avail:
                if avail & (avail - 1) == 0:
                    rest = _reach_pair((strengths[i + 1 :], masks[i + 1 :], []), pool)
                    found.setdefault(avail.bit_length() - 1, []).append((stone, strengths[i] - rest))
                break
    return found


ADJ = 0.0


def _near(owner: list[int], seat: int) -> list[float]:
    """Per stone, ADJ times the neighbours the seat owns (R6.1: adjacent stones win)."""
    return [ADJ * ((s > 0 and owner[s - 1] == seat) + (s < NUM_STONES - 1 and owner[s + 1] == seat))
            for s in range(NUM_STONES)]


def _sures(state: GameState, aware: bool) -> tuple[int, int]:
    """The clan cards the mover, and the other seat, are sure to have: their hands (the other's only
    when ``aware``)."""
    masks = [0, 0]
    for seat in (0, 1):
        for card in state.hands[seat]:
            if card < NUM_CLAN:
                masks[seat] |= 1 << card
    seat = state.turn
    return masks[seat], masks[1 - seat] if aware else 0


def _play_scores(state: GameState, ids: list[int], rand: Callable[[], float], aware: bool = True) -> list[float]:
    """A greedy score for each play of ``ids`` (R4 strengths), for the seat to move.

    A clan card on a plain stone scores the change in the strongest formation its
    side can still reach from the cards not on the board, plus ``AHEAD_BONUS`` if
    that still beats the best the other side can reach there and ``WIN_BONUS`` if
    it completes such a side; ties go to higher cards, then at random. Tactic cards,
    and stones with tactic cards or combat modes, get ``TACTIC_SCORE`` plus noise.
    Of the stones empty on both sides only a random one is scored, the others get
    ``SPARE_SCORE`` (a play there is the same).
    """
    if POLICY == "chance":
        return _chance_scores(state, ids, rand, aware and HAND_AWARE)
    pools = _pools(state) if HAND_AWARE and aware else (state.pool, state.pool)
    pool = pools[0]
    sures = _sures(state, aware) if P_UNC else (0, 0)
    infos = _stone_infos(state, pools, rand, sures)
    singles: dict[int, int] = {}
    scores = []
    pairs = _PAIRS
    soles = _sole_cards(state, pool) if KEY_LOSS else {}
    near = _near(state.owner, state.turn) if ADJ else [0.0] * NUM_STONES
    theirs_sides = state.sides[1 - state.turn]
    for a in ids:
        if a >= _NUM_PLAYS:
            scores.append(TACTIC_SCORE + rand() * 40.0)
            continue
        card, stone = divmod(a, NUM_STONES)
        info = infos[stone]
        if info is None:
            scores.append(TACTIC_SCORE + rand() * 40.0)
            continue
        n, before, other, x, by_card = info
        if n < 0:
            scores.append(SPARE_SCORE)
            continue
        if n == 0:
            after = singles.get(card, -2)
            if after == -2:
                after = singles[card] = (
                    _reach_single_u(card, pool, sures[0]) if P_UNC else _reach_single(card, pool)
                )
        elif n == 1:
            pair = pairs[x * NUM_CLAN + card] or _pair(x, card)
            after = _reach_pair_u(pair, pool, sures[0]) if P_UNC else _reach_pair(pair, pool)
        else:
            after = by_card[card]  # type: ignore[index]
        if LOST_FREE and other > before and len(theirs_sides[stone]) == 3:
            score = LOST_FREE - _TIE_BREAK[card] * 10
        else:
            score = after - before + _TIE_BREAK[card]
        if after > other:
            score += AHEAD_BONUS + (WIN_BONUS if n == 2 else 0) + near[stone]
        if card in soles:
            score -= max((drop for s, drop in soles[card] if s != stone), default=0)
        scores.append(score)
    return scores


# ---------------------------------------------------------------- chance policy (experiment)

POLICY = "greedy"
SCALE = 25.0
_SPAN = 600
_LOGISTIC = [1.0 / (1.0 + math.exp(-d / SCALE)) for d in range(-_SPAN, _SPAN + 1)]
_VALUE_TIE = [-(card % NUM_VALUES) / 1000 for card in range(NUM_CLAN)]


def _chance(mine: int, complete: bool, theirs: int, their_complete: bool) -> float:
    """A rough chance that a side of reach ``mine`` wins against one of reach ``theirs``."""
    if mine < 0:
        return 0.0
    if their_complete:
        if complete or mine <= theirs:
            return 1.0 if complete and mine > theirs else 0.0
    elif complete and mine > theirs:
        return 1.0
    return _LOGISTIC[mine - theirs + _SPAN]


CInfo = tuple[int, float, int, bool, int, list[int] | None]


def _chance_infos(state: GameState, pools: tuple[int, int], rand: Callable[[], float]) -> list[CInfo | None]:
    seat, owner, modes = state.turn, state.owner, state.modes
    pool, their_pool = pools
    mine, theirs = state.sides[seat], state.sides[1 - seat]
    tactics = state.settings.tactics
    infos: list[CInfo | None] = []
    blank = -1
    for stone in range(NUM_STONES):
        side, other = mine[stone], theirs[stone]
        n = len(side)
        if owner[stone] >= 0 or n >= 3 or modes[stone] or (tactics and _has_tactic(side, other)):
            infos.append(None)
        elif not side and not other:
            if blank < 0 or rand() < 0.5:
                blank = stone
            infos.append(_CSPARE)
        else:
            pair = _pair(side[0], side[1]) if n == 2 else None
            before = _reach_pair(pair, pool) if pair else _reach(side, pool)
            their_complete = len(other) == 3
            their_reach = _reach(other, their_pool)
            chance = _chance(before, False, their_reach, their_complete) + rand() * 1e-4
            single = side[0] if n == 1 else -1
            infos.append((n, chance, their_reach, their_complete, single, pair[2] if pair else None))
    if blank >= 0:
        infos[blank] = (0, 0.5, _EMPTY_REACH, False, -1, None)
    return infos


_CSPARE: CInfo = (-1, 0.0, -1, False, -1, None)


def _chance_soles(state: GameState, pools: tuple[int, int]) -> dict[int, list[tuple[int, float]]]:
    found: dict[int, list[tuple[int, float]]] = {}
    seat = state.turn
    pool, their_pool = pools
    theirs = state.sides[1 - seat]
    for stone, side in enumerate(state.sides[seat]):
        if len(side) != 2 or state.owner[stone] >= 0 or state.modes[stone] or max(side) >= NUM_CLAN:
            continue
        other = theirs[stone]
        if other and max(other) >= NUM_CLAN:
            continue
        strengths, masks, _ = _pair(side[0], side[1])
        for i, m in enumerate(masks):
            avail = m & pool
            if avail:
                if avail & (avail - 1) == 0:
                    rest = _reach_pair((strengths[i + 1 :], masks[i + 1 :], []), pool)
                    their_reach, complete = _reach(other, their_pool), len(other) == 3
                    drop = _chance(strengths[i], False, their_reach, complete) - _chance(
                        rest, False, their_reach, complete)
                    found.setdefault(avail.bit_length() - 1, []).append((stone, drop))
                break
    return found


def _chance_scores(state: GameState, ids: list[int], rand: Callable[[], float], aware: bool) -> list[float]:
    pools = _pools(state) if aware else (state.pool, state.pool)
    pool = pools[0]
    infos = _chance_infos(state, pools, rand)
    soles = _chance_soles(state, pools)
    singles: dict[int, int] = {}
    scores = []
    pairs = _PAIRS
    for a in ids:
        if a >= _NUM_PLAYS:
            scores.append(CTACTIC + rand() * 0.1)
            continue
        card, stone = divmod(a, NUM_STONES)
        info = infos[stone]
        if info is None:
            scores.append(CTACTIC + rand() * 0.1)
            continue
        n, before, other, their_complete, x, by_card = info
        if n < 0:
            scores.append(-1e6)
            continue
        if n == 0:
            after = singles.get(card, -2)
            if after == -2:
                after = singles[card] = _reach_single(card, pool)
        elif n == 1:
            after = _reach_pair(pairs[x * NUM_CLAN + card] or _pair(x, card), pool)
        else:
            after = by_card[card]  # type: ignore[index]
        score = _chance(after, n == 2, other, their_complete) - before + _VALUE_TIE[card]
        if card in soles:
            score -= max((drop for s, drop in soles[card] if s != stone), default=0.0)
        scores.append(score)
    return scores


CTACTIC = -0.3
