"""Swiss tournaments: round pairing over random events, byes, seats, standings and tiebreaks."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field

import networkx as nx  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schotten.web.tournaments.standings import standings
from schotten.web.tournaments.swiss import Entrant, Played, SwissPair, SwissRound, pair_round, scores


@dataclass
class _Round:
    """One round of a simulated event: who was there, what had happened before, the pairing."""

    present: list[Entrant]
    games: list[Played]
    byes: list[int]
    paired: SwissRound


@dataclass
class _Event:
    """A simulated event: every round, and the players who ever took part."""

    rounds: list[_Round] = field(default_factory=list)
    players: list[int] = field(default_factory=list)
    withdrawn: set[int] = field(default_factory=set)
    games: list[Played] = field(default_factory=list)
    byes: list[int] = field(default_factory=list)


def _simulate(seed: int, size: int, rounds: int = 5, late: int = 0, absence: float = 0.0) -> _Event:
    """Random results (draws too); ``late`` players join in round 2 or 3; an absent player is withdrawn."""
    rng = random.Random(seed)
    ratings = {p: rng.randint(900, 2300) for p in range(1, size + late + 1)}
    joins = {p: (1 if p <= size else rng.choice([2, 3])) for p in ratings}
    event = _Event(players=list(ratings))
    games: list[Played] = []
    byes: list[int] = []
    for number in range(1, rounds + 1):
        for p in ratings:
            if joins[p] < number and p not in event.withdrawn and rng.random() < absence:
                event.withdrawn.add(p)
        here = [p for p in ratings if joins[p] <= number and p not in event.withdrawn]
        present = [Entrant(p, ratings[p]) for p in here]
        paired = pair_round(present, games, byes)
        event.rounds.append(_Round(present, list(games), list(byes), paired))
        games += [Played(p.first, p.second, rng.choice([p.first, p.second, p.first, p.second, None]))
                  for p in paired.pairs]
        byes += [] if paired.bye is None else [paired.bye]
    event.games, event.byes = games, byes
    return event


def _met(games: list[Played]) -> set[frozenset[int]]:
    return {frozenset((g.first, g.second)) for g in games}


def _perfect_exists(players: tuple[int, ...], met: frozenset[frozenset[int]]) -> bool:
    """Can ``players`` all be paired with no pair that has met? (A maximum matching of networkx.)"""
    if len(players) % 2:
        return False
    graph = nx.Graph()
    graph.add_nodes_from(players)
    graph.add_edges_from((a, b) for i, a in enumerate(players) for b in players[i + 1:]
                         if frozenset((a, b)) not in met)
    return 2 * len(nx.max_weight_matching(graph, maxcardinality=True)) == len(players)


def _partners(pairs: tuple[SwissPair, ...]) -> dict[int, int]:
    return {a: b for pair in pairs for a, b in ((pair.first, pair.second), (pair.second, pair.first))}


def _preference(player: int, games: list[Played]) -> int:
    balance, last = 0, None
    for g in games:
        if player in (g.first, g.second):
            balance += 1 if g.first == player else -1
            last = g.first == player
    if balance:
        return -1 if balance > 0 else 1
    return 0 if last is None else (-1 if last else 1)


def _check_round(r: _Round) -> None:
    """Everyone placed once, no rematch, and a score group that receives no floater is paired inside
    itself whenever it can be and the players below it can then be paired among themselves."""
    paired = r.paired
    seated = [p for pair in paired.pairs for p in (pair.first, pair.second)]
    everyone = seated + list(paired.unpaired) + ([] if paired.bye is None else [paired.bye])
    assert sorted(everyone) == sorted(e.player for e in r.present)
    met = _met(r.games)
    assert not {frozenset((p.first, p.second)) for p in paired.pairs} & met
    score = scores(r.games, r.byes)
    in_play = [e.player for e in r.present if e.player != paired.bye]
    assert not paired.unpaired or not _perfect_exists(tuple(in_play), frozenset(met))
    partner = _partners(paired.pairs)
    groups: dict[int, list[int]] = defaultdict(list)
    for p in in_play:
        groups[score.get(p, 0)].append(p)
    for s, group in groups.items():
        floated_in = any(score.get(partner[p], 0) > s for p in group if p in partner)
        below = tuple(p for p in in_play if score.get(p, 0) < s)
        closable = _perfect_exists(tuple(group), frozenset(met)) and _perfect_exists(below, frozenset(met))
        if not floated_in and len(group) % 2 == 0 and closable:
            assert all(partner.get(p) in group for p in group), f"score group {s} was paired outside itself"


def _check_bye(r: _Round) -> None:
    bye = r.paired.bye
    if bye is None:
        assert len(r.present) % 2 == 0 or all(e.player in r.byes for e in r.present)
    else:
        assert bye not in r.byes, f"player {bye} had a second bye"


def _check_seats(r: _Round) -> None:
    for pair in r.paired.pairs:
        wants = _preference(pair.first, r.games), _preference(pair.second, r.games)
        if wants[0] != wants[1]:
            assert wants[0] > wants[1], f"{pair} goes against differing seat preferences"


@pytest.mark.parametrize("size", [9, 16, 33])
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_random_events_of_five_rounds_keep_every_pairing_rule(size: int, seed: int) -> None:
    event = _simulate(seed, size)
    for r in event.rounds:
        _check_round(r)
        _check_bye(r)
        _check_seats(r)
    games = event.games
    assert len(_met(games)) == len(games), "a pair met twice"
    byes = event.byes
    assert len(set(byes)) == len(byes), "a player had two byes"


@pytest.mark.parametrize("size", [9, 16, 33])
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_late_joiners_enter_with_zero_and_absent_players_are_left_out(size: int, seed: int) -> None:
    event = _simulate(seed, size, late=3, absence=0.05)
    for r in event.rounds:
        _check_round(r)
        _check_bye(r)
        seated = {p for pair in r.paired.pairs for p in (pair.first, pair.second)} | {r.paired.bye}
        assert not seated & event.withdrawn - {e.player for e in r.present}
    assert len(_met(event.games)) == len(event.games)
    assert len(set(event.byes)) == len(event.byes)


@pytest.mark.parametrize("size", [9, 16, 33])
def test_seats_alternate_over_five_rounds(size: int) -> None:
    """Over 40 seeded events, no one ends more than 3 starts off even, and at most 2% more than 2."""
    balances = []
    for seed in range(40):
        event = _simulate(seed, size)
        balances += [sum((g.first == p) - (g.second == p) for g in event.games) for p in event.players]
    assert max(abs(b) for b in balances) <= 3
    assert sum(abs(b) > 2 for b in balances) <= 0.02 * len(balances)


def test_round_one_pairs_the_top_half_against_the_bottom_half() -> None:
    present = [Entrant(p, 2000 - 10 * p) for p in range(1, 9)]
    paired = pair_round(present, [], [])
    assert {frozenset((p.first, p.second)) for p in paired.pairs} == {
        frozenset((1, 5)), frozenset((2, 6)), frozenset((3, 7)), frozenset((4, 8))}
    assert [p.first for p in paired.pairs] == [1, 6, 3, 8]
    assert paired.bye is None and paired.unpaired == ()


def test_an_odd_field_gives_the_bye_to_the_lowest_ranked_who_has_not_had_one() -> None:
    present = [Entrant(p, 2000 - 10 * p) for p in range(1, 6)]
    assert pair_round(present, [], []).bye == 5
    assert pair_round(present, [], [5]).bye == 4


def test_a_player_who_met_everyone_else_is_left_unpaired() -> None:
    present = [Entrant(1, 1500), Entrant(2, 1500)]
    paired = pair_round(present, [Played(1, 2, 1)], [])
    assert paired.pairs == () and sorted(paired.unpaired) == [1, 2]


def test_small_fields_at_the_edges() -> None:
    assert pair_round([], [], []) == SwissRound((), None, ())
    assert pair_round([Entrant(1, 1500)], [], []) == SwissRound((), 1, ())
    assert pair_round([Entrant(1, 1500)], [], [1]) == SwissRound((), None, (1,))
    all_met = [Played(1, 2, 1), Played(2, 3, None), Played(1, 3, 3)]
    three = [Entrant(p, 1500) for p in (1, 2, 3)]
    assert pair_round(three, all_met, [1]) == SwissRound((), 2, (1, 3))


def test_a_floater_meets_the_top_of_the_group_below() -> None:
    games = [Played(1, 2, 1), Played(3, 4, 3), Played(5, 6, 5)]
    present = [Entrant(p, 2000 - 10 * p) for p in range(1, 7)]
    paired = pair_round(present, games, [])
    partner = _partners(paired.pairs)
    assert partner[1] == 3 or partner[3] == 1
    assert partner[5] == 2


@pytest.mark.parametrize(
    ("call", "sentence"),
    [
        (lambda: pair_round([Entrant(1, 1500), Entrant(1, 1600)], [], []), "listed twice"),
        (lambda: Played(1, 1, None), "against themselves"),
        (lambda: Played(1, 2, 3), "did not play"),
        (lambda: Played(1, 2, 1, aborted=True), "aborted game"),
        (lambda: standings([1, 1], [], []), "listed twice"),
    ],
)
def test_bad_input_is_refused_with_a_sentence(call: object, sentence: str) -> None:
    assert callable(call)
    with pytest.raises(ValueError, match=sentence):
        call()


def test_standings_and_tiebreaks_as_worked_by_hand() -> None:
    # Round 1: 1 beats 2, 3 draws 4, 5 has the bye. Round 2: 1 beats 3, 5 beats 4, 2 has the bye.
    games = [Played(1, 2, 1), Played(3, 4, None), Played(1, 3, 1), Played(5, 4, 5)]
    byes = [5, 2]
    table = {row.player: row for row in standings([1, 2, 3, 4, 5, 6], games, byes, withdrawn=[6])}
    # Scores: 1: 2, 5: 2, 2: 1, 3: 0.5, 4: 0.5, 6: 0.
    assert [table[p].score for p in (1, 2, 3, 4, 5, 6)] == [2, 1, 0.5, 0.5, 2, 0]
    # Buchholz: 1 met 2 (1) and 3 (0.5); 5 met only 4 (0.5): its bye adds nothing.
    assert table[1].buchholz == 1.5 and table[5].buchholz == 0.5
    assert table[3].buchholz == 2.5 and table[4].buchholz == 2.5 and table[2].buchholz == 2
    # Sonneborn-Berger: 1 beat 2 (1) and 3 (0.5) = 1.5; 3 drew 4 (0.5 x 0.5) = 0.25; 4 drew 3 = 0.25.
    assert table[1].sonneborn_berger == 1.5 and table[5].sonneborn_berger == 0.5
    assert table[3].sonneborn_berger == 0.25 and table[4].sonneborn_berger == 0.25
    assert [table[p].rank for p in (1, 5, 2, 3, 4, 6)] == [1, 2, 3, 4, 4, 6]
    assert table[5].byes == 1 and table[5].games == 1 and table[6].withdrawn and not table[1].withdrawn
    assert [row.player for row in standings([1, 2, 3, 4, 5, 6], games, byes)] == [1, 5, 2, 3, 4, 6]


def test_a_pairing_names_who_starts() -> None:
    games = [Played(1, 2, 1)]
    paired = pair_round([Entrant(1, 1500), Entrant(2, 1500), Entrant(3, 1500), Entrant(4, 1500)], games, [])
    seats = {p for pair in paired.pairs for p in ((pair.first, "first"), (pair.second, "second"))}
    assert (1, "second") in seats and (2, "first") in seats


def test_pairs_kept_apart_are_never_paired() -> None:
    """``apart`` (a block either way) forbids a pairing as a game already played would, without a game."""
    field = [Entrant(p, 1500 - p) for p in range(1, 5)]
    paired = pair_round(field, [], [], apart=[(1, 2)])
    assert len(paired.pairs) == 2 and all({p.first, p.second} != {1, 2} for p in paired.pairs)
    assert len(pair_round(field[:2], [], [], apart=[(2, 1)]).pairs) == 0


def test_an_aborted_game_scores_nothing_for_either_player_but_they_have_met() -> None:
    aborted = Played(1, 2, None, aborted=True)
    assert aborted.points(1) == aborted.points(2) == 0
    assert scores([aborted, Played(3, 4, None)], []) == {1: 0, 2: 0, 3: 1, 4: 1}
    paired = pair_round([Entrant(p, 1500) for p in (1, 2, 3, 4)], [aborted, Played(3, 4, None)], [])
    pairs = {frozenset((p.first, p.second)) for p in paired.pairs}
    assert len(pairs) == 2 and not pairs & {frozenset((1, 2)), frozenset((3, 4))}
