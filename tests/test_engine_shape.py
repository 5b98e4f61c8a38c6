"""The engine's shape: no import cycle, nothing of ours outside it, its vocabulary as enums."""

from __future__ import annotations

import ast
import json
import sys
from enum import Enum
from pathlib import Path

from schotten.engine import GameState, Kind, Phase, Reason, Settings
from schotten.engine.explain import ClaimKind
from schotten.engine.record import record_of
from schotten.engine.view import view

ENGINE = Path(__file__).resolve().parent.parent / "schotten" / "engine"


def _imports(path: Path) -> set[str]:
    """Every module of the engine that ``path`` imports, anywhere in it (functions and
    ``TYPE_CHECKING`` blocks included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return found - {"__init__"}


def _graph() -> dict[str, set[str]]:
    return {path.stem: _imports(path) for path in ENGINE.glob("*.py") if path.stem != "__init__"}


def test_engine_modules_import_each_other_without_a_cycle() -> None:
    """Ordered so that each module imports only modules before it (DESIGN: dependencies point one way)."""
    graph = _graph()
    order: list[str] = []
    while len(order) < len(graph):
        ready = sorted(m for m in graph if m not in order and graph[m] <= set(order))
        assert ready, f"an import cycle among {sorted(set(graph) - set(order))}"
        order += ready
    assert order.index("explain") < order.index("state") < order.index("view")


def test_the_engine_imports_nothing_of_ours_and_only_the_standard_library() -> None:
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top == "__future__" or top in sys.stdlib_module_names, (path.name, name)


def test_the_engine_vocabulary_is_enums() -> None:
    for vocabulary in (Kind, Phase, Reason, ClaimKind):
        assert issubclass(vocabulary, Enum)


def test_round_reasons_are_a_reason_and_plain_words_in_records_and_views() -> None:
    """R6.1: a round won on three adjacent stones; the record and the view carry the words."""
    state = GameState.new(Settings.of("base", first_player=0), seed=0)
    state.forfeit(1, "resigned")
    outcome = state.round_outcomes[0]
    assert outcome.reason is Reason.FORFEIT and outcome.reason == "forfeit"
    record = json.loads(json.dumps(record_of(state)))
    assert record["result"]["rounds"][0]["reason"] == "forfeit"
    reason = view(state, 0).to_dict()["round_outcomes"][0]["reason"]  # type: ignore[index]
    assert reason == "forfeit" and type(reason) is str
    assert [r.value for r in Reason] == [
        "three adjacent stones", "five stones", "more stones when play ran out",
        "equal stones when play ran out", "forfeit",
    ]
