"""Game records: round trips, replay, and every kind of corrupt or tampered record (R2.4)."""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schotten.engine import actions as A
from schotten.engine.errors import RecordError
from schotten.engine.position import format_position, parse_position
from schotten.engine.record import (
    ENDINGS,
    FORMAT,
    VERSION,
    dumps,
    dumps_record,
    load_game,
    load_record,
    parse_record,
    read_record_file,
    record_of,
    result_of,
    states_of,
    write_record_file,
)
from schotten.engine.state import VARIANTS, GameState, Settings

DOCS = Path(__file__).resolve().parent.parent / "docs" / "notation.md"
GOLDEN = Path(__file__).resolve().parent / "golden"


def _play(variant: str, seed: int, rounds: int = 1, steps: int | None = None,
          first_player: int | None = None) -> GameState:
    state = GameState.new(Settings.of(variant, rounds, first_player), seed)
    rng = random.Random(seed)
    while not state.is_over and (steps is None or len(state.history) < steps):
        state.apply_id(rng.choice(state.legal_action_ids()))
    return state


@pytest.fixture(scope="module")
def finished() -> GameState:
    return _play("tactics", 11, rounds=2)


@pytest.fixture
def record(finished: GameState) -> dict[str, Any]:
    return record_of(finished, players=["ann", "bob"], created="2025-01-01T00:00:00+00:00")


@settings(max_examples=16, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**31), rounds=st.integers(1, 3),
       first=st.sampled_from([None, 0, 1]))
def test_record_round_trip(variant: str, seed: int, rounds: int, first: int | None) -> None:
    state = _play(variant, seed, rounds, first_player=first)
    text = dumps_record(state)
    loaded = load_record(text)
    assert format_position(loaded) == format_position(state)
    assert loaded.outcome == state.outcome
    assert loaded.history == state.history
    assert loaded.settings == state.settings
    assert record_of(loaded) == json.loads(text)


def test_record_fields(record: dict[str, Any], finished: GameState) -> None:
    assert record["format"] == FORMAT and record["version"] == VERSION == 2
    assert record["variant"] == "tactics" and record["rounds"] == 2
    assert record["first_player"] is None and record["seed"] == 11
    assert record["actions"] == [str(A.ACTIONS[i]) for i in finished.history]
    assert record["players"] == ["ann", "bob"]
    assert record["created"] == "2025-01-01T00:00:00+00:00"
    result = record["result"]
    assert finished.outcome is not None
    assert result["winner"] == finished.outcome.winner
    assert result["scores"] == list(finished.outcome.scores)
    assert [r["reason"] for r in result["rounds"]] == [o.reason for o in finished.outcome.rounds]
    assert "players" not in record_of(finished) and "created" not in record_of(finished)
    assert not {"forfeit", "time_control", "decision_ms", "ending"} & set(record)


def test_game_in_progress_has_no_result() -> None:
    state = _play("expert", 5, rounds=3, steps=40)
    record = record_of(state)
    assert record["result"] is None and len(record["actions"]) == 40
    assert format_position(load_record(record)) == format_position(state)


def test_states_of_yields_the_deal_then_each_action(record: dict[str, Any], finished: GameState) -> None:
    states = list(states_of(json.dumps(record)))
    assert len(states) == len(record["actions"]) + 1
    assert format_position(states[0]) == format_position(GameState.new(finished.settings, 11))
    assert format_position(states[-1]) == format_position(finished)
    assert [len(s.history) for s in states] == list(range(len(states)))


def test_states_of_reports_a_bad_move_when_it_is_reached(record: dict[str, Any]) -> None:
    record["actions"][5] = "claim 9"
    states = states_of(record)
    for _ in range(6):
        next(states)
    with pytest.raises(RecordError, match="move 6 'claim 9' is illegal"):
        next(states)


def test_file_round_trip(tmp_path: Path, finished: GameState) -> None:
    path = tmp_path / "game.json"
    write_record_file(path, finished, players=["ann", "bob"])
    assert json.loads(path.read_text(encoding="utf-8"))["players"] == ["ann", "bob"]
    assert format_position(read_record_file(path)) == format_position(finished)
    assert format_position(read_record_file(str(path))) == format_position(finished)


