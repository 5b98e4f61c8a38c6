"""The heuristic bot: a rule-based player that weighs each stone's chances from its view (R10).

Policy
------
**Stone chances.** For every unclaimed stone the bot estimates the chance that it wins it.
Each side's final formation is a small distribution over the formations it can still reach
(its *targets*: every colour-run, n of a kind, colour and run that the cards already there
allow, R4 and R7.3-R7.5; sums under Blind-man's Bluff), the strongest target whose missing
cards come being the one formed, and a plain sum when none comes. A card's chance of coming:

* to the opponent: an unseen card (in the deck or the opponent's hand; every clan card not
  on the board, in a discard pile or in the bot's hand) comes with the share of the unseen
  cards the opponent holds or will draw in time; a card in the bot's hand with a small
  chance, since it is not out of play yet and no claim proof (R5.2) may count it out;
* to the bot: a card of its hand with a high chance (it may be needed elsewhere), an unseen
  card with the share it will draw in time. An empty side counts on nothing in particular:
  its first card stands for one of each value, the hand counting as unseen.

A complete side is certain; two complete sides compare by R4 (ties go to the side completed
first); a side the bot can claim (R5) is worth the whole stone (in the expert variant a
little less for fragile formations, since the opponent moves once before the claim, R8.1).

**Stone weights.** A stone weighs 1, plus for each adjacent triple through it the chance
that the bot holds the other two (winning it breaks through, R6.1) and the chance that the
opponent holds them (winning it stops the opponent). With ``exact_weights`` (the search bot's
anchor) a stone weighs instead ``EXACT_SCALE`` times how much winning it rather than losing it
raises the chance of winning the round (R6.1), the stones being won independently with their
chances: the partial derivative of that chance, exact for a change on one stone.

**Scores.** Each legal action is scored by the weighted change of the stone chances it
causes:

* a clan card played on a stone: the change there; less the largest loss it causes on
  another stone by leaving the hand (a card that is the key to a formation elsewhere is not
  spent on a hopeless stone); plus what the opponent's sides lose once the card is on the
  board (playing the card an opponent's formation needs is preferred to an equal play);
* completing a side that the opponent can still beat, or putting a low card where the
  opponent is strong, lowers that stone's chance and is avoided while better plays exist;
* tactic cards (R7) are scored the same way, less a cost for the card and the tactic
  allowance it uses up (R7.2), higher while much of the round remains: elite troops by the
  formation they make, combat modes by the change on their stone, the Strategist, Banshee
  and Traitor by their best target (breaking an opponent's formation, completing one of the
  bot's), the Recruiter by how poor the hand's best play is;
* every claim is taken at once; the Recruiter returns the cards the hand misses least; the
  tactic deck is drawn from only while the hand holds no tactic card.

Exact ties are broken by a random generator seeded at creation, so the bot is deterministic
for a seed.
"""

from __future__ import annotations

import random
from itertools import permutations

from ..engine import Action, Kind, Phase
from ..engine.actions import TACTIC_DECK
from ..engine.cards import (
    BANSHEE,
    BLUFF,
    JOKER,
    MUD,
    NUM_CLAN,
    NUM_COLOURS,
    NUM_STONES,
    NUM_VALUES,
    RECRUITER,
    SHIELD,
    SPY,
    STRATEGIST,
    TRAITOR,
)
from ..engine.formations import (
    COLOUR,
    COLOUR_RUN,
    KIND,
    RANK_SHIFT,
    RUN,
    SUM,
    WILD_MAX,
    WILD_VALUES,
    beating_completion,
    side_strength,
    strength_of,
    total_of,
)
from ..engine.view import View
from .board import ME, NOBODY, THEM, Board
from .simple import forced_action, legal_of

