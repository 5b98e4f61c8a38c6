"""Game records: a game as versioned JSON, ``(settings, seed, actions)`` plus its result.

A record replays exactly (R2.4): the settings and the seed deal the first round,
then every action, in notation, is applied with the checked ``apply``. Loading a
record replays it and checks every action and the stored result, so a corrupt or
tampered record raises RecordError saying what is wrong (the move number and the
notation or legality error where an action is at fault).

A record lists every action, ``return 7b`` (Recruiter) included, so the record of
a game in progress is private to whoever holds the whole state (R10.2, R10.4):
only records of finished games are public. The engine has no clock: a caller
that wants a ``created`` timestamp, the time control, the time each decision took,
an ending off the board or the ratings before and after a rated game (version 2)
passes them in. See ``docs/notation.md``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .actions import ACTIONS
from .errors import IllegalActionError, NotationError, RecordError, SchottenError, quoted
from .position import format_position
from .state import SEED_DIGITS, VARIANTS, GameState, MatchResult, Outcome, Settings

FORMAT = "schotten-record"
"""The value of a record's ``format`` field."""
VERSION = 2
"""The record version this engine writes."""
VERSIONS = (1, 2)
"""The record versions this engine reads (version 1 has none of ``ADDED_IN_2``)."""
ENDINGS = ("time", "resigned", "left", "aborted", "abandoned", "banned")
"""How a game can end off the board (a record's ``ending`` reason)."""
FORFEIT_ENDINGS = ("time", "resigned", "left", "banned")
"""The endings that lose the match for their seat (the record's ``forfeit`` holds the same)."""
MAX_DEPTH = 8
"""The deepest nesting of lists and objects a record may have (a real one has 5)."""

Record = dict[str, Any]
"""A game record as a JSON object (see ``record_of``)."""

_REQUIRED: dict[str, str] = {
    "format": "text",
    "version": "a whole number",
    "variant": "text",
    "rounds": "a whole number",
    "first_player": "0, 1 or null",
    "seed": "a whole number",
    "actions": "a list of actions in notation",
    "result": "an object or null",
}
_OPTIONAL: dict[str, str] = {
    "players": "a list of two names",
    "created": "text",
    "forfeit": "an object with the seat that forfeited and the reason",
    "time_control": "an object: initial and increment seconds, or days per move",
    "decision_ms": "a list of milliseconds (or null) per action",
    "ending": "an object with the reason the game ended off the board and a seat",
    "ratings": "a list of two rating changes (or null) per seat",
    "unrated": "why a game played rated changed no rating (a word)",
    "hints": "how many hints the engine gave the human (a whole number)",
}
ADDED_IN_2 = ("time_control", "decision_ms", "ending", "ratings", "unrated", "hints")
"""The optional fields a version 1 record may not have."""
TimeControl = Mapping[str, int]
"""A time control as a record holds it: ``{"initial": s, "increment": s}`` or ``{"days": n}``."""
RatingChange = Mapping[str, float]
"""What a rated game did to one seat's rating: ``{"before", "after", "rd_before", "rd_after"}``."""
RATING_KEYS = ("before", "after", "rd_before", "rd_after")
UNRATED_WORD = re.compile(r"[a-z_]{1,32}")
"""Why a game played rated changed no rating, as a record says it (the server's words)."""


@dataclass(frozen=True)
class RecordedGame:
    """A loaded record: the replayed state and the record's optional fields (None when absent)."""

    state: GameState
    version: int
    players: tuple[str, str] | None
    created: str | None
    time_control: dict[str, int] | None
    decision_ms: tuple[int | None, ...] | None
    ending: dict[str, Any] | None
    ratings: tuple[dict[str, float] | None, dict[str, float] | None] | None = None
    unrated: str | None = None
    hints: int | None = None


# ---------------------------------------------------------------------- writing


def result_of(result: MatchResult | None) -> dict[str, Any] | None:
    """The JSON summary of a finished game's result, or None while it is being played."""
    if result is None:
        return None
    return {
        "winner": result.winner,
        "scores": list(result.scores),
        "rounds": [_round_of(outcome) for outcome in result.rounds],
    }


