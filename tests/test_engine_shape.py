"""The code's shape: no import cycle anywhere, layers that import downwards only, an engine that imports
nothing of ours, its vocabulary as enums."""

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

PACKAGE = Path(__file__).resolve().parent.parent / "schotten"
ENGINE = PACKAGE / "engine"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("schotten.__main__",),
    ("schotten.cli",),
    ("schotten.arena", "schotten.benchmark", "schotten.tui", "schotten.web"),
    ("schotten.web.app",),
    ("schotten.web.routes",),
    ("schotten.web.service",),
    ("schotten.web.analysis", "schotten.web.cluster", "schotten.web.community", "schotten.web.moderation",
     "schotten.web.playnow", "schotten.web.challenges",
     "schotten.web.rematch", "schotten.web.reviews", "schotten.web.talk", "schotten.web.tournaments"),
    ("schotten.web.games",),
    ("schotten.web.players",),
    ("schotten.web.storage",),
    ("schotten.web.edge",),
    ("schotten.web.core",),
    ("schotten.env", "schotten.protocol"),
    ("schotten.bots",),
    ("schotten.engine",),
    ("schotten",),
)
"""The layers of ``schotten``, top first (DESIGN: dependencies point one way). A module belongs to the
longest package or module named here that holds it; it may import its own part and any part of a
lower layer, never a part beside it or above it (``schotten.web`` is only the package's own module:
its parts are named)."""


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


def _modules() -> dict[str, Path]:
    """Every module of ``schotten`` by its dotted name (a package by its own name)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of ``schotten`` that module ``name`` imports, anywhere in it (functions and
    ``TYPE_CHECKING`` blocks included): ``from a import b`` counts ``a.b`` if it is a module, else ``a``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                inner = f"{target}.{alias.name}"
                found.add(inner if inner in modules else target)
    return {module for module in found if module in modules and module != name}


def _import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imported(name, path, modules) for name, path in modules.items()}


def _part(module: str) -> str:
    """The part of ``LAYERS`` that holds ``module``."""
    parts = [p for layer in LAYERS for p in layer if module == p or module.startswith(p + ".")]
    assert parts, f"{module} is in no layer: add it to LAYERS"
    return max(parts, key=len)


def _layer(part: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if part in layer)


def test_no_module_of_schotten_is_in_an_import_cycle() -> None:
    graph = _import_graph()
    done: set[str] = set()
    while len(done) < len(graph):
        ready = {m for m in graph if m not in done and graph[m] <= done}
        assert ready, f"an import cycle among {sorted(set(graph) - done)}"
        done |= ready


def test_every_import_goes_down_the_layers() -> None:
    wrong = []
    for module, imported in sorted(_import_graph().items()):
        mine = _part(module)
        for other in sorted(imported):
            theirs = _part(other)
            if theirs != mine and _layer(theirs) <= _layer(mine):
                wrong.append(f"{module} imports {other} ({theirs} is not below {mine})")
    assert not wrong, "\n".join(wrong)


CLUSTER = "schotten.web.cluster"


def test_a_one_process_server_loads_no_cluster_code() -> None:
    """Only ``service`` reaches the cluster, and only when Redis is configured (``games.ports.Alone``)."""
    users = {m for m, imported in _import_graph().items()
             if any(_part(i) == CLUSTER for i in imported) and _part(m) != CLUSTER}
    assert users == {"schotten.web.service"}
    source = (PACKAGE / "web" / "service.py").read_text(encoding="utf-8")
    assert "\n    from .cluster.peers import Peers\n" in source


def test_web_classes_and_modules_stay_small() -> None:
    """No module of ``schotten.web`` over 450 lines, no class over 300 (DESIGN: no god object)."""
    for path in (PACKAGE / "web").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 450, path
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                assert node.end_lineno is not None
                assert node.end_lineno - node.lineno + 1 <= 300, (path, node.name)


def test_every_web_package_says_its_job_and_what_it_may_import() -> None:
    for init in (PACKAGE / "web").glob("*/__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and "may import" in doc.lower(), init


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