def test_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(RecordError, match="UTF-8"):
        read_record_file(path)


def test_dumps_is_valid_pretty_json(finished: GameState) -> None:
    text = dumps_record(finished, players=["a, \"quoted\" name", "ünïcode"])
    assert json.loads(text)["players"] == ["a, \"quoted\" name", "ünïcode"]
    assert text.startswith('{\n  "format": "schotten-record",\n')
    assert max(len(line) for line in text.splitlines()) <= 110


def test_docs_example_records_load() -> None:
    found = re.findall(r"```json\n(.*?)\n```", DOCS.read_text(encoding="utf-8"), re.S)
    assert len(found) == 2
    for text in found:
        game = load_game(text)
        assert game.version == VERSION
        assert game.state.is_over and result_of(game.state.outcome) == json.loads(text)["result"]
    assert load_game(found[1]).ending == {"reason": "resigned", "seat": 0}


def test_position_set_up_by_hand_has_no_record() -> None:
    state = parse_position(format_position(_play("base", 3, steps=20)))
    state.apply(state.legal_actions()[0])
    with pytest.raises(RecordError, match="history"):
        record_of(state)


def test_impossible_history_has_no_record() -> None:
    state = GameState.new(Settings.of("base"), 1)
    state.history = [A.DONE_ID]
    with pytest.raises(RecordError, match=r"history cannot be replayed from the deal: .*done"):
        record_of(state)


def test_record_of_checks_players() -> None:
    with pytest.raises(RecordError, match="'players' must be a list of two names"):
        record_of(GameState.new(), players=["solo"])


# ---------------------------------------------------------------------- corrupt and tampered records


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("{not json", r"a record is JSON text"),
        ("[1, 2]", r"a record is a JSON object, not list"),
        ('"text"', r"a record is a JSON object, not str"),
    ],
)
def test_not_a_record(text: str, match: str) -> None:
    with pytest.raises(RecordError, match=match):
        load_record(text)


@pytest.mark.parametrize("key", ["variant", "rounds", "first_player", "seed", "actions", "result"])
def test_missing_field(record: dict[str, Any], key: str) -> None:
    del record[key]
    with pytest.raises(RecordError, match=f"the record has no '{key}' field"):
        load_record(record)


@pytest.mark.parametrize(
    ("key", "value", "match"),
    [
        ("format", "chess-pgn", r"not a game record: 'format' is 'chess-pgn'"),
        ("version", 3, r"record version 3 is not supported \(this engine reads 1 and 2\)"),
        ("version", 0, r"record version 0 is not supported"),
        ("version", "1", r"record version '1' is not supported"),
        ("version", True, r"record version True is not supported"),
        ("variant", "chess", r"unknown variant 'chess'"),
        ("rounds", "2", r"'rounds' must be a whole number from 1 to 99, not '2'"),
        ("rounds", 0, r"'rounds' must be a whole number from 1 to 99, not 0"),
        ("first_player", 2, r"'first_player' must be 0, 1 or null, not 2"),
        ("first_player", True, r"'first_player' must be 0, 1 or null"),
        ("first_player", 0.0, r"'first_player' must be 0, 1 or null"),
        ("seed", 1.5, r"'seed' must be a whole number of at most 100 digits, not 1.5"),
        ("seed", 10**100, r"'seed' must be a whole number of at most 100 digits, not 1000"),
        ("seed", None, r"'seed' must be a whole number"),
        ("actions", "7b@3", r"'actions' must be a list of actions"),
        ("actions", [537], r"'actions' must be a list of actions"),
        ("result", [1], r"'result' must be an object or null"),
        ("players", "ann", r"'players' must be a list of two names"),
        ("players", ["ann", 7], r"'players' must be a list of two names"),
        ("created", 1700000000, r"'created' must be text"),
        ("comment", "hi", r"unknown field 'comment' in a version 2 record"),
    ],
)
def test_mistyped_field(record: dict[str, Any], key: str, value: object, match: str) -> None:
    record[key] = value
    with pytest.raises(RecordError, match=match):
        load_record(json.dumps(record))
    with pytest.raises(RecordError, match=match):
        parse_record(record)