def _round_of(outcome: Outcome) -> dict[str, Any]:
    return {
        "winner": outcome.winner,
        "reason": outcome.reason.value,
        "stones": list(outcome.stones),
        "points": list(outcome.points),
    }


def record_of(
    state: GameState,
    players: Sequence[str] | None = None,
    created: str | None = None,
    *,
    time_control: TimeControl | None = None,
    decision_ms: Sequence[int | None] | None = None,
    ending: Mapping[str, Any] | None = None,
    ratings: Sequence[RatingChange | None] | None = None,
    unrated: str | None = None,
    hints: int | None = None,
) -> Record:
    """The record of the game that led to ``state`` (its settings, seed and history).

    ``players`` names seat 0 and seat 1; ``created`` is a timestamp text chosen by
    the caller; ``time_control`` is ``{"initial": s, "increment": s}`` or
    ``{"days": n}``; ``decision_ms`` has the milliseconds (or None) each action of
    the history took; ``ending`` is ``{"reason": r, "seat": s}`` for a game that
    ended off the board (r one of ``ENDINGS``; for a forfeit ending ``state`` was
    forfeited by that seat for that reason); ``ratings`` is, for a rated game, each seat's rating
    change (``RATING_KEYS``) or None; ``unrated`` is why a game played rated changed no
    rating (a word such as ``few_decisions``); ``hints`` is, for a game with hints allowed, how
    many the engine gave (such a game is never rated). Raises RecordError if a field is
    malformed or the history does not lead from the deal to ``state`` (a position
    set up with ``parse_position`` has no record).
    """
    record: Record = {
        "format": FORMAT,
        "version": VERSION,
        "variant": state.settings.variant,
        "rounds": state.settings.rounds,
        "first_player": state.settings.first_player,
        "seed": state.seed,
        "actions": [str(ACTIONS[i]) for i in state.history],
        "result": result_of(state.outcome),
    }
    if state.forfeited is not None:
        record["forfeit"] = {"seat": state.forfeited[0], "reason": state.forfeited[1]}
    if players is not None:
        record["players"] = _plain(players)
    if created is not None:
        record["created"] = created
    extras = {"time_control": time_control, "decision_ms": decision_ms, "ending": ending}
    record.update({key: _plain(value) for key, value in extras.items() if value is not None})
    if ratings is not None:
        record["ratings"] = [None if change is None else dict(change) for change in ratings]
    if unrated is not None:
        record["unrated"] = unrated
    if hints is not None:
        record["hints"] = hints
    _check_optional(record)
    _check_leads_to(record, state)
    return record


