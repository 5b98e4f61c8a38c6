"""Arena tournaments: scoring (fire, berserk) against hand-worked sequences, and the pairing wave."""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import networkx as nx  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schotten.web.tournaments.arena import ArenaPair, Waiting, pairing_wave
from schotten.web.tournaments.scoring import ArenaResult, ArenaStanding, Outcome, arena_score, arena_standings

W, D, L, A = Outcome.WIN, Outcome.DRAW, Outcome.LOSS, Outcome.ABORTED
NOW = datetime(2026, 12, 4, 20, 0)
END = NOW + timedelta(minutes=30)


def _plain(*outcomes: Outcome) -> list[ArenaResult]:
    return [ArenaResult(o) for o in outcomes]


@pytest.mark.parametrize(
    ("results", "points", "per_game", "fire"),
    [
        ([], 0, [], False),
        (_plain(W), 2, [2], False),
        (_plain(W, W), 4, [2, 2], True),
        (_plain(W, W, W), 8, [2, 2, 4], True),
        (_plain(W, W, W, W), 12, [2, 2, 4, 4], True),
        (_plain(W, W, D, W), 7, [2, 2, 1, 2], False),
        (_plain(W, W, L, W, W, W), 12, [2, 2, 0, 2, 2, 4], True),
        (_plain(D, D, W, L), 4, [1, 1, 2, 0], False),
        (_plain(W, W, W, D, W, W, W), 17, [2, 2, 4, 1, 2, 2, 4], True),
        ([ArenaResult(W, berserk=True, decisions=7)], 3, [3], False),
        ([ArenaResult(W, berserk=True, decisions=6)], 2, [2], False),
        ([ArenaResult(D, berserk=True, decisions=20)], 1, [1], False),
        ([ArenaResult(L, berserk=True, decisions=20)], 0, [0], False),
        ([ArenaResult(W, berserk=False, decisions=30)], 2, [2], False),
        ([*_plain(W, W), ArenaResult(W, berserk=True, decisions=9)], 9, [2, 2, 5], True),
        ([*_plain(W, W), ArenaResult(W, berserk=True, decisions=3)], 8, [2, 2, 4], True),
        ([*_plain(W, W), ArenaResult(D, berserk=True, decisions=9), ArenaResult(W)], 7, [2, 2, 1, 2], False),
        (_plain(A), 0, [], False),
        (_plain(W, A, W), 4, [2, 2], True),
        (_plain(W, W, A, W), 8, [2, 2, 4], True),
        (_plain(W, W, A), 4, [2, 2], True),
        (_plain(W, L, A, W), 4, [2, 0, 2], False),
        ([*_plain(W, W), ArenaResult(A, berserk=True, decisions=0), ArenaResult(W)], 8, [2, 2, 4], True),
    ],
)
def test_fire_and_berserk_score_as_worked_by_hand(
    results: list[ArenaResult], points: int, per_game: list[int], fire: bool
) -> None:
    score = arena_score(results)
    assert score.points == points
    assert [game.points for game in score.games] == per_game
    assert score.fire is fire


def test_the_marks_say_which_wins_were_doubled_and_which_had_the_berserk_bonus() -> None:
    results = [*_plain(W, W), ArenaResult(W, berserk=True, decisions=7), ArenaResult(W, True, 2)]
    games = arena_score(results).games
    assert [g.doubled for g in games] == [False, False, True, True]
    assert [g.berserk_bonus for g in games] == [False, False, True, False]