def test_malformed_action_names_the_move(record: dict[str, Any]) -> None:
    record["actions"][2] = "7z@3"
    with pytest.raises(RecordError, match=r"move 3 '7z@3' is malformed: '7z' is not a card"):
        load_record(record)


def test_illegal_action_names_the_move_and_why(record: dict[str, Any], finished: GameState) -> None:
    deal = GameState.new(finished.settings, finished.seed)
    absent = next(c for c in range(54) if c not in deal.hands[deal.turn])
    record["actions"][0] = str(A.ACTIONS[A.play_id(absent, 0)])
    with pytest.raises(RecordError, match=r"move 1 '\w\w@1' is illegal: you have no \w\w in your hand"):
        load_record(record)


def test_action_after_the_end(record: dict[str, Any]) -> None:
    record["actions"].append("pass")
    number = len(record["actions"])
    with pytest.raises(RecordError, match=rf"move {number} 'pass' is illegal: the game is over"):
        load_record(record)


def test_swapped_seed_is_caught(record: dict[str, Any]) -> None:
    record["seed"] += 1
    with pytest.raises(RecordError, match=r"move \d+ .* is illegal"):
        load_record(record)


@pytest.mark.parametrize(
    ("path", "value", "match"),
    [
        (("winner",), 2, r"winner is 2, the replay gives"),
        (("scores",), [0, 0], r"scores is \[0, 0\], the replay gives"),
        (("rounds", 0, "reason"), "a fluke", r"rounds is .*a fluke"),
        (("rounds", 1, "stones", 4), 7, r"rounds is"),
        (("bonus",), 1, r"unknown key 'bonus'"),
    ],
)
def test_tampered_result(record: dict[str, Any], path: tuple[Any, ...], value: object, match: str) -> None:
    tampered = copy.deepcopy(record)
    target = tampered["result"]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(RecordError, match=f"the stored result does not match the replay: {match}"):
        load_record(tampered)


def test_finished_game_without_result(record: dict[str, Any]) -> None:
    record["result"] = None
    with pytest.raises(RecordError, match="finish the game, but its result is null"):
        load_record(record)


def test_result_of_an_unfinished_game(record: dict[str, Any]) -> None:
    record["actions"] = record["actions"][:30]
    with pytest.raises(RecordError, match="has a result, but its actions do not finish the game"):
        load_record(record)


# ---------------------------------------------------------------------- version 2: clocks and endings

BLITZ = {"initial": 180, "increment": 2}


def _timed(state: GameState) -> list[int | None]:
    return [100 * (i % 7) for i in range(len(state.history))]


@pytest.fixture
def resigned() -> GameState:
    state = _play("tactics", 11, rounds=2, steps=30)
    state.forfeit(1, "resigned")
    return state


@pytest.fixture
def v2(resigned: GameState) -> dict[str, Any]:
    return record_of(resigned, players=["ann", "bob"], time_control=BLITZ, decision_ms=_timed(resigned),
                     ending={"reason": "resigned", "seat": 1})


def test_version_2_fields_round_trip(v2: dict[str, Any], resigned: GameState) -> None:
    assert v2["time_control"] == BLITZ and v2["decision_ms"] == _timed(resigned)
    assert v2["forfeit"] == v2["ending"] == {"reason": "resigned", "seat": 1}
    game = load_game(dumps(v2))
    assert format_position(game.state) == format_position(resigned)
    assert game.state.outcome is not None and game.state.outcome.winner == 0
    assert (game.version, game.players, game.created) == (2, ("ann", "bob"), None)
    assert game.time_control == BLITZ and game.ending == {"reason": "resigned", "seat": 1}
    assert game.decision_ms == tuple(_timed(resigned))
    again = record_of(game.state, list(game.players or ()), time_control=game.time_control,
                      decision_ms=game.decision_ms, ending=game.ending)
    assert again == v2


def test_file_round_trip_of_version_2(tmp_path: Path, resigned: GameState) -> None:
    path = tmp_path / "game.json"
    spent = [None] * len(resigned.history)
    write_record_file(path, resigned, time_control={"days": 3}, decision_ms=spent,
                      ending={"reason": "resigned", "seat": 1})
    game = load_game(path.read_text(encoding="utf-8"))
    assert game.time_control == {"days": 3} and game.decision_ms == tuple(spent)
    assert format_position(read_record_file(path)) == format_position(resigned)