def _plain(value: object) -> object:
    """A caller's mapping or sequence as the JSON object or list a record holds."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Sequence) and not isinstance(value, str):
        return list(value)
    return value


def _check_leads_to(record: Record, state: GameState) -> None:
    replay = _new_game(record)
    try:
        for text in record["actions"]:
            replay.apply(text)
        if state.forfeited is not None:
            replay.forfeit(*state.forfeited)
    except SchottenError as error:
        raise RecordError(f"this state's history cannot be replayed from the deal: {error}") from None
    if format_position(replay) != format_position(state):
        raise RecordError(
            "this state's history does not lead from the deal to it (a position set up by hand "
            "cannot be recorded)"
        )


def dumps_record(
    state: GameState,
    players: Sequence[str] | None = None,
    created: str | None = None,
    *,
    time_control: TimeControl | None = None,
    decision_ms: Sequence[int | None] | None = None,
    ending: Mapping[str, Any] | None = None,
) -> str:
    """The record of ``state`` as pretty JSON text (see ``record_of``)."""
    return dumps(record_of(state, players, created, time_control=time_control, decision_ms=decision_ms,
                           ending=ending))


def dumps(record: Record) -> str:
    """A record as pretty JSON: one field per line, short lists kept on one line."""
    return _dump(record, 0)


def _dump(value: Any, depth: int) -> str:
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(k)}: {_dump(v, depth + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and value:
        if any(isinstance(v, dict | list) for v in value):
            return "[\n" + ",\n".join(inner + _dump(v, depth + 1) for v in value) + "\n" + pad + "]"
        flat = json.dumps(value, ensure_ascii=False)
        if len(flat) + len(pad) <= 100:
            return flat
        return "[\n" + ",\n".join(_wrap([json.dumps(v, ensure_ascii=False) for v in value], inner)) + \
            "\n" + pad + "]"
    return json.dumps(value, ensure_ascii=False)


def _wrap(words: list[str], pad: str) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in words:
        if line and len(pad) + len(line) + len(word) + 2 > 100:
            lines.append(pad + line)
            line = ""
        line = f"{line}, {word}" if line else word
    return [*lines, pad + line]


def write_record_file(
    path: str | Path,
    state: GameState,
    players: Sequence[str] | None = None,
    created: str | None = None,
    *,
    time_control: TimeControl | None = None,
    decision_ms: Sequence[int | None] | None = None,
    ending: Mapping[str, Any] | None = None,
) -> None:
    """Write the record of ``state`` to ``path`` as UTF-8 JSON (the fields as in ``record_of``)."""
    text = dumps_record(state, players, created, time_control=time_control, decision_ms=decision_ms,
                        ending=ending)
    Path(path).write_text(text + "\n", encoding="utf-8")


# ---------------------------------------------------------------------- reading


def parse_record(record: str | Mapping[str, Any]) -> Record:
    """Read a record's JSON text (or take its object) and check its fields, without replaying it."""
    value: object = record
    if isinstance(record, str | bytes):
        try:
            value = json.loads(record)
        except (ValueError, UnicodeDecodeError) as error:
            raise RecordError(f"a record is JSON text: {error}") from None
        except RecursionError:
            raise RecordError(f"a record is JSON text nested at most {MAX_DEPTH} deep") from None
    if not isinstance(value, Mapping):
        raise RecordError(f"a record is a JSON object, not {type(value).__name__}")
    _check_depth(value)
    checked = dict(value)
    _check_header(checked)
    return checked