DRAW_SHARE = 0.5
"""The share of its future draws a player is expected to get in time to use on a given side."""
HAND_CHANCE = 0.7
"""The chance counted for a card of the bot's hand to go to a given side of its own."""
OPP_IN_MY_HAND = 0.1
"""The chance counted for the opponent of a card in the bot's hand (not out of play yet)."""
MAX_CHANCE = 0.85
"""The highest chance counted for an unseen card."""
FILL_VALUE = 4
"""The value expected of a card that ends on a side without a formation."""
ADJACENT_WEIGHT = 1.0
"""How much the adjacent triples through a stone add to its weight (R6.1)."""
EXACT_SCALE = 4.0
"""With exact weights: the factor from a stone's effect on the round's chance to its weight."""
RUSE_RISK = 0.05
"""Expert variant: how much a provable but fragile side counts the risk of a ruse before the claim."""
TACTIC_COST: dict[int, float] = {
    JOKER: 0.35,
    SPY: 0.2,
    SHIELD: 0.15,
    BLUFF: 0.15,
    MUD: 0.15,
    STRATEGIST: 0.15,
    BANSHEE: 0.2,
    TRAITOR: 0.25,
    RECRUITER: 0.1,
}
"""What playing each tactic card costs late in the round: the card and its allowance (R7.2)."""
TACTIC_EARLY = 2.0
"""How much dearer a tactic card is with the whole clan deck still to come (better uses ahead)."""
KEEP_TACTIC: dict[int, float] = {
    JOKER: 1.0,
    TRAITOR: 0.8,
    BANSHEE: 0.6,
    SPY: 0.6,
    STRATEGIST: 0.4,
    SHIELD: 0.4,
    MUD: 0.3,
    BLUFF: 0.3,
    RECRUITER: 0.1,
}
"""How much a tactic card in hand is worth keeping (the Recruiter returns the least kept)."""
POOR_HAND = 0.05
"""A best clan play scoring below this makes the hand poor: the Recruiter is then worth its gap."""

_START_DECK = 40
"""The clan cards left in the deck near the start of a round (scales TACTIC_EARLY)."""

Dist = tuple[tuple[int, float], ...]
"""A side's formation distribution: ``(strength, chance)`` pairs, strongest first, chances summing to 1."""
Sides = tuple[tuple[int, ...], tuple[int, ...]]
"""A stone's two sides, the bot's first."""


# ---------------------------------------------------------------- card chances