@pytest.mark.parametrize(("reason", "seat"),
                         [("aborted", 0), ("aborted", 1), ("abandoned", 1), ("abandoned", None)])
def test_game_ended_with_no_winner(reason: str, seat: int | None) -> None:
    state = _play("expert", 5, steps=3)
    record = record_of(state, time_control={"initial": 1, "increment": 0},
                       ending={"reason": reason, "seat": seat})
    assert record["result"] is None and "forfeit" not in record
    game = load_game(json.dumps(record))
    assert not game.state.is_over and game.state.outcome is None
    assert game.ending == {"reason": reason, "seat": seat}
    assert game.decision_ms is None


@pytest.mark.parametrize("stem", ["base", "tactics-3-rounds"])
def test_version_1_records_still_load(stem: str) -> None:
    text = (GOLDEN / f"{stem}.json").read_text(encoding="utf-8")
    assert json.loads(text)["version"] == 1
    game = load_game(text)
    assert game.version == 1 and game.state.is_over and game.players == ("random-claimer", "random-claimer")
    assert (game.time_control, game.decision_ms, game.ending) == (None, None, None)
    assert [format_position(s) for s in states_of(text)][-1] == format_position(load_record(text))


def test_version_1_forfeit_still_loads(resigned: GameState) -> None:
    old = record_of(resigned) | {"version": 1}
    state = load_record(old)
    assert state.forfeited == (1, "resigned") and format_position(state) == format_position(resigned)


@pytest.mark.parametrize("key", ["time_control", "decision_ms", "ending"])
def test_version_1_record_with_a_new_field_is_refused(v2: dict[str, Any], key: str) -> None:
    old = {k: v for k, v in v2.items() if k not in ("time_control", "decision_ms", "ending")}
    old |= {"version": 1, key: v2[key]}
    with pytest.raises(RecordError, match=rf"a version 1 record has no '{key}' field \(it came in version 2"):
        load_record(old)


CONTROL = r"'time_control' must be \{'initial': seconds >= 1, 'increment': seconds >= 0\} or \{'days'"
SPENT = r"'decision_ms' must be a list of whole numbers >= 0 or null"
ENDING = (r"'ending' must be \{'reason': one of time, resigned, left, aborted, abandoned, banned; "
          r"'seat': 0, 1 or null\}")


@pytest.mark.parametrize(
    ("key", "value", "match"),
    [
        ("time_control", None, CONTROL + r".*, not None"),
        ("time_control", "3+2", CONTROL + r".*, not '3\+2'"),
        ("time_control", [180, 2], CONTROL),
        ("time_control", {"initial": 180}, CONTROL),
        ("time_control", {"initial": 0, "increment": 2}, CONTROL),
        ("time_control", {"initial": 180, "increment": -1}, CONTROL),
        ("time_control", {"initial": 180.0, "increment": 2}, CONTROL),
        ("time_control", {"initial": True, "increment": 2}, CONTROL),
        ("time_control", {"initial": "180", "increment": 2}, CONTROL),
        ("time_control", {"days": 0}, CONTROL),
        ("time_control", {"days": "3"}, CONTROL),
        ("time_control", {"days": 3, "initial": 180}, CONTROL),
        ("time_control", {"days": 3, "increment": 0}, CONTROL),
        ("decision_ms", None, SPENT),
        ("decision_ms", "1200", SPENT),
        ("decision_ms", {"0": 1}, SPENT),
        ("decision_ms", [-1] * 30, SPENT + r", not \[-1"),
        ("decision_ms", [1.5] * 30, SPENT),
        ("decision_ms", [True] * 30, SPENT),
        ("decision_ms", ["10"] * 30, SPENT),
        ("decision_ms", [0] * 29,
         r"'decision_ms' must have one entry per action: it has 29, the record has 30 actions"),
        ("decision_ms", [0] * 31, r"'decision_ms' must have one entry per action: it has 31"),
        ("decision_ms", [], r"'decision_ms' must have one entry per action: it has 0"),
        ("ending", None, ENDING),
        ("ending", "resigned", ENDING),
        ("ending", {"reason": "resigned"}, ENDING),
        ("ending", {"reason": "bored", "seat": 1}, ENDING + r", not \{'reason': 'bored'"),
        ("ending", {"reason": "resigned", "seat": 2}, ENDING),
        ("ending", {"reason": "resigned", "seat": True}, ENDING),
        ("ending", {"reason": "resigned", "seat": "1"}, ENDING),
        ("ending", {"reason": "resigned", "seat": 1, "by": "ann"}, ENDING),
        ("ending", {"reason": "RESIGNED", "seat": 1}, ENDING),
        ("ending", {"reason": "resigned", "seat": 0},
         r"a 'resigned' ending loses the match for its seat: "
         r"'forfeit' must be \{'reason': 'resigned', 'seat': 0\} too"),
        ("ending", {"reason": "resigned", "seat": None}, r"a 'resigned' ending loses the match for its seat"),
        ("ending", {"reason": "time", "seat": 1},
         r"a 'time' ending .* not \{'seat': 1, 'reason': 'resigned'\}"),
        ("ending", {"reason": "left", "seat": 1}, r"a 'left' ending loses the match"),
        ("ending", {"reason": "aborted", "seat": 1},
         r"an 'aborted' game ended with no winner: it has no 'forfeit'"),
        ("ending", {"reason": "abandoned", "seat": None}, r"an 'abandoned' game ended with no winner"),
    ],
)
def test_mistyped_version_2_field(v2: dict[str, Any], key: str, value: object, match: str) -> None:
    assert len(v2["actions"]) == 30
    v2[key] = value
    with pytest.raises(RecordError, match=match):
        parse_record(v2)
    with pytest.raises(RecordError, match=match):
        load_record(json.dumps(v2))


