"""The search bot: information-set Monte Carlo tree search (single observer, ISMCTS).

The bot searches the information set of the seat to move: every iteration deals the
cards that seat cannot see at random (``sample.Sampler``, R10), so the search never
reads the real opponent hand or deck order. Below the root the tree is ISMCTS: a
node's children are the moves made there in any deal; an iteration chooses among the
children legal in its deal by UCB1 with availability counts, adds one child, plays
the round out with a cheap greedy policy and credits the result to every node on
the way, each from the point of view of the seat that made the move into it.

At the root, candidate actions are compared by sequential halving: the heuristic
bot's best ``FAVOURITES`` actions (the bot of the search's *anchor*: a heuristic bot
that counts on more of its draws, ``ANCHOR_DRAW_SHARE``, and weighs stones by their
effect on the round's chance) and the policy's best actions, ``CANDIDATES`` in all,
get the same number of iterations, the worse half is dropped (never the anchor, the
heuristic's first choice), and so on until two remain, which share what is left of
the budget. Each batch of iterations uses one deal and one stream of playout random
numbers for every candidate still in, so candidates are compared on the same cards
(paired comparisons), which takes most of the luck of the deal out of the comparison.
A candidate's value is its mean result less the anchor's, plus ``PRIOR_WEIGHT`` times
its heuristic score less the anchor's: an action the heuristic rates close to its
choice overrules it on a little evidence from the playouts, one it rates far lower
only on much. (Playouts judge moves as greedy players would follow them up; against
the heuristic bot, weighing the heuristic's scores in measured better than a fixed
margin, which measured better than always trusting the playouts.)

Choices and simplifications:

- Claims are never searched: whoever is in a claim step takes every provable claim
  before ``done`` (R5 proofs are final, so claiming is never wrong). At the root a
  claim is answered at once, as is a decision with a single legal action.
- Progressive widening below the root: a node offers only its best few moves, ranked
  by the policy, and more as it is visited (``WIDENING``).
- The search ends with the current round. In a one-round game, and in the last round
  of a match, the reward is the match result for the seat searching (win 1, draw 0.5,
  loss 0); in earlier rounds it is the round's points (R9.2): 0.5 plus a tenth of the
  points margin, so that the points the match is decided on count.
- The policy (``policy.play_scores``) is a greedy step: a clan card goes where the
  strongest formation its side can still reach (R4) suffers least, with bonuses for
  staying ahead of the other side and for completing a winning side, and a cost for
  spending a card another side of ours needs. In playouts both seats know the deal,
  so each counts only the cards it can still get (its hand and the deck); it plays
  one of the plays scoring within ``NEAR_BEST`` of the best, a random play one time
  in ``1 / RANDOM_SHARE``. Tactic cards and the other decisions (ruse steps, deck
  choices, Recruiter returns) are random in playouts and searched in the tree.
- The budget is ``iterations`` (reproducible: the search's random numbers come from
  the seed and the view, so the same seed and view give the same action) or
  ``seconds`` per decision (both: whichever ends first; neither: ``DEFAULT_SECONDS``).
  ``MctsBot(anchor=False)`` searches without the heuristic bot.
- ``MctsBot(read=True)`` (the bot ``mcts-read``) weighs its deals by how well they explain
  the opponent's plays this round (``reading.Reader``, sampling-importance-resampling among
  ``READ_TRIES`` deals a batch); the default deals uniformly.
- ``MctsBot(valued=True)`` (the bot ``mcts-value``) cuts each playout after ``CUT_PLIES`` plays
  and scores the position reached by the learned value (``value.value``, the searching seat's
  chance of winning the round from its view of the deal); a round over before that scores as usual.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from ..engine import Action, GameState, Phase
from ..engine.actions import CLAIM_BASE
from ..engine.view import View
from .heuristic import HeuristicBot
from .policy import play_scores
from .reading import Reader
from .sample import Sampler
from .simple import forced_action, legal_of
from .value import value as learned_value

DEFAULT_SECONDS = 0.2
"""The time per decision when no budget is given."""

CANDIDATES = 8
"""The most root actions compared (the heuristic's favourites and the policy's best), halved by phases."""

FAVOURITES = 4
"""How many of the anchor's best-scoring actions are among the root candidates."""

