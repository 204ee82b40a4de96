"""Data flows one way (DESIGN.md): each layer imports only the layers below it.

Checked by parsing every module's imports (including ones inside functions and
``TYPE_CHECKING`` blocks), so a lazy import cannot hide a reversed arrow.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "referee"

#: The bottom of the package: every layer may use these.
BASE = {"commands", "errors", "outputs", "runtime", "validate"}

#: Area -> the areas its modules may import (their own area always), from DESIGN.md's
#: layout: tags and geometry at the bottom; scene, markers, calibration above them; rules
#: and maps read scenes; vision reads calibration and tags; game drives vision, rules, maps
#: and the store; web and club read game and the store; commands sit on top (a command
#: module may import anything, and only a command module may import one).
ALLOWED: dict[str, set[str]] = {
    "": set(),  # referee/__init__.py
    "errors": set(),
    "commands": set(),
    "runtime": {"errors"},
    "outputs": {"errors"},
    "validate": {"errors", "outputs"},
    "media": {"errors", "outputs", "validate"},
    "events": {"errors"},
    "tags": BASE | {"media", "geometry"},
    # Plane geometry, one question at a time (the all-pairs engine is maps/).
    "geometry": BASE,
    # Printables sit below calibration (whose board spec and anchors they print).
    "markers": BASE | {"media", "tags", "geometry"},
    # Calibration uses the detector but never the per-frame vision pipeline.
    "calibration": BASE | {"media", "tags", "geometry", "markers"},
    "scene": BASE | {"geometry", "calibration"},
    "rules": BASE | {"geometry", "scene", "maps"},
    # The all-pairs engine beside the single questions: handed what a ruleset decides as
    # plain values, it reads only geometry, scenes, the runtime and errors.
    "maps": {"errors", "runtime", "geometry", "scene"},
    "vision": BASE | {"media", "tags", "geometry", "markers", "calibration", "scene"},
    "picture": BASE | {"geometry", "calibration", "scene"},
    "sim": BASE | {"media", "tags", "geometry", "markers", "calibration", "scene"},
    "store": BASE | {"events"},
    # game warms the maps' compiled loops on the simulator's random tables (game/warm.py).
    "game": BASE
    | {"media", "events", "tags", "geometry", "markers", "calibration", "scene"}
    | {"rules", "maps", "vision", "picture", "store", "sim"},
    # Battle reports read the store and the game's replay (DESIGN.md: "report reads the
    # store"); they draw with picture's shapes.
    "report": BASE
    | {"media", "events", "geometry", "markers", "scene", "rules", "maps"}
    | {"picture", "store", "game"},
    # The dashboard reads the game and the store: never vision, calibration or a command.
    "web": BASE
    | {"events", "geometry", "markers", "scene", "rules", "maps", "picture"}
    | {"store", "game"},
    # The club server: the game and the store and what lies below them, never the dashboard.
    "club": BASE | {"events", "geometry", "scene", "rules", "maps", "picture", "store", "game"},
}

#: Areas DESIGN.md names that other work is adding (absent from the package until it lands).
COMING = {"club"}

#: Modules that are commands (DESIGN.md: "commands sit on top"): besides these, any module
#: whose name ends in ``cli`` (``cli``, ``web.cli``, ``rules.cli``...).
COMMANDS = {"referee.cli", "referee.__main__"}

#: Every "never" of DESIGN.md and issue 29, checked on its own (the table above implies
#: them; these say them in the design's words, so a table edit cannot drop one quietly).
NEVER: list[tuple[set[str], set[str]]] = [
    ({"scene", "vision", "calibration", "markers", "tags"}, {"rules", "game", "web", "club"}),
    ({"rules"}, {"vision", "game", "web", "club"}),
    ({"maps"}, {"rules", "vision", "game", "web", "club"}),
    ({"web"}, {"vision", "calibration", "sim", "club"}),
    ({"club"}, {"web", "vision", "calibration", "markers", "sim"}),
    ({"game", "store", "rules", "maps", "vision", "scene"}, {"web", "club"}),
    ({"game", "store", "rules", "maps", "vision", "scene", "picture"}, {"report"}),
    ({"report"}, {"web", "club", "vision", "calibration", "sim"}),
]


def is_command(module: str) -> bool:
    return module in COMMANDS or module.rsplit(".", 1)[-1].endswith("cli")


def area(module: str) -> str:
    """``referee.tags.detect`` -> ``tags``; ``referee.errors`` -> ``errors``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, tree: ast.AST | None = None) -> set[str]:
    """Every ``referee...`` module ``path`` imports, wherever the import statement is
    (in ``tree``, when given: the module's code parsed and trimmed)."""
    if tree is None:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = node.module or ""
            if node.level:  # relative: resolve against the module's own package
                package = module_name(path).split(".")
                if path.name != "__init__.py":
                    package.pop()
                base = package[: len(package) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            found.add(target)
            # ``from referee import vision`` imports a subpackage by name.
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("referee.")}


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_the_table_covers_every_area_of_the_package():
    """A new area (folder or top-level module) needs its row before it can be checked."""
    areas = {area(module_name(p)) for p in MODULES if not is_command(module_name(p))}
    assert not areas - set(ALLOWED), f"add {sorted(areas - set(ALLOWED))} to ALLOWED"
    stale = set(ALLOWED) - areas - COMING
    assert not stale, f"{sorted(stale)} are in ALLOWED but not in the package"
    named = set().union(*ALLOWED.values())
    assert named <= set(ALLOWED), f"unknown areas {sorted(named - set(ALLOWED))} in the table"


