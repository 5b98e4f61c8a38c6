"""Fuzzing every reader: random and damaged input raises only the documented error, never
anything else, and never changes a state (DESIGN 5).

| reader | documented error |
|--------|------------------|
| ``parse_action``, ``GameState.apply`` of text | NotationError (malformed), IllegalActionError (R5.4, ...) |
| ``parse_position`` | NotationError |
| ``parse_record``, ``load_record`` | RecordError |
| the protocol's ``parse_*`` line readers | ProtocolError |
| a protocol program's session (``serve``) | none: an ``error`` line, the session unchanged |

Each test is bounded to a few hundred examples (a few seconds).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schotten.bots import make_bot
from schotten.engine import ACTIONS, GameState, parse_action
from schotten.engine.errors import IllegalActionError, NotationError, RecordError
from schotten.engine.position import format_position, parse_position
from schotten.engine.record import dumps_record, load_record, parse_record
from schotten.engine.view import view
from schotten.protocol import messages as M
from schotten.protocol.program import _Session
from tests.randgame import ALL_SETTINGS, random_states

GOLDEN = Path(__file__).resolve().parent / "golden"
FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _states() -> list[GameState]:
    """Positions of every variant: the deal, mid-round (ruses included) and the end."""
    found = []
    for game in ALL_SETTINGS:
        for seed in (1, 2):
            states = [s.copy() for s in random_states(game, seed)]
            found += [states[0], states[len(states) // 3], states[len(states) // 2], states[-1]]
    return found


STATES = _states()
POSITIONS = [format_position(s) for s in STATES]
RECORDS = [path.read_text(encoding="utf-8") for path in sorted(GOLDEN.glob("*.json"))]
ACTION_TEXTS = [str(a) for a in ACTIONS]


def _snapshot(state: GameState) -> tuple[object, ...]:
    return (format_position(state), list(state.history), list(state.movers), state.last_draw,
            list(state.round_outcomes), state.outcome, state.forfeited)


def _damage(text: str, edits: list[tuple[int, str, str]]) -> str:
    """``text`` with characters set, deleted, inserted or doubled at the given places."""
    chars = list(text)
    for where, char, how in edits:
        if not chars:
            chars = [char]
            continue
        at = where % len(chars)
        if how == "set":
            chars[at] = char
        elif how == "del":
            del chars[at]
        elif how == "ins":
            chars.insert(at, char)
        else:
            chars[at:at] = chars[at : at + 8]
    return "".join(chars)


HOW = st.sampled_from(["set", "del", "ins", "dup"])
EDITS = st.lists(st.tuples(st.integers(0, 10**6), st.characters(codec="utf-8"), HOW), min_size=1, max_size=4)
FULL_WIDTH = {"0": "\uff10", "1": "\uff11", "3": "\uff13", "9": "\uff19"}
WEIRD = st.sampled_from(["", " ", "\x00", FULL_WIDTH["9"], "\u00b2", "\u0663", "\u01c5", "-", "@", ":", "/",
                         "#", "*", "+", "\n", "9" * 5000, "-" + "1" * 4500, "1/" + "9" * 5000,
                         f"{FULL_WIDTH['0']}:{FULL_WIDTH['1']}", f"claim {FULL_WIDTH['3']}"])
TEXT = st.one_of(st.text(max_size=60), WEIRD, st.sampled_from(ACTION_TEXTS))


# ---------------------------------------------------------------- actions


@FUZZ
@given(text=st.one_of(TEXT, st.builds(_damage, st.sampled_from(ACTION_TEXTS), EDITS)))
def test_parse_action_raises_only_notation_error(text: str) -> None:
    try:
        action = parse_action(text)
    except NotationError as error:
        assert str(error)
        return
    assert parse_action(str(action)) == action


@FUZZ
@given(index=st.integers(0, len(STATES) - 1),
       text=st.one_of(TEXT, st.builds(_damage, st.sampled_from(ACTION_TEXTS), EDITS)))
def test_applying_any_text_refuses_cleanly_or_plays_a_legal_action(index: int, text: str) -> None:
    """R5.4 and DESIGN 5: a refused action leaves the state as it was; an accepted one was legal."""
    state = STATES[index].copy()
    before, legal = _snapshot(state), state.legal_action_ids()
    try:
        state.apply(text)
    except (NotationError, IllegalActionError) as error:
        assert str(error) and _snapshot(state) == before
        return
    assert state.history[-1] in legal


@FUZZ
@given(value=st.one_of(st.none(), st.integers(), st.floats(), st.binary(max_size=8), st.lists(st.integers())))
def test_apply_of_what_is_no_action_is_a_notation_error(value: object) -> None:
    state = STATES[1].copy()
    before = _snapshot(state)
    with pytest.raises(NotationError):
        state.apply(value)  # type: ignore[arg-type]
    assert _snapshot(state) == before


# ---------------------------------------------------------------- positions


def _field_swap(text: str, field: int, token: str) -> str:
    tokens = text.split(" ")
    tokens[field % len(tokens)] = token
    return " ".join(tokens)


@FUZZ
@given(
    text=st.one_of(
        TEXT,
        st.builds(_damage, st.sampled_from(POSITIONS), EDITS),
        st.builds(_field_swap, st.sampled_from(POSITIONS), st.integers(0, 14), TEXT),
    )
)
def test_parse_position_raises_only_notation_error(text: str) -> None:
    """R1-R9 as the position checks them: anything accepted round-trips and can be played on."""
    try:
        state = parse_position(text)
    except NotationError as error:
        assert str(error) and len(str(error)) < 1000
        return
    again = format_position(state)
    assert format_position(parse_position(again)) == again
    if not state.is_over:
        state.apply(ACTIONS[state.legal_action_ids()[0]])


# ---------------------------------------------------------------- records


JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=12)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=20,
)


def _with_field(record: str, key: str, value: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(record)
    data[key] = value
    return data


def _nested(depth: int, opener: str) -> str:
    closer = {"[": "]", '{"a":': "}"}[opener]
    return opener * depth + "1" + closer * depth


FIELDS = st.sampled_from(["format", "version", "variant", "rounds", "first_player", "seed", "actions",
                          "result", "players", "created", "forfeit", "extra"])


@FUZZ
@given(
    record=st.one_of(
        TEXT,
        JSON,
        st.builds(_damage, st.sampled_from(RECORDS), EDITS),
        st.builds(_with_field, st.sampled_from(RECORDS), FIELDS, JSON),
        st.builds(_nested, st.integers(1, 200_000), st.sampled_from(["[", '{"a":'])),
        st.builds(lambda r: r.encode("utf-8"), st.sampled_from(RECORDS)),
        st.binary(max_size=40),
    )
)
def test_reading_a_record_raises_only_record_error(record: Any) -> None:
    """R2.4: a record replays exactly or is refused with a reason."""
    try:
        parse_record(record)
        state = load_record(record)
    except RecordError as error:
        assert str(error)
        return
    assert load_record(dumps_record(state)).history == state.history


def test_deep_nesting_and_long_numbers_in_a_record_are_record_errors() -> None:
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    base = json.loads(RECORDS[0])
    cases: list[Any] = [_nested(100_000, "["), _with_field(RECORDS[0], "result", {"rounds": deep}),
                        RECORDS[0].replace('"seed": ', '"seed": ' + "9" * 5000, 1),
                        base | {"seed": 10**150}, base | {1: 2, "x": 3}]
    for case in cases:
        with pytest.raises(RecordError):
            load_record(case)


# ---------------------------------------------------------------- the protocol


LINE_ARGUMENTS = ["5000", "tactics 3 1", "0 5 1", "draw 2 2", "1 \u00b2 3", "base \u0661 0"]
HOST_LINES = ["go", "go 100", "newgame base 1 0", "schotten 1", "gameover 0 5 2", "quit"]
READERS = (M.parse_go, M.parse_newgame, M.parse_gameover, M.parse_view, M.parse_legal)
VIEW_LINES = [M.view_line(view(s, s.turn)) for s in STATES[:6]]


@FUZZ
@given(
    reader=st.sampled_from(READERS),
    text=st.one_of(TEXT, JSON.map(json.dumps), st.builds(_damage, st.sampled_from(VIEW_LINES), EDITS),
                   st.builds(_nested, st.integers(1, 100_000), st.sampled_from(["[", '{"a":'])),
                   st.sampled_from(LINE_ARGUMENTS)),
)
def test_protocol_line_readers_raise_only_protocol_error(reader: Any, text: str) -> None:
    try:
        reader(text)
    except M.ProtocolError as error:
        assert str(error)


@settings(max_examples=100, deadline=None)
@given(lines=st.lists(st.one_of(TEXT, st.builds(_damage, st.sampled_from(VIEW_LINES), EDITS),
                                st.sampled_from(HOST_LINES),
                                st.sampled_from(VIEW_LINES)), max_size=6))
def test_a_protocol_program_answers_every_line_and_keeps_its_view_on_a_bad_one(lines: list[str]) -> None:
    out = io.StringIO()
    session = _Session(make_bot("random", 1), out)
    for line in lines:
        before = session.seen
        word, _ = M.split_line(line)
        assert session.handle(line) in (True, False)
        if word == "view" and session.seen is not before:
            assert session.seen is not None
        elif word not in ("newgame", "gameover"):
            assert session.seen is before
    for said in out.getvalue().splitlines():
        assert said.split(" ")[0] in ("name", "ready", "move", "error"), said
        assert said.isascii()


def test_the_fuzz_inputs_cover_every_variant_and_a_finished_game() -> None:
    assert {s.settings.variant for s in STATES} == {"base", "tactics", "expert", "expert-base"}
    assert any(s.is_over for s in STATES)


@pytest.mark.parametrize("field", [1, 3, 8])
def test_long_numbers_in_a_position_are_notation_errors(field: int) -> None:
    """Python refuses to read integers of more than 4300 digits; the position says so first."""
    tokens = POSITIONS[0].split(" ")
    tokens[field] = {1: "1/", 3: "", 8: "0:"}[field] + "9" * 5000
    with pytest.raises(NotationError, match="a number of 5000 digits is too long: at most 100"):
        parse_position(" ".join(tokens))
    with pytest.raises(ValueError, match="a seed is a whole number of at most 100 digits"):
        GameState.new(seed=10**100)
