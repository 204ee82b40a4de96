"""Data flows one way (DESIGN.md): each layer imports only the layers below it.

Checked by parsing every module's imports (including ones inside functions and
``TYPE_CHECKING`` blocks), so a lazy import cannot hide a reversed arrow.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "referee"

#: Area -> the areas it must never import (beside everything above it in the flow).
FORBIDDEN: dict[str, set[str]] = {
    # The detector, its corner refinement, tag layouts, board spec, lengths and the anchor
    # type: below printables, calibration and vision alike.
    "tags": {"markers", "calibration", "vision", "sim", "rules", "maps", "scene", "demo", "cli"},
    # Printables sit below calibration (whose board spec and anchors they print).
    "markers": {"calibration", "vision", "sim", "rules", "maps", "demo", "cli"},
    # Calibration uses the detector but never the per-frame vision pipeline.
    "calibration": {"vision", "sim", "rules", "maps", "demo", "cli"},
    "geometry": {"tags", "markers", "calibration", "vision", "sim", "rules", "maps", "scene"},
    "errors": {
        "tags",
        "markers",
        "calibration",
        "vision",
        "sim",
        "rules",
        "maps",
        "scene",
        "geometry",
    },
    # The all-pairs engine sits beside the single questions: it reads geometry, scenes,
    # the runtime and errors, and is handed what a ruleset decides as plain values.
    "maps": {
        "tags",
        "markers",
        "calibration",
        "vision",
        "sim",
        "rules",
        "game",
        "session",
        "store",
        "web",
        "club",
        "demo",
        "cli",
        "picture",
        "events",
        "validate",
    },
    # The shared checks of files and options sit just above errors, below every loader.
    "validate": {
        "tags",
        "markers",
        "calibration",
        "vision",
        "sim",
        "rules",
        "maps",
        "scene",
        "geometry",
        "store",
        "session",
        "web",
        "demo",
        "cli",
    },
}


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


def imports_of(path: Path) -> set[str]:
    """Every ``referee...`` module ``path`` imports, wherever the import statement is."""
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


def test_the_package_has_the_expected_layers():
    areas = {area(module_name(p)) for p in MODULES}
    assert {"tags", "markers", "calibration", "vision"} <= areas


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_no_module_imports_a_layer_above_it(path: Path):
    own = area(module_name(path))
    forbidden = FORBIDDEN.get(own, set())
    wrong = sorted(name for name in imports_of(path) if area(name) in forbidden)
    assert not wrong, f"{module_name(path)} ({own}) must not import {wrong}"


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