def test_the_table_keeps_every_never():
    for sources, targets in NEVER:
        for source in sources:
            assert not ALLOWED[source] & targets, (
                f"{source} may not import {ALLOWED[source] & targets}"
            )


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_no_module_imports_a_layer_above_it(path: Path):
    own = module_name(path)
    if is_command(own):
        return  # commands sit on top: they may import any layer
    mine = area(own)
    allowed = ALLOWED.get(mine, set()) | {mine}
    wrong = sorted(
        name for name in imports_of(path) if area(name) not in allowed or is_command(name)
    )
    assert not wrong, f"{own} ({mine}) must not import {wrong}"


def test_nothing_under_web_imports_a_command_module():
    """The dashboard's own modules never reach a command (issue 29); ``web/cli.py`` is the
    ``serve`` command itself, so the app modules never import it either."""
    for path in (PACKAGE / "web").rglob("*.py"):
        own = module_name(path)
        if is_command(own):
            continue
        commands = sorted(name for name in imports_of(path) if is_command(name))
        assert not commands, f"{own} imports the command module(s) {commands}"


def test_the_checker_knows_commands_and_areas():
    assert is_command("referee.web.cli") and is_command("referee.rules.cli")
    assert is_command("referee.game.cli") and is_command("referee.store.cli")
    assert not is_command("referee.game.live") and not is_command("referee.calibration.profile")
    assert area("referee.game.session") == "game" and area("referee.store") == "store"


def test_the_checker_sees_lazy_and_type_checking_imports(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from referee.calibration.camera import Intrinsics\n"
        "def f():\n    import referee.vision.pipeline\n"
        "    from referee import markers\n"
    )
    assert {"referee.calibration.camera", "referee.vision.pipeline", "referee.markers"} <= (
        imports_of(sample)
    )