def test_forfeit_ending_without_the_forfeit(v2: dict[str, Any]) -> None:
    del v2["forfeit"]
    with pytest.raises(RecordError, match=r"'resigned' ending .* 'forfeit' must be .* not None"):
        load_record(v2)


def test_no_winner_ending_with_a_result(record: dict[str, Any]) -> None:
    record["ending"] = {"reason": "aborted", "seat": 0}
    with pytest.raises(RecordError, match="an 'aborted' game ended with no winner: its 'result' must be"):
        load_record(record)


def test_no_winner_ending_of_a_finished_game(record: dict[str, Any]) -> None:
    record |= {"ending": {"reason": "abandoned", "seat": None}, "result": None}
    with pytest.raises(RecordError,
                       match="the record's actions finish the game, so it cannot have ended 'abandoned'"):
        load_record(record)


def test_record_of_checks_the_version_2_fields(finished: GameState, resigned: GameState) -> None:
    with pytest.raises(RecordError, match=r"'decision_ms' must have one entry per action: it has 2"):
        record_of(resigned, decision_ms=[1, 2])
    with pytest.raises(RecordError, match=CONTROL):
        record_of(resigned, time_control={"minutes": 3})
    with pytest.raises(RecordError, match=r"a 'time' ending loses the match for its seat"):
        record_of(resigned, ending={"reason": "time", "seat": 1})
    with pytest.raises(RecordError, match=r"a 'left' ending .* not None"):
        record_of(_play("base", 2, steps=4), ending={"reason": "left", "seat": 0})
    with pytest.raises(RecordError, match=r"'aborted' game ended with no winner: it has no 'forfeit'"):
        record_of(resigned, ending={"reason": "aborted", "seat": 0})
    with pytest.raises(RecordError, match=r"'aborted' game ended with no winner: its 'result' must be null"):
        record_of(finished, ending={"reason": "aborted", "seat": 0})


def test_record_of_takes_any_sequence_and_mapping(resigned: GameState) -> None:
    spent = tuple(_timed(resigned))
    record = record_of(resigned, players=("ann", "bob"), decision_ms=spent,
                       ending={"seat": 1, "reason": "resigned"})
    assert record["players"] == ["ann", "bob"] and record["decision_ms"] == list(spent)
    assert json.loads(dumps(record)) == record


def test_every_ending_is_a_vocabulary_word() -> None:
    assert ENDINGS == ("time", "resigned", "left", "aborted", "abandoned", "banned")


# ---------------------------------------------------------------------- version 2: ratings