def _check_depth(value: object) -> None:
    """Refuse lists and objects nested deeper than MAX_DEPTH (without recursion)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise RecordError(f"a record nests lists and objects at most {MAX_DEPTH} deep")
        if isinstance(item, Mapping):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, Mapping | list))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, Mapping | list))


def _check_header(record: Record) -> None:
    if record.get("format") != FORMAT:
        raise RecordError(f"not a game record: 'format' is {quoted(record.get('format'))}, not {FORMAT!r}")
    version = record.get("version")
    if version not in VERSIONS or not _is_int(version):
        raise RecordError(f"record version {quoted(version)} is not supported (this engine reads "
                          f"{' and '.join(map(str, VERSIONS))})")
    for key, kind in _REQUIRED.items():
        if key not in record:
            raise RecordError(f"the record has no {quoted(key)} field ({kind})")
    unknown = sorted((k for k in record if k not in _REQUIRED and k not in _OPTIONAL), key=repr)
    if unknown:
        raise RecordError(f"unknown field {quoted(unknown[0])} in a version {version} record")
    newer = [key for key in ADDED_IN_2 if key in record]
    if version == 1 and newer:
        raise RecordError(f"a version 1 record has no {quoted(newer[0])} field (it came in version 2)")
    if record["variant"] not in VARIANTS:
        raise RecordError(f"unknown variant {quoted(record['variant'])}: one of {', '.join(VARIANTS)}")
    if not _is_int(record["rounds"]) or not 1 <= record["rounds"] <= 99:
        raise RecordError(f"'rounds' must be a whole number from 1 to 99, not {quoted(record['rounds'])}")
    first = record["first_player"]
    if first is not None and not (_is_int(first) and first in (0, 1)):
        raise RecordError(f"'first_player' must be 0, 1 or null, not {quoted(record['first_player'])}")
    if not _is_int(record["seed"]) or abs(record["seed"]) >= 10**SEED_DIGITS:
        raise RecordError(f"'seed' must be a whole number of at most {SEED_DIGITS} digits, not "
                          f"{quoted(record['seed'])}")
    actions = record["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise RecordError("'actions' must be a list of actions in notation (text)")
    if record["result"] is not None and not isinstance(record["result"], dict):
        raise RecordError(f"'result' must be an object or null, not {quoted(record['result'])}")
    _check_optional(record)


def _check_optional(record: Record) -> None:
    players = record.get("players")
    if "players" in record and not (
        isinstance(players, list) and len(players) == 2 and all(isinstance(p, str) for p in players)
    ):
        raise RecordError(f"'players' must be a list of two names, not {quoted(players)}")
    if "created" in record and not isinstance(record["created"], str):
        raise RecordError(f"'created' must be text, not {quoted(record['created'])}")
    forfeit = record.get("forfeit")
    if "forfeit" in record and not (
        isinstance(forfeit, dict)
        and set(forfeit) == {"seat", "reason"}
        and forfeit["seat"] in (0, 1)
        and _is_int(forfeit["seat"])
        and isinstance(forfeit["reason"], str)
    ):
        raise RecordError(f"'forfeit' must be {{'seat': 0 or 1, 'reason': text}}, not {quoted(forfeit)}")
    if "time_control" in record:
        _check_time_control(record["time_control"])
    if "decision_ms" in record:
        _check_decision_ms(record["decision_ms"], record["actions"])
    if "ending" in record:
        _check_ending(record["ending"], record)
    if "ratings" in record:
        _check_ratings(record["ratings"], record)
    if "unrated" in record:
        _check_unrated(record["unrated"], record)
    if "hints" in record and not (_is_int(record["hints"]) and record["hints"] >= 0):
        raise RecordError(f"'hints' must be a whole number (0 or more), not {quoted(record['hints'])}")


def _check_time_control(control: object) -> None:
    shape = "{'initial': seconds >= 1, 'increment': seconds >= 0} or {'days': a whole number >= 1}"
    if not isinstance(control, dict):
        raise RecordError(f"'time_control' must be {shape}, not {quoted(control)}")
    if set(control) == {"days"}:
        good = _is_int(control["days"]) and control["days"] >= 1
    elif set(control) == {"initial", "increment"}:
        good = all(_is_int(control[k]) for k in control) and control["initial"] >= 1 \
            and control["increment"] >= 0
    else:
        good = False
    if not good:
        raise RecordError(f"'time_control' must be {shape}, not {quoted(control)}")


def _check_decision_ms(spent: object, actions: list[str]) -> None:
    if not isinstance(spent, list) or not all(s is None or (_is_int(s) and s >= 0) for s in spent):
        raise RecordError(f"'decision_ms' must be a list of whole numbers >= 0 or null, not {quoted(spent)}")
    if len(spent) != len(actions):
        raise RecordError(f"'decision_ms' must have one entry per action: it has {len(spent)}, "
                          f"the record has {len(actions)} actions")


def _check_ending(ending: object, record: Record) -> None:
    if not (
        isinstance(ending, dict)
        and set(ending) == {"reason", "seat"}
        and ending["reason"] in ENDINGS
        and (ending["seat"] is None or (_is_int(ending["seat"]) and ending["seat"] in (0, 1)))
    ):
        raise RecordError(f"'ending' must be {{'reason': one of {', '.join(ENDINGS)}; 'seat': 0, 1 or "
                          f"null}}, not {quoted(ending)}")
    reason, forfeit = ending["reason"], record.get("forfeit")
    if reason in FORFEIT_ENDINGS and forfeit != ending:
        raise RecordError(f"a {reason!r} ending loses the match for its seat: 'forfeit' must be "
                          f"{quoted(ending)} too, not {quoted(forfeit)}")
    if reason not in FORFEIT_ENDINGS and "forfeit" in record:
        raise RecordError(f"an {reason!r} game ended with no winner: it has no 'forfeit', not "
                          f"{quoted(forfeit)}")
    if reason not in FORFEIT_ENDINGS and record["result"] is not None:
        raise RecordError(f"an {reason!r} game ended with no winner: its 'result' must be null")


def _check_ratings(ratings: object, record: Record) -> None:
    shape = "a list of two {'before', 'after', 'rd_before', 'rd_after'} (ratings and RDs) or null"
    if not (isinstance(ratings, list) and len(ratings) == 2 and all(
        change is None or (isinstance(change, dict) and set(change) == set(RATING_KEYS)
                           and all(_is_rating(change[key]) for key in RATING_KEYS))
        for change in ratings
    )):
        raise RecordError(f"'ratings' must be {shape}, not {quoted(ratings)}")
    if record["result"] is None:
        raise RecordError("a game with no result changed no rating: it has no 'ratings'")


def _check_unrated(unrated: object, record: Record) -> None:
    if not (isinstance(unrated, str) and UNRATED_WORD.fullmatch(unrated)):
        raise RecordError(f"'unrated' must be a word of a-z and _ (at most 32), not {quoted(unrated)}")
    if "ratings" in record:
        raise RecordError("a game that changed no rating has no 'ratings'")


def _is_rating(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 10_000


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _new_game(record: Record) -> GameState:
    settings = Settings.of(record["variant"], record["rounds"], record["first_player"])
    return GameState.new(settings, record["seed"])


def _replay(record: str | Mapping[str, Any]) -> Iterator[GameState]:
    checked = parse_record(record)
    state = _new_game(checked)
    yield state
    for number, text in enumerate(checked["actions"], start=1):
        try:
            state.apply(text)
        except NotationError as error:
            raise RecordError(f"move {number} {quoted(text)} is malformed: {error}") from None
        except IllegalActionError as error:
            raise RecordError(f"move {number} {quoted(text)} is illegal: {error}") from None
        yield state
    if "forfeit" in checked:
        try:
            state.forfeit(checked["forfeit"]["seat"], checked["forfeit"]["reason"])
        except IllegalActionError as error:
            raise RecordError(f"the record's forfeit comes after the end of the game: {error}") from None
        yield state
    if "ending" in checked and state.is_over and checked["ending"]["reason"] not in FORFEIT_ENDINGS:
        raise RecordError(f"the record's actions finish the game, so it cannot have ended "
                          f"{quoted(checked['ending']['reason'])}")
    _check_result(checked["result"], result_of(state.outcome))


def _check_result(stored: dict[str, Any] | None, replayed: dict[str, Any] | None) -> None:
    if stored == replayed:
        return
    if replayed is None:
        raise RecordError("the record has a result, but its actions do not finish the game")
    if stored is None:
        raise RecordError("the record's actions finish the game, but its result is null")
    for key in ("winner", "scores", "rounds"):
        if stored.get(key) != replayed[key]:
            raise RecordError(
                f"the stored result does not match the replay: {key} is {quoted(stored.get(key))}, "
                f"the replay gives {quoted(replayed[key])}"
            )
    extra = sorted(set(stored) - set(replayed))
    raise RecordError(f"the stored result does not match the replay: unknown key {quoted(extra[0])}")


def load_record(record: str | Mapping[str, Any]) -> GameState:
    """Replay a record (JSON text or object), checking every action and the result; return the state."""
    states = _replay(record)
    state = next(states)
    for state in states:  # noqa: B007 (the last state is the result)
        pass
    return state


def load_game(record: str | Mapping[str, Any]) -> RecordedGame:
    """Replay a record as ``load_record`` does; return the state with the record's optional fields."""
    checked = parse_record(record)
    state = load_record(checked)
    players, spent = checked.get("players"), checked.get("decision_ms")
    control, ending = checked.get("time_control"), checked.get("ending")
    changes = checked.get("ratings")
    return RecordedGame(
        state=state,
        version=checked["version"],
        players=None if players is None else (players[0], players[1]),
        created=checked.get("created"),
        time_control=None if control is None else dict(control),
        decision_ms=None if spent is None else tuple(spent),
        ending=None if ending is None else dict(ending),
        ratings=None if changes is None else (changes[0], changes[1]),
        unrated=checked.get("unrated"),
        hints=checked.get("hints"),
    )


def states_of(record: str | Mapping[str, Any]) -> Iterator[GameState]:
    """Each state of a recorded game: the deal, then the state after each action (checked as in
    ``load_record``; the result is checked after the last action). Each is an independent copy."""
    for state in _replay(record):
        yield state.copy()


def read_record_file(path: str | Path) -> GameState:
    """Load the record in the file at ``path`` (see ``load_record``)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise RecordError(f"{path}: a record is UTF-8 JSON text: {error}") from None
    return load_record(text)