PRIOR_WEIGHT = 5.0
"""How much a candidate's heuristic score counts beside its mean result (both less the anchor's)."""

ANCHOR_DRAW_SHARE = 0.9
"""The anchor is a heuristic bot counting on this share of its draws rather than its default 0.5
(tuned by self-play: 57.8% against the default over 400 base games)."""

READ_TRIES = 8
"""With ``read``: each batch's deal is chosen among this many uniform deals by the reader's weights."""

EXPLORATION = 0.5
"""The UCB1 exploration constant below the root (rewards lie in 0..1)."""

WIDENING = (1.0, 0.5)
"""Progressive widening ``(c, alpha)``: a node visited ``n`` times offers ``1 + c * n ** alpha`` moves."""

RANDOM_SHARE = 0.05
"""The share of playout plays made uniformly at random rather than by the policy."""

NEAR_BEST = 15.0
"""Playouts choose at random among the plays scoring within this of the best."""

CUT_PLIES = 8
"""With ``valued``: the plays a playout makes before the learned value scores its position."""





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

    @property
    def mean(self) -> float:
        """The mean result from the mover's point of view (-1 before any visit)."""
        return self.reward / self.visits if self.visits else -1.0


class MctsBot:
    """Information-set MCTS over the engine, with a budget in iterations or seconds per decision.

    ``MctsBot(seed, seconds=0.2)`` or ``MctsBot(seed, iterations=400)``; see the module
    docstring. ``last_iterations`` and ``root`` describe the last search.
    """

    def __init__(
        self,
        seed: int | None = None,
        seconds: float | None = None,
        iterations: int | None = None,
        candidates: int = CANDIDATES,
        anchor: bool = True,
        read: bool = False,
        valued: bool = False,
    ) -> None:
        if (seconds is not None and seconds <= 0) or (iterations is not None and iterations < 1):
            raise ValueError("the budget is a positive number of seconds or of iterations")
        self.name = "mcts"
        self.seed = seed if seed is not None else random.randrange(1 << 62)
        self.seconds = DEFAULT_SECONDS if seconds is None and iterations is None else seconds
        self.iterations = iterations
        self.candidates = max(2, candidates)
        self.anchor = anchor
        self.read = read
        self.cut = CUT_PLIES if valued else None
        if read or valued:
            self.name = "mcts-read" if read else "mcts-value"
        self.last_iterations = 0
        """The iterations the last decision ran (0 when it needed no search)."""
        self.root = Node(0)
        """The last search's tree: the root's children are the candidates compared."""

    def choose(self, seen: View) -> Action:
        """The action to play in ``seen``: a claim if any, the only action, or the search's choice."""
        legal = legal_of(seen)
        if not legal:
            raise ValueError("the view offers no decision to this seat")
        self.last_iterations = 0
        forced = forced_action(legal)
        if forced is not None:
            return forced
        return Action.from_id(self.search(seen))

    def search(self, seen: View) -> int:
        """Search the decision of ``seen`` within the budget; the id of the action found best."""
        if seen.seat is None or not seen.legal:
            raise ValueError("the search needs the view of the seat to move")
        search = _Search(seen, self.seed, _Budget(self.iterations, self.seconds), self.read, self.cut)
        self.root = search.root
        best = search.run(self.candidates, self.anchor)
        self.last_iterations = search.budget.done
        return best