class Odds:
    """How likely each clan card is to reach one player's side (0 when it cannot).

    ``rows[colour][value]`` is a card's chance (index 0 unused); ``any_colour[value]`` the
    chance that at least one card of that value comes.
    """

    def __init__(self, chance: list[float]) -> None:
        self.rows = [[0.0, *chance[col * NUM_VALUES : (col + 1) * NUM_VALUES]] for col in range(NUM_COLOURS)]
        self.any_colour = [0.0] + [
            1 - _product([1 - row[v] for row in self.rows]) for v in range(1, NUM_VALUES + 1)
        ]

    def card(self, card: int) -> float:
        """The chance of one clan card."""
        return self.rows[card // NUM_VALUES][card % NUM_VALUES + 1]


def _product(values: list[float]) -> float:
    result = 1.0
    for v in values:
        result *= v
    return result


def _at_least(chances: list[float], count: int) -> float:
    """The chance that at least ``count`` of independent events with these chances happen."""
    if count <= 0:
        return 1.0
    if count > len(chances):
        return 0.0
    dist = [1.0] + [0.0] * count
    for p in chances:
        dist[count] += dist[count - 1] * p
        for k in range(count - 1, 0, -1):
            dist[k] = dist[k] * (1 - p) + dist[k - 1] * p
        dist[0] *= 1 - p
    return dist[count]


# ---------------------------------------------------------------- formation targets


Target = tuple[int, float]
"""A formation a side may reach: its strength and the chance that its missing cards come."""


def _values_of(clan: tuple[int, ...]) -> list[int]:
    return [c % NUM_VALUES + 1 for c in clan]


def _cover(missing: list[int], wild: tuple[int, ...], row: list[float]) -> float:
    """The chance of a run's missing values (chances by value in ``row``), wild cards covering some."""
    if not wild:
        return _product([row[v] for v in missing])
    best = 0.0
    for chosen in permutations(missing, len(wild)):
        if all(WILD_VALUES[w] >> (v - 1) & 1 for w, v in zip(wild, chosen, strict=True)):
            best = max(best, _product([row[v] for v in missing if v not in chosen]))
    return best


def _runs(clan: tuple[int, ...], wild: tuple[int, ...], size: int, odds: Odds) -> list[Target]:
    """Colour-run and run targets (R4.1, R4.4)."""
    values = _values_of(clan)
    if len(set(values)) != len(values):
        return []
    colours = {c // NUM_VALUES for c in clan}
    found = []
    for start in range(max(1, max(values, default=0) - size + 1), min(values, default=NUM_VALUES) + 1):
        if start + size - 1 > NUM_VALUES:
            break
        missing = [v for v in range(start, start + size) if v not in values]
        total = size * start + size * (size - 1) // 2
        found.append((RUN * RANK_SHIFT + total, _cover(missing, wild, odds.any_colour)))
        if len(colours) <= 1:
            for col in colours or range(NUM_COLOURS):
                found.append((COLOUR_RUN * RANK_SHIFT + total, _cover(missing, wild, odds.rows[col])))
    return found


def _kinds(clan: tuple[int, ...], wild: tuple[int, ...], size: int, odds: Odds) -> list[Target]:
    """N-of-a-kind targets (R4.2)."""
    values = set(_values_of(clan))
    if len(values) > 1:
        return []
    need = size - len(clan) - len(wild)
    used = {c // NUM_VALUES for c in clan}
    found = []
    for value in values or range(1, NUM_VALUES + 1):
        if all(WILD_VALUES[w] >> (value - 1) & 1 for w in wild):
            chances = [odds.rows[col][value] for col in range(NUM_COLOURS) if col not in used]
            found.append((strength_of(KIND, value * size), _at_least([p for p in chances if p > 0], need)))
    return found


def _colours(clan: tuple[int, ...], wild: tuple[int, ...], size: int, odds: Odds) -> list[Target]:
    """Colour targets (R4.3), with the total the missing cards likely bring."""
    colours = {c // NUM_VALUES for c in clan}
    if len(colours) > 1:
        return []
    need = size - len(clan) - len(wild)
    base = sum(_values_of(clan)) + sum(WILD_MAX[w] for w in wild)
    found = []
    for col in colours or range(NUM_COLOURS):
        cards = [(odds.rows[col][v], v) for v in range(NUM_VALUES, 0, -1)]
        cards = [(p, v) for p, v in cards if p > 0 and col * NUM_VALUES + v - 1 not in clan]
        chance = _at_least([p for p, _ in cards], need)
        if chance > 0:
            weight = sum(p for p, _ in cards)
            average = sum(p * v for p, v in cards) / weight
            found.append((strength_of(COLOUR, base + round(need * average)), chance))
    return found


def _sums(clan: tuple[int, ...], wild: tuple[int, ...], size: int, odds: Odds) -> list[Target]:
    """Blind-man's Bluff targets (R7.4): the totals of cards of at least each value."""
    need = size - len(clan) - len(wild)
    base = sum(_values_of(clan)) + sum(WILD_MAX[w] for w in wild)
    found = []
    chances: list[float] = []
    for value in range(NUM_VALUES, 0, -1):
        chances += [odds.card(c) for c in range(value - 1, NUM_CLAN, NUM_VALUES) if c not in clan]
        chance = _at_least([p for p in chances if p > 0], need)
        if chance > 0:
            found.append((strength_of(SUM, base + need * value), chance))
    return found


def side_distribution(cards: tuple[int, ...], size: int, bluff: bool, odds: Odds) -> Dist:
    """The distribution of the formation a side holding ``cards`` will end with.

    Targets are taken strongest first, each with its chance of what is left; a side that
    reaches none ends as a plain sum of its cards and ``FILL_VALUE`` per missing card.
    """
    if len(cards) == size:
        return ((side_strength(tuple(sorted(cards)), size, bluff), 1.0),)
    clan = tuple(c for c in cards if c < NUM_CLAN)
    wild = tuple(c for c in cards if c >= NUM_CLAN)
    total = sum(_values_of(clan)) + sum(WILD_MAX[w] for w in wild) + (size - len(cards)) * FILL_VALUE
    floor = strength_of(SUM, total)
    if bluff:
        targets = _sums(clan, wild, size, odds)
    else:
        targets = [t for find in (_runs, _kinds, _colours) for t in find(clan, wild, size, odds)]
    dist: list[tuple[int, float]] = []
    left = 1.0
    for strength, chance in sorted((t for t in targets if t[0] > floor and t[1] > 0), reverse=True):
        mass = left * min(chance, 1.0)
        left -= mass
        if mass < 1e-4:
            continue
        if dist and dist[-1][0] == strength:
            mass += dist.pop()[1]
        dist.append((strength, mass))
        if left <= 1e-6:
            return tuple(dist)
    dist.append((floor, left))
    return tuple(dist)


def _openers(odds: Odds) -> list[int]:
    """A card of each value that may still come: the unknown first card of an empty side."""
    cards = []
    for value in range(1, NUM_VALUES + 1):
        for shift in range(NUM_COLOURS):
            colour = (value + shift) % NUM_COLOURS
            if odds.rows[colour][value] > 0:
                cards.append(colour * NUM_VALUES + value - 1)
                break
    return cards


def _blend(dists: list[Dist]) -> Dist:
    """The even mixture of several distributions."""
    if not dists:
        return ((strength_of(SUM, 3 * FILL_VALUE), 1.0),)
    mass: dict[int, float] = {}
    for dist in dists:
        for strength, p in dist:
            mass[strength] = mass.get(strength, 0.0) + p / len(dists)
    return tuple(sorted(mass.items(), reverse=True))


def win_chance(mine: Dist, theirs: Dist, tie: float) -> float:
    """The chance that a formation drawn from ``mine`` beats one from ``theirs`` (``tie``: share of ties won).

    One pass from the weakest end adds up the chance of the opponent's formations below each
    of the bot's.
    """
    total = 0.0
    below = 0.0
    i = len(theirs) - 1
    for strength, p in reversed(mine):
        while i >= 0 and theirs[i][0] < strength:
            below += theirs[i][1]
            i -= 1
        equal = theirs[i][1] if i >= 0 and theirs[i][0] == strength else 0.0
        total += p * (below + tie * equal)
    return total


def _fragility(strength: int) -> float:
    """How easily a ruse or combat mode breaks a formation: low totals fall to a Bluff or a lost card."""
    return 1.0 - total_of(strength) / (3 * NUM_VALUES)


def _could_join(cards: int, side: tuple[int, ...], size: int) -> bool:
    """Whether a card of the mask ``cards`` could join a formation with an incomplete, non-empty side."""
    clan = [c for c in side if c < NUM_CLAN]
    if not cards or not side or len(side) >= size:
        return False
    for card in range(NUM_CLAN):
        if cards >> card & 1:
            value, colour = card % NUM_VALUES, card // NUM_VALUES
            if all(c // NUM_VALUES == colour for c in clan) or all(c % NUM_VALUES == value for c in clan):
                return True
            if all(abs(c % NUM_VALUES - value) < size for c in clan):
                return True
    return False


# ---------------------------------------------------------------- the round's chance


def _round_result(mine: int) -> float:
    """The round's result for the bot (1, 0.5 or 0) when it ends up winning the stones of ``mine`` (R6.1).

    Both sides holding three adjacent stones counts half: which came first is not known.
    """
    won = [mine >> s & 1 for s in range(NUM_STONES)]
    my_three = any(all(won[t] for t in range(i, i + 3)) for i in range(NUM_STONES - 2))
    their_three = any(not any(won[t] for t in range(i, i + 3)) for i in range(NUM_STONES - 2))
    if my_three or their_three:
        return 0.5 if my_three and their_three else float(my_three)
    return float(mine.bit_count() * 2 > NUM_STONES)


_RESULTS = [_round_result(mine) for mine in range(1 << NUM_STONES)]
_SWINGS = [
    [
        (mine, mine | 1 << s, _RESULTS[mine | 1 << s] - _RESULTS[mine])
        for mine in range(1 << NUM_STONES)
        if not mine >> s & 1 and _RESULTS[mine | 1 << s] != _RESULTS[mine]
    ]
    for s in range(NUM_STONES)
]
"""Per stone: the pairs of outcomes that differ only in it and whose result differs, with the difference."""


def round_chance(chances: list[float]) -> float:
    """The chance of winning the round (R6.1) when each stone ``s`` is won with ``chances[s]``,
    the stones taken as independent (both sides holding three adjacent stones counts half)."""
    return sum(p * result for p, result in zip(_outcome_chances(chances), _RESULTS, strict=True))


def _outcome_chances(chances: list[float]) -> list[float]:
    """The chance of every set of stones won (bit ``s``: stone ``s``), stones independent."""
    outcome = [1.0]
    for p in chances:
        outcome = [x * (1 - p) for x in outcome] + [x * p for x in outcome]
    return outcome


def win_sensitivity(chances: list[float]) -> list[float]:
    """For each stone, how much winning it rather than losing it raises the chance of winning the round.

    ``chances[s]`` is the bot's chance of winning stone ``s``, stones taken as independent. The
    chance of an outcome summed with that of the outcome differing only in ``s`` is the chance
    of the other stones' outcome, so each derivative is one pass over ``_SWINGS``.
    """
    outcome = _outcome_chances(chances)
    return [sum((outcome[a] + outcome[b]) * d for a, b, d in swings) for swings in _SWINGS]


# ---------------------------------------------------------------- judging stones


class Judge:
    """Stone chances and weighted changes for one decision, with caches (see the module docstring).

    Chances depend on the bot's hand twice: as the cards its own sides may count on
    (``mine``) and as the cards still off the board, which the opponent's formations may not
    be proven to lack (``held``). Both are masks of clan cards; ``now`` holds every stone's
    chance as things stand and ``weights`` every stone's weight.
    """

    def __init__(self, board: Board, draw_share: float = DRAW_SHARE, exact_weights: bool = False) -> None:
        self.b = board
        self.exact_weights = exact_weights
        self.hand = board.hand_mask
        unseen = max(1, board.unseen.bit_count())
        mine = self.hand.bit_count()
        draws = draw_share * board.clan_deck / 2
        self.p_me = min(MAX_CHANCE, draws / unseen)
        self.p_fresh = min(MAX_CHANCE, (mine + draws) / (unseen + mine))
        self.p_them = min(MAX_CHANCE, (board.their_hand[0] + draws) / unseen)
        self.risk = self._ruse_risk()
        self._odds: dict[tuple[int, int], Odds] = {}
        self._dists: dict[tuple[int, tuple[int, ...], int, bool, int], Dist] = {}
        self._values: dict[tuple[int, int], list[float]] = {}
        self.now = self.values(self.hand, self.hand)
        self.weights = self._weights(self.now)

    # ------------------------------------------------ chances of sides

    def odds(self, who: int, hand: int) -> Odds:
        """Card chances for ``who`` while the bot's hand holds ``hand`` (-1: an empty side of the bot's)."""
        key = (who, hand)
        if key not in self._odds:
            chance = [0.0] * NUM_CLAN
            unseen = self.b.unseen | (self.hand if hand < 0 else 0)
            p = self.p_them if who == THEM else (self.p_fresh if hand < 0 else self.p_me)
            in_hand = HAND_CHANCE if who == ME else OPP_IN_MY_HAND
            for card in range(NUM_CLAN):
                if unseen >> card & 1:
                    chance[card] = p
                elif hand > 0 and hand >> card & 1:
                    chance[card] = in_hand
            self._odds[key] = Odds(chance)
        return self._odds[key]

    def dist(self, who: int, cards: tuple[int, ...], size: int, bluff: bool, hand: int) -> Dist:
        """The formation distribution of ``who``'s side holding ``cards``, the bot's hand being ``hand``.

        A side without clan cards blends the sides its possible first clan cards would make.
        """
        if who == THEM:
            hand = hand if _could_join(self.hand & ~hand, cards, size) else self.hand
        elif not cards:
            hand = -1
        key = (who, cards, size, bluff, hand)
        found = self._dists.get(key)
        if found is None:
            odds = self.odds(who, hand)
            if len(cards) >= size or any(c < NUM_CLAN for c in cards):
                found = side_distribution(cards, size, bluff, odds)
            else:
                found = _blend([side_distribution((*cards, c), size, bluff, odds) for c in _openers(odds)])
            self._dists[key] = found
        return found

    # ------------------------------------------------ chances of stones

    def stone_value(self, sides: Sides, size: int, bluff: bool, first: int, mine: int, held: int) -> float:
        """The chance that the bot wins a stone with these sides (``first``: who completed first)."""
        my_side, their_side = sides
        my_full, their_full = len(my_side) == size, len(their_side) == size
        if my_full and their_full:
            my_strength = side_strength(tuple(sorted(my_side)), size, bluff)
            their_strength = side_strength(tuple(sorted(their_side)), size, bluff)
            if my_strength != their_strength:
                return 1.0 if my_strength > their_strength else 0.0
            return 1.0 if first == ME else 0.0
        if my_full:
            strength = side_strength(tuple(sorted(my_side)), size, bluff)
            if self._provable(strength, their_side, size, bluff, held):
                return 1.0 - self.risk * _fragility(strength)
        tie = 1.0 if my_full else (0.0 if their_full else 0.5)
        return win_chance(
            self.dist(ME, my_side, size, bluff, mine), self.dist(THEM, their_side, size, bluff, held), tie
        )

    def _provable(self, strength: int, theirs: tuple[int, ...], size: int, bluff: bool, held: int) -> bool:
        """R5.2: no completion of the opponent's side from the cards off the board beats ``strength``."""
        clan = tuple(c for c in theirs if c < NUM_CLAN)
        wild = tuple(c for c in theirs if c >= NUM_CLAN)
        return beating_completion(clan, wild, size, bluff, self.b.unseen | held, strength) < 0

    def values(self, mine: int, held: int) -> list[float]:
        """Every stone's chance as the board stands, for these hand masks (claimed stones: 1 or 0)."""
        key = (mine, held)
        if key not in self._values:
            b = self.b
            self._values[key] = [
                float(b.owner[s] == ME)
                if b.owner[s] != NOBODY
                else self.stone_value(
                    (b.sides[ME][s], b.sides[THEM][s]), b.size[s], b.bluff[s], b.first[s], mine, held
                )
                for s in range(NUM_STONES)
            ]
        return self._values[key]

    def _weights(self, values: list[float]) -> list[float]:
        """1 for every stone, plus how much it would complete or stop an adjacent triple (R6.1);
        with exact weights, ``EXACT_SCALE`` times its effect on the round's chance."""
        if self.exact_weights:
            return [EXACT_SCALE * d for d in win_sensitivity(values)]
        weights = []
        for s in range(NUM_STONES):
            extra = 0.0
            for start in range(max(0, s - 2), min(s, NUM_STONES - 3) + 1):
                a, b = (values[t] for t in range(start, start + 3) if t != s)
                extra += a * b + (1 - a) * (1 - b)
            weights.append(1.0 + ADJACENT_WEIGHT * extra)
        return weights

    def _ruse_risk(self) -> float:
        """Expert variant (R8.1): how likely a provable side is broken before it is claimed.

        The opponent moves once before the claim: with a Banshee, Traitor or combat mode it
        may break the side (R7.4-R7.10), if it holds one and may play it (R7.2).
        """
        b = self.b
        if not b.expert or not b.unseen_tactics or b.their_hand[1] == 0:
            return 0.0
        if b.tactics_played[THEM] > b.tactics_played[ME]:
            return 0.0
        breakers = sum(1 for c in b.unseen_tactics if c in (BANSHEE, TRAITOR, MUD, BLUFF))
        share = breakers / len(b.unseen_tactics)
        return RUSE_RISK * (1 - (1 - share) ** b.their_hand[1])

    # ------------------------------------------------ weighted changes

    def change(
        self,
        stone: int,
        sides: Sides,
        hand: int | None = None,
        size: int | None = None,
        bluff: bool | None = None,
    ) -> float:
        """The weighted change of ``stone``'s chance when it holds ``sides`` (the hand ``hand``)."""
        b = self.b
        size = b.size[stone] if size is None else size
        bluff = b.bluff[stone] if bluff is None else bluff
        hand = self.hand if hand is None else hand
        after = self.stone_value(sides, size, bluff, self._first_after(stone, sides, size), hand, hand)
        return self.weights[stone] * (after - self.now[stone])

    def _first_after(self, stone: int, sides: Sides, size: int) -> int:
        """Who completed first once ``stone`` holds ``sides``: a side completed just now comes last."""
        b = self.b
        my_full, their_full = len(sides[ME]) == size, len(sides[THEM]) == size
        same = size == b.size[stone]
        was_mine = same and sides[ME] == b.sides[ME][stone] and my_full
        was_theirs = same and sides[THEM] == b.sides[THEM][stone] and their_full
        if my_full and their_full:
            if was_mine and was_theirs:
                return b.first[stone]
            return THEM if was_theirs else ME
        if my_full:
            return ME
        return THEM if their_full else NOBODY

    def loss(self, card: int, stone: int) -> float:
        """The largest weighted loss on a stone other than ``stone`` when ``card`` leaves the hand."""
        without = self.values(self.hand & ~(1 << card), self.hand)
        losses = [self.weights[t] * (self.now[t] - without[t]) for t in range(NUM_STONES) if t != stone]
        return max(losses, default=0.0)

    def block(self, card: int, stone: int) -> float:
        """What the opponent loses on stones other than ``stone`` once ``card`` is on the board."""
        out = self.values(self.hand, self.hand & ~(1 << card))
        return sum(self.weights[t] * (out[t] - self.now[t]) for t in range(NUM_STONES) if t != stone)

    def play_gain(self, card: int, stone: int) -> float:
        """Putting ``card`` (a clan card or an elite troop) from the hand on the bot's side of ``stone``."""
        sides = ((*self.b.sides[ME][stone], card), self.b.sides[THEM][stone])
        if card >= NUM_CLAN:
            return self.change(stone, sides)
        gain = self.change(stone, sides, hand=self.hand & ~(1 << card))
        return gain - self.loss(card, stone) + self.block(card, stone)

    def place_gain(self, card: int, stone: int) -> float:
        """Putting a card taken by a Strategist or Traitor on the bot's side of ``stone``."""
        return self.change(stone, ((*self.b.sides[ME][stone], card), self.b.sides[THEM][stone]))

    def mode_gain(self, card: int, stone: int) -> float:
        """Playing a combat mode on ``stone`` (R7.4, R7.5)."""
        sides = (self.b.sides[ME][stone], self.b.sides[THEM][stone])
        return self.change(stone, sides, size=4) if card == MUD else self.change(stone, sides, bluff=True)

    def removal_gain(self, who: int, card: int, stone: int) -> float:
        """Taking ``card`` off ``who``'s side of ``stone`` (Strategist, Banshee, Traitor)."""
        return self.change(stone, self._without(who, card, stone))

    def _without(self, who: int, card: int, stone: int) -> Sides:
        sides = [list(self.b.sides[ME][stone]), list(self.b.sides[THEM][stone])]
        sides[who].remove(card)
        return tuple(sides[ME]), tuple(sides[THEM])

    def move_gain(self, who: int, card: int, source: int, target: int) -> float:
        """Taking ``card`` off ``who``'s side of ``source`` and putting it on the bot's side of ``target``."""
        if source == target:
            mine, theirs = self._without(who, card, source)
            return self.change(source, ((*mine, card), theirs))
        return self.removal_gain(who, card, source) + self.place_gain(card, target)

    def keep_value(self, card: int) -> float:
        """How much the hand would miss ``card``."""
        if card >= NUM_CLAN:
            return KEEP_TACTIC[card]
        return self.loss(card, -1) - self.block(card, -1) + (card % NUM_VALUES) / 100


# ---------------------------------------------------------------- scoring actions


class Policy:
    """The scores of the legal actions of one decision (see the module docstring)."""

    def __init__(self, judge: Judge) -> None:
        self.j = judge
        self.b = judge.b
        self._best_clan: float | None = None

    def score(self, action: Action) -> float:
        """The score of one legal action: higher is better."""
        kind, card, stone = action.kind, action.card, action.stone
        if kind == Kind.PLAY:
            return self.play_score(card, stone)
        if kind == Kind.RUSE:
            return self.ruse_score(card)
        if kind == Kind.DRAW:
            return self.draw_score(card)
        if kind == Kind.TAKE:
            ruse = STRATEGIST if self.b.phase == Phase.STRATEGIST_TAKE else TRAITOR
            return self.take_score(card, stone, ruse)
        if kind == Kind.PLACE:
            return self.j.place_gain(self.b.held, stone)
        if kind == Kind.BANISH:
            return self.j.removal_gain(THEM, card, stone)
        if kind == Kind.RETURN:
            return -self.j.keep_value(card)
        return 0.0 if kind == Kind.DISCARD else -1000.0

    def play_score(self, card: int, stone: int) -> float:
        """A clan card, elite troop or combat mode played on ``stone`` (higher clan cards first on ties)."""
        if card < NUM_CLAN:
            return self.j.play_gain(card, stone) + (card % NUM_VALUES) / 1000
        if card in (MUD, BLUFF):
            return self.j.mode_gain(card, stone) - self.tactic_cost(card)
        return self.j.play_gain(card, stone) - self.tactic_cost(card)

    def ruse_score(self, card: int) -> float:
        """A ruse (R7.6-R7.10): the gain of its best use, less its cost."""
        b, j = self.b, self.j
        stones = b.unclaimed()
        if card == STRATEGIST:
            uses = [self.take_score(c, s, STRATEGIST) for s in stones for c in b.sides[ME][s]]
        elif card == BANSHEE:
            uses = [j.removal_gain(THEM, c, s) for s in stones for c in b.sides[THEM][s]]
        elif card == TRAITOR:
            uses = [self.take_score(c, s, TRAITOR) for s in stones for c in b.sides[THEM][s] if c < NUM_CLAN]
        else:
            uses = [max(0.0, POOR_HAND - self.best_clan_play())]
        return max(uses, default=0.0) - self.tactic_cost(card)

    def take_score(self, card: int, stone: int, ruse: int) -> float:
        """Taking ``card`` from ``stone`` (Strategist: own, Traitor: opponent's), then its best place."""
        targets = self.b.open_stones()
        if ruse == TRAITOR:
            return max((self.j.move_gain(THEM, card, stone, t) for t in targets), default=-1.0)
        discard = self.j.removal_gain(ME, card, stone)
        return max([discard] + [self.j.move_gain(ME, card, stone, t) for t in targets if t != stone])

    def best_clan_play(self) -> float:
        """The best score of a clan card played now, -1 with none (how poor the hand is)."""
        if self._best_clan is None:
            hand = {c for c in self.b.hand if c < NUM_CLAN}
            scores = [self.j.play_gain(c, s) for c in hand for s in self.b.open_stones()]
            self._best_clan = max(scores, default=-1.0)
        return self._best_clan

    def tactic_cost(self, card: int) -> float:
        """What playing a tactic card costs: more early, while better chances to use it lie ahead."""
        return TACTIC_COST[card] * (1 + TACTIC_EARLY * self.b.clan_deck / _START_DECK)

    def draw_score(self, deck: int) -> float:
        """The clan deck, unless the hand holds no tactic card (R3.4, R7.7)."""
        has_tactic = any(c >= NUM_CLAN for c in self.b.hand)
        return float((deck == TACTIC_DECK) != has_tactic)


# ---------------------------------------------------------------- the bot


class HeuristicBot:
    """A rule-based player that scores every legal action by the stones' chances (module docstring).

    It decides from its view alone (R10) and is deterministic for a seed (the seed only
    breaks exact ties). ``draw_share`` replaces ``DRAW_SHARE`` and ``exact_weights`` weighs
    stones by their effect on the round's chance (the search bot's anchor does both).
    """

    def __init__(
        self, seed: int | None = None, draw_share: float = DRAW_SHARE, exact_weights: bool = False
    ) -> None:
        self.name = "heuristic"
        self._rng = random.Random(seed)
        self.draw_share = draw_share
        self.exact_weights = exact_weights

    def choose(self, seen: View) -> Action:
        """The best-scoring legal action of the view; every claim is taken first (R5.4)."""
        actions = legal_of(seen)
        forced = forced_action(actions)
        if forced is not None:
            return forced
        scores = self.scores(seen, actions)
        scored = [(scores[a.id], self._rng.random(), a) for a in actions]
        return max(scored, key=lambda t: (t[0], t[1]))[2]

    def scores(self, seen: View, actions: list[Action] | None = None) -> dict[int, float]:
        """The score of each legal action of ``seen`` (or of ``actions``) by id: higher is better."""
        policy = Policy(Judge(Board.of(seen), self.draw_share, self.exact_weights))
        return {a.id: policy.score(a) for a in (legal_of(seen) if actions is None else actions)}