def runtime_imports_of(path: Path) -> set[str]:
    """:func:`imports_of` without the ``TYPE_CHECKING`` blocks: what runs on import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            node.body = [ast.Pass()]
    return imports_of(path, tree)


@pytest.mark.parametrize("where", sorted(a for a in ALLOWED if a))
def test_no_import_cycle_inside_an_area(where: str):
    """Inside an area too, imports run one way (issues 37 and 38: a rules module never
    imports ``referee.rules`` itself, the core no module that imports the core, the club's
    blueprints not the app factory that registers them). ``TYPE_CHECKING`` imports are
    only names for the type checker, not arrows: they are left out here."""
    graph = {
        module_name(path): {
            name
            for name in runtime_imports_of(path)
            if name.startswith(f"referee.{where}") and name != module_name(path)
        }
        for path in MODULES
        if module_name(path).startswith(f"referee.{where}")
    }
    # An edge to a package's __init__ only when the module imports it by that name: a
    # submodule import runs its parent package first, which is no arrow of the module's.
    cycle = _find_cycle({m: {d for d in deps if d in graph} for m, deps in graph.items()})
    assert cycle is None, " -> ".join(cycle or [])


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (as the modules along it, first repeated last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_the_cycle_finder_finds_a_cycle_and_no_false_one():
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def _maps_imports_outside_maps() -> list[str]:
    """Every import of a ``referee.maps`` submodule, or of a name ``referee.maps`` does not
    export (an underscore name, a module), in ``referee/`` outside ``referee/maps/``, in
    ``tests/`` outside ``tests/maps/`` and in ``benchmarks/``, as ``file:line what``."""
    import referee.maps

    exported = set(referee.maps.__all__)
    root = PACKAGE.parent
    places = [
        *(p for p in PACKAGE.rglob("*.py") if "maps" not in p.relative_to(PACKAGE).parts[:1]),
        *(p for p in (root / "tests").rglob("*.py") if p.relative_to(root).parts[1] != "maps"),
        *(root / "benchmarks").rglob("*.py"),
    ]
    wrong = []
    for path in places:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(root)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Import):
                wrong += [
                    f"{where} {a.name}" for a in node.names if a.name.startswith("referee.maps.")
                ]
            elif isinstance(node, ast.ImportFrom) and node.module:
                if node.module.startswith("referee.maps."):
                    wrong.append(f"{where} {node.module}")
                elif node.module == "referee.maps":
                    wrong += [f"{where} {a.name}" for a in node.names if a.name not in exported]
    return wrong


def test_nothing_outside_maps_imports_a_maps_submodule_or_internal_name():
    """The all-pairs engine has a thin API (issue 37 item 3): ``referee.maps`` exports at
    most six names, and nothing outside ``referee/maps/`` (product code, tests, the
    benchmarks) imports a ``maps`` submodule or a name it does not export. ``tests/maps/``
    is exempt: it tests the engine's internals (its kernels, twins and caches) directly."""
    import referee.maps

    assert len(referee.maps.__all__) <= 6, referee.maps.__all__
    assert not any(name.startswith("_") for name in referee.maps.__all__)
    wrong = _maps_imports_outside_maps()
    assert not wrong, "import maps through its public names: " + "; ".join(wrong)


def test_no_import_cycle_anywhere_in_the_package():
    """Across areas too, no module reaches itself through its imports (issue 38: a cycle
    between two areas is as hard to carry on as one inside an area). A lazy import inside a
    function counts: it runs, and hiding an arrow in a function does not remove it.
    ``TYPE_CHECKING`` imports do not: they never run, and they only name a type for the
    checker, so two modules may name each other's types without depending on each other."""
    graph = {module_name(path): runtime_imports_of(path) - {module_name(path)} for path in MODULES}
    cycle = _find_cycle({m: {d for d in deps if d in graph} for m, deps in graph.items()})
    assert cycle is None, " -> ".join(cycle or [])


GAME_MODULE_LINES = 500
"""Issue 38 item 3: no module of the game package is over this many lines."""


def test_no_module_under_game_is_over_500_lines():
    """The session is composed of parts (issue 38): each module of ``referee/game/`` stays
    short enough to read in one sitting."""
    long = {
        f"referee/game/{path.name}": lines
        for path in sorted((PACKAGE / "game").glob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > GAME_MODULE_LINES
    }
    assert not long, "; ".join(
        f"{name} is {lines} lines (at most {GAME_MODULE_LINES})" for name, lines in long.items()
    )