def test_arena_standings_rank_by_points_and_share_ranks() -> None:
    table = arena_standings({
        7: _plain(W, L),
        3: [*_plain(W, W), ArenaResult(W, berserk=True, decisions=8)],
        5: _plain(D, W),
        9: [],
    })
    assert table == (
        ArenaStanding(3, 1, 9, 3, True, 1),
        ArenaStanding(5, 2, 3, 2, False, 0),
        ArenaStanding(7, 3, 2, 2, False, 0),
        ArenaStanding(9, 4, 0, 0, False, 0),
    )
    level = arena_standings({1: _plain(W), 2: _plain(W), 4: _plain(L)})
    assert [(row.player, row.rank) for row in level] == [(1, 1), (2, 1), (4, 3)]
    aborted = arena_standings({1: _plain(A), 2: _plain(A, W)})
    assert aborted == (ArenaStanding(2, 1, 2, 1, False, 0), ArenaStanding(1, 2, 0, 0, False, 0))


def _waiting(
    player: int, score: int = 0, rating: int = 1500, seconds: int = 10,
    last_opponent: int | None = None, games: int = 0, first_seats: int = 0,
) -> Waiting:
    return Waiting(player, score, rating, NOW - timedelta(seconds=seconds), last_opponent, first_seats, games)


def test_no_one_is_paired_at_or_after_the_end() -> None:
    field = [_waiting(1), _waiting(2)]
    for now in (END, END + timedelta(seconds=1)):
        wave = pairing_wave(field, now, END)
        assert wave.pairs == ()
        assert set(wave.waiting) == {1, 2}


def test_close_scores_are_paired_before_close_ratings() -> None:
    field = [_waiting(1, 10, 1500), _waiting(2, 10, 1900), _waiting(3, 2, 1500), _waiting(4, 2, 1890)]
    pairs = {frozenset((p.first, p.second)) for p in pairing_wave(field, NOW, END).pairs}
    assert pairs == {frozenset((1, 2)), frozenset((3, 4))}


def test_ratings_decide_within_a_score() -> None:
    field = [_waiting(1, 4, 1000), _waiting(2, 4, 2000), _waiting(3, 4, 1010), _waiting(4, 4, 1990)]
    pairs = {frozenset((p.first, p.second)) for p in pairing_wave(field, NOW, END).pairs}
    assert pairs == {frozenset((1, 3)), frozenset((2, 4))}


def test_a_player_alone_with_their_last_opponent_waits() -> None:
    field = [_waiting(1, last_opponent=2), _waiting(2, last_opponent=1)]
    wave = pairing_wave(field, NOW, END)
    assert wave.pairs == ()
    assert set(wave.waiting) == {1, 2}


def test_the_last_opponent_is_avoided_when_someone_else_waits() -> None:
    field = [_waiting(1, 6, last_opponent=2), _waiting(2, 6, last_opponent=1), _waiting(3, 0), _waiting(4, 0)]
    pairs = {frozenset((p.first, p.second)) for p in pairing_wave(field, NOW, END).pairs}
    assert len(pairs) == 2
    assert frozenset((1, 2)) not in pairs


def test_the_odd_one_left_waiting_is_the_one_who_waited_least() -> None:
    field = [_waiting(1, seconds=50), _waiting(2, seconds=5), _waiting(3, seconds=40)]
    wave = pairing_wave(field, NOW, END)
    assert wave.waiting == (2,)
    assert [frozenset((p.first, p.second)) for p in wave.pairs] == [frozenset((1, 3))]


def test_the_player_who_started_fewer_games_starts() -> None:
    field = [_waiting(1, games=4, first_seats=3), _waiting(2, games=4, first_seats=1)]
    assert pairing_wave(field, NOW, END).pairs == (ArenaPair(2, 1),)
    field = [_waiting(1, games=2, first_seats=1, seconds=5), _waiting(2, games=2, first_seats=1, seconds=30)]
    assert pairing_wave(field, NOW, END).pairs == (ArenaPair(2, 1),)


@pytest.mark.parametrize(
    ("field", "sentence"),
    [
        ([_waiting(1), _waiting(1)], "waiting twice"),
        ([_waiting(1, seconds=-5)], "since after"),
        ([_waiting(1, games=1, first_seats=2)], "started more games"),
        ([_waiting(1, games=-1)], "negative number"),
    ],
)
def test_bad_fields_are_refused_with_a_sentence(field: list[Waiting], sentence: str) -> None:
    with pytest.raises(ValueError, match=sentence):
        pairing_wave(field, NOW, END)