class _Search:
    """One decision's search: sequential halving over root candidates, ISMCTS below them."""

    def __init__(
        self, seen: View, seed: int, budget: _Budget, read: bool = False, cut: int | None = None
    ) -> None:
        assert seen.seat is not None
        self.seen = seen
        self.me = seen.seat
        self.budget = budget
        self.rng = random.Random(f"{seed}/{seen!r}")
        self.sampler = Sampler(seen)
        self.reader = Reader(seen, self.sampler.template) if read else None
        self.root = Node(1 - self.me)
        self.cut = cut

    def deal(self) -> GameState:
        """A deal of the hidden cards for the next batch: uniform, or weighed by the reader."""
        if self.reader is None or not self.reader.active:
            return self.sampler.sample(self.rng)
        return self.sampler.sample_weighted(self.rng, self.reader.log_weight, READ_TRIES)

    def run(self, most: int, anchored: bool) -> int:
        """Compare up to ``most`` candidates; with ``anchored``, weigh the heuristic's scores in and
        keep its choice among them (see the module docstring)."""
        prior = self._prior() if anchored else {}
        favourites = sorted(prior, key=prior.__getitem__, reverse=True)[:FAVOURITES]
        greedy = _candidates(self.sampler.sample(self.rng), self.rng, most)
        survivors = list(dict.fromkeys([*favourites, *greedy]))[:most]
        anchor = favourites[0] if favourites else -1
        for action in survivors:
            self.root.children[action] = Node(self.me)
        value = self._valuation(prior, anchor)
        phases = max(1, math.ceil(math.log2(len(survivors))))
        while not self.budget.spent():
            self._phase(survivors, phases)
            if phases > 1:
                phases -= 1
                survivors = self._halve(survivors, anchor, value)
        return max(survivors, key=value)

    def _prior(self) -> dict[int, float]:
        """The anchor's score of every legal action of the root, by id."""
        return HeuristicBot(0, ANCHOR_DRAW_SHARE, exact_weights=True).scores(self.seen)

    def _valuation(self, prior: dict[int, float], anchor: int) -> Callable[[int], float]:
        """A candidate's value: its mean result, and with an anchor both relative to the anchor's
        with the heuristic's score difference weighed in."""
        if anchor < 0:
            return self._mean

        def value(action: int) -> float:
            searched = self._mean(action) - self._mean(anchor)
            return searched + PRIOR_WEIGHT * (prior[action] - prior[anchor])

        return value

    def _mean(self, action: int) -> float:
        return self.root.children[action].mean

    def _phase(self, survivors: list[int], phases: int) -> None:
        """Batches of one iteration per survivor, as many as this phase's share of the budget."""
        budget = self.budget
        target = budget.share(phases, len(survivors)) if budget.done else None
        rounds = 0
        while not budget.spent() and (target is None or rounds < target):
            self._batch(survivors, self.deal(), self.rng.getrandbits(32))
            rounds += 1
            if target is None:
                target = rounds + budget.share(phases, len(survivors))

    def _halve(self, survivors: list[int], anchor: int, value: Callable[[int], float]) -> list[int]:
        """The better half of the survivors by ``value`` (the anchor always stays)."""
        kept = sorted(survivors, key=lambda a: -value(a))[: (len(survivors) + 1) // 2]
        if anchor >= 0 and anchor not in kept:
            kept[-1] = anchor
        return kept

    def _batch(self, actions: list[int], deal: GameState, seed: int) -> None:
        """One iteration per action on the same deal and playout random numbers (paired comparisons)."""
        rounds_before = len(deal.round_outcomes)
        for action in actions:
            if self.budget.spent():
                return
            state = deal.copy()
            child = self.root.children[action]
            child.avail += 1
            state.apply_id(action)
            _descend(child, state, random.Random(seed), self.me, rounds_before, self.cut)
            self.budget.done += 1


class _Budget:
    """Iterations done, and whether the budget is spent: a number, a time, or both."""

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
        """The iterations still expected to fit (from the rate so far when the budget is a time)."""
        left = 1 << 30 if self.iterations is None else self.iterations - self.done
        if self.deadline is not None and self.done:
            now = time.perf_counter()
            left = min(left, int((self.deadline - now) * self.done / max(now - self.start, 1e-9)))
        return left

    def share(self, phases: int, actions: int) -> int:
        """Batches for this phase (one iteration per action each); the last phase takes all that is left."""
        if phases <= 1:
            return 1 << 30
        return max(1, self.left() // (phases * actions))


def _candidates(state: GameState, rng: random.Random, most: int) -> list[int]:
    """The root actions to compare, best first: the policy's top plays; other decisions shuffled."""
    ids = state.legal_action_ids()
    if state.phase == _PLAY:
        scores = play_scores(state, ids, rng.random, aware=False)
        ids = [a for _, a in sorted(zip(scores, ids, strict=True), reverse=True)]
    else:
        rng.shuffle(ids)
    return ids[:most]


def _descend(
    start: Node, state: GameState, rng: random.Random, me: int, rounds_before: int, cut: int | None = None
) -> None:
    """One ISMCTS iteration below a root child, in the round ``rounds_before`` (its index): select,
    expand one node, play out (``cut``: see ``_playout``), back up."""
    node = start
    path = [start]
    c, alpha = WIDENING
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
        else:
            action = _select(children, present)
            node = children[action]
        state.apply_id(action)
        path.append(node)
        if node.visits == 0:
            break
    reward = _playout(state, rng, me, rounds_before, cut)
    for n in path:
        n.visits += 1
        n.reward += reward if n.mover == me else 1.0 - reward


def _select(children: dict[int, Node], present: list[int]) -> int:
    """UCB1 over the children legal here, with availability counts."""
    best, best_value = present[0], -1.0
    log, sqrt = math.log, math.sqrt
    for a in present:
        child = children[a]
        value = child.reward / child.visits + EXPLORATION * sqrt(log(child.avail) / child.visits)
        if value > best_value:
            best, best_value = a, value
    return best


def _best_untried(state: GameState, ids: list[int], children: dict[int, Node], rng: random.Random) -> int:
    """The move to add to the tree: the policy's favourite in the play step, else a random one."""
    untried = [a for a in ids if a not in children]
    if len(untried) == 1:
        return untried[0]
    if state.phase != _PLAY:
        return untried[rng.randrange(len(untried))]
    scores = play_scores(state, untried, rng.random)
    return untried[max(range(len(untried)), key=scores.__getitem__)]


def _take_claims(state: GameState) -> None:
    """Take every claim of a claim step (the round may end on one, R6.1)."""
    while state.phase == _CLAIM:
        state.apply_id(CLAIM_BASE + state.claimable[0])


def playout(state: GameState, rng: random.Random, me: int) -> float:
    """Play the round in progress in ``state`` (a whole deal, changed in place) out as the
    search's playouts do; the search's reward for ``me`` (see the module docstring)."""
    if state.phase == Phase.OVER:
        raise ValueError("the game is over: there is no round to play out")
    return _playout(state, rng, me, len(state.round_outcomes))


def _playout(
    state: GameState, rng: random.Random, me: int, rounds_before: int, cut: int | None = None
) -> float:
    """Play the round out with the policy, claiming whenever possible; the reward for ``me``.
    With ``cut``, after that many plays the learned value for ``me`` instead."""
    outcomes = state.round_outcomes
    rand = rng.random
    plays = 0
    while len(outcomes) == rounds_before:
        if state.phase == _CLAIM:
            state.apply_id(CLAIM_BASE + state.claimable[0])
            continue
        if cut is not None and plays >= cut and state.phase == _PLAY:
            return learned_value(state, me)
        plays += 1
        ids = state.legal_action_ids()
        if len(ids) > 1 and state.phase == _PLAY and rand() >= RANDOM_SHARE:
            scores = play_scores(state, ids, rand)
            floor = max(scores) - NEAR_BEST
            near = [a for a, score in zip(ids, scores, strict=True) if score >= floor]
            state.apply_id(near[int(rand() * len(near))])
        else:
            state.apply_id(ids[int(rand() * len(ids))])
    return _reward(state, me, rounds_before)


def _reward(state: GameState, me: int, round_index: int) -> float:
    """The value of the finished round ``round_index`` for ``me`` (see the module docstring)."""
    if round_index + 1 >= state.settings.rounds:
        result = state.outcome
        assert result is not None
        return 0.5 if result.winner is None else float(result.winner == me)
    points = state.round_outcomes[round_index].points
    return 0.5 + (points[me] - points[1 - me]) / 10
