"""Game review: every decision of a finished game judged from the mover's view at that moment (R10).

``review(record, iterations, seed)`` replays a record and, for each decision with more than
one legal action, analyses the mover's view (``analysis.analyse``, the move played measured
beside the search's candidates on the same deals). ``win_before`` is the mover's chance of
winning the round with the best move found, ``win_after`` with the move played; the drop
between them gives the mark (``MARKS``, lichess's thresholds on winning chance; docs/review.md).
Forced decisions (one legal action) are skipped and get no entry.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ..engine import Action, GameState, Phase
from ..engine.record import parse_record, states_of
from ..engine.view import View, view
from .analysis import DEFAULT_ITERATIONS, analyse

MARKS: tuple[tuple[float, str], ...] = ((0.30, "blunder"), (0.20, "mistake"), (0.10, "inaccuracy"))
"""The marks by the least drop in the mover's chance of winning the round that earns them, worst first."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One reviewed decision: its move number (from 1), the mover (from 0), the move played, the best
    move found, the mover's chance with the best and with the move played, and the mark (or None)."""

    move: int
    seat: int
    action: str
    best: str
    win_before: float
    win_after: float
    mark: str | None

    def as_dict(self) -> dict[str, Any]:
        """The decision as JSON data, seats numbered from 1 and chances to three decimals."""
        data = asdict(self)
        data.update(seat=self.seat + 1, win_before=round(self.win_before, 3),
                    win_after=round(self.win_after, 3))
        return data


def mark_of(drop: float) -> str | None:
    """The mark a drop in winning chance earns (``MARKS``), None below the smallest threshold."""
    return next((name for least, name in MARKS if drop >= least - 1e-9), None)


def judge(
    seen: View, played: str, move: int, iterations: int = DEFAULT_ITERATIONS, seed: int = 0
) -> Decision:
    """The review of one decision: ``played`` (in the notation) in the mover's view ``seen``."""
    assert seen.seat is not None
    played = str(Action.parse(played))
    found = analyse(seen, iterations, seed, also=(played,))
    best = found.best[0]
    after = found.win_of(played)
    assert after is not None
    mark = None if played == best.action else mark_of(best.win - after)
    return Decision(move, seen.seat, played, best.action, best.win, after, mark)


def decisions_of(states: Iterable[GameState], actions: list[str]) -> Iterable[tuple[int, View, str]]:
    """The decisions to review: move number, the mover's view before it, the move played; forced
    decisions (one legal action) left out."""
    for number, (state, played) in enumerate(zip(states, actions, strict=False), start=1):
        if state.phase != Phase.OVER and len(state.legal_action_ids()) > 1:
            yield number, view(state, state.turn), played


def review(
    record: str | Mapping[str, Any],
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    only: Collection[int] | None = None,
) -> list[Decision]:
    """Review every unforced decision of a recorded game (see the module docstring), or those of the
    move numbers in ``only``; ``progress(done, total)`` is called after each decision."""
    checked = parse_record(record)
    found = [found for found in decisions_of(states_of(checked), list(checked["actions"]))
             if only is None or found[0] in only]
    reviewed = []
    for number, seen, played in found:
        reviewed.append(judge(seen, played, number, iterations, seed))
        if progress is not None:
            progress(len(reviewed), len(found))
    return reviewed