@st.composite
def _fields(draw: st.DrawFn, most: int) -> list[Waiting]:
    n = draw(st.integers(0, most))
    players = list(range(1, n + 1))
    return [
        _waiting(
            p,
            score=draw(st.integers(0, 12)),
            rating=draw(st.integers(800, 2400)),
            seconds=draw(st.integers(0, 120)),
            last_opponent=draw(st.sampled_from([None, *[q for q in players if q != p]])),
        )
        for p in players
    ]


def _most_pairs(field: list[Waiting]) -> int:
    graph = nx.Graph()
    for i, a in enumerate(field):
        for b in field[i + 1:]:
            if a.last_opponent != b.player and b.last_opponent != a.player:
                graph.add_edge(a.player, b.player)
    return len(nx.max_weight_matching(graph, maxcardinality=True))


@settings(max_examples=300, deadline=None)
@given(_fields(14))
def test_a_wave_pairs_as_many_as_can_be_without_a_last_opponent_or_anyone_twice(field: list[Waiting]) -> None:
    wave = pairing_wave(field, NOW, END)
    seated = [p for pair in wave.pairs for p in (pair.first, pair.second)]
    assert len(seated) == len(set(seated))
    assert sorted(seated + list(wave.waiting)) == sorted(w.player for w in field)
    last = {w.player: w.last_opponent for w in field}
    for pair in wave.pairs:
        assert last[pair.first] != pair.second and last[pair.second] != pair.first
    assert len(wave.pairs) == _most_pairs(field)


@dataclass
class _Sheet:
    """One simulated player's running figures."""

    score: int = 0
    last: int | None = None
    games: int = 0
    first: int = 0
    since: int = 0


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32))
def test_an_arena_never_repeats_an_opponent_in_a_row_and_lets_the_lower_seat_balance_start(seed: int) -> None:
    rng = random.Random(seed)
    sheets = {p: _Sheet() for p in range(1, 21)}
    for minute in range(60):
        field = [
            Waiting(p, s.score, 1500 + p, NOW + timedelta(minutes=s.since), s.last, s.first, s.games)
            for p, s in sheets.items() if rng.random() < 0.7
        ]
        for pair in pairing_wave(field, NOW + timedelta(minutes=minute), END + timedelta(hours=1)).pairs:
            balance = {p: 2 * sheets[p].first - sheets[p].games for p in (pair.first, pair.second)}
            assert balance[pair.first] <= balance[pair.second]
            for me, other, first in ((pair.first, pair.second, 1), (pair.second, pair.first, 0)):
                s = sheets[me]
                assert s.last != other
                s.last, s.games, s.first, s.since = other, s.games + 1, s.first + first, minute
                s.score += rng.choice([0, 2])


def test_the_tournaments_package_imports_nothing_of_the_web_layer_but_core() -> None:
    package = Path(__file__).resolve().parents[1] / "schotten" / "web" / "tournaments"
    for module in package.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                inside = name.startswith("schotten.web.")
                assert not inside or name.startswith(("schotten.web.core", "schotten.web.tournaments")), (
                    f"{module.name} imports {name}")


def test_players_kept_apart_are_never_paired() -> None:
    """``Waiting.apart`` (a block either way): alone together they wait; with others, paired elsewhere."""
    a, b = Waiting(1, 0, 1500, NOW, apart=frozenset({2})), Waiting(2, 0, 1500, NOW)
    assert pairing_wave([a, b], NOW, END).pairs == ()
    field = [a, b, Waiting(3, 0, 1500, NOW), Waiting(4, 0, 1500, NOW)]
    pairs = pairing_wave(field, NOW, END).pairs
    assert len(pairs) == 2 and all({p.first, p.second} != {1, 2} for p in pairs)