CHANGES = [{"before": 1500.0, "after": 1662.31, "rd_before": 500.0, "rd_after": 290.32},
           {"before": 1500, "after": 1337.69, "rd_before": 500.0, "rd_after": 290.32}]
RATINGS = r"'ratings' must be a list of two \{'before', 'after', 'rd_before', 'rd_after'\}"


def test_ratings_round_trip(v2: dict[str, Any], resigned: GameState) -> None:
    """A rated game's record says each seat's rating and RD before and after it."""
    record = record_of(resigned, time_control=BLITZ, ending={"reason": "resigned", "seat": 1},
                       ratings=(CHANGES[0], None))
    assert record["ratings"] == [CHANGES[0], None] and "ratings" not in v2
    game = load_game(dumps(record))
    assert game.ratings == (CHANGES[0], None)
    assert load_game(dumps(v2)).ratings is None
    assert load_game(dumps(v2 | {"ratings": CHANGES})).ratings == tuple(CHANGES)


@pytest.mark.parametrize(
    "value",
    [None, [], CHANGES[:1], [*CHANGES, None], {"0": CHANGES[0]}, [CHANGES[0], "1500"],
     [CHANGES[0], {"before": 1500.0, "after": 1400.0}],
     [CHANGES[0], CHANGES[1] | {"by": "ann"}],
     [CHANGES[0], CHANGES[1] | {"after": "1337"}],
     [CHANGES[0], CHANGES[1] | {"after": True}],
     [CHANGES[0], CHANGES[1] | {"rd_after": -1.0}],
     [CHANGES[0], CHANGES[1] | {"after": 1e300}],
     [CHANGES[0], CHANGES[1] | {"after": float("nan")}]],
)
def test_mistyped_ratings(v2: dict[str, Any], value: object) -> None:
    v2["ratings"] = value
    with pytest.raises(RecordError, match=RATINGS):
        load_record(json.dumps(v2))


def test_ratings_need_a_result_and_version_2(v2: dict[str, Any]) -> None:
    """An aborted game (no result) changed no rating; version 1 had no ratings."""
    aborted = record_of(_play("expert", 5, steps=3), ending={"reason": "aborted", "seat": 0})
    with pytest.raises(RecordError, match="a game with no result changed no rating: it has no 'ratings'"):
        load_record(aborted | {"ratings": CHANGES})
    old = {k: v for k, v in v2.items() if k not in ("time_control", "decision_ms", "ending")}
    with pytest.raises(RecordError, match=r"a version 1 record has no 'ratings' field"):
        load_record(old | {"version": 1, "ratings": CHANGES})
    with pytest.raises(RecordError, match=RATINGS):
        record_of(_play("base", 2), ratings=[CHANGES[0]])


def test_an_unrated_word_round_trips(v2: dict[str, Any], resigned: GameState) -> None:
    """A game played rated that changed no rating says why in a word (the server's, such as
    ``few_decisions``); with no ``unrated`` the record says nothing of it."""
    record = record_of(resigned, time_control=BLITZ, ending={"reason": "resigned", "seat": 1},
                       unrated="few_decisions")
    assert record["unrated"] == "few_decisions" and load_game(dumps(record)).unrated == "few_decisions"
    assert load_game(dumps(v2)).unrated is None


@pytest.mark.parametrize("value", [None, "", 3, "Few decisions", "x" * 33, ["few_decisions"]])
def test_a_mistyped_unrated_word(v2: dict[str, Any], value: object) -> None:
    with pytest.raises(RecordError, match=r"'unrated' must be a word of a-z and _ \(at most 32\)"):
        load_record(json.dumps(v2 | {"unrated": value}))


def test_a_game_that_changed_no_rating_has_no_ratings(v2: dict[str, Any]) -> None:
    with pytest.raises(RecordError, match="a game that changed no rating has no 'ratings'"):
        load_record(json.dumps(v2 | {"ratings": CHANGES, "unrated": "pair_limit"}))
    old = {k: v for k, v in v2.items() if k not in ("time_control", "decision_ms", "ending")}
    with pytest.raises(RecordError, match=r"a version 1 record has no 'unrated' field"):
        load_record(old | {"version": 1, "unrated": "aborted"})
