"""Golden scenario files: each ``tests/data/<system>/*.json`` (``<system>`` a ruleset name
with ``_`` for ``-``, e.g. ``paper_tigers``, ``pz8_ww2``) is a scene whose ``expected``
list gives, per query, the verdict keys a user relies on (like python-chess perft
files). Floats compare to 1e-3 inch."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from referee.rules import find_ruleset_class, ruleset_for, ruleset_names
from referee.scene import load_scene

DATA = Path(__file__).resolve().parents[1] / "data"
SYSTEMS = {name.replace("-", "_"): name for name in ruleset_names()}
FILES = sorted(p for d in SYSTEMS for p in (DATA / d).glob("*.json"))


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, float) or (isinstance(want, int) and isinstance(got, float)):
        return isinstance(got, (int, float)) and math.isclose(got, want, abs_tol=1e-3)
    if isinstance(want, dict):
        return (
            isinstance(got, dict)
            and got.keys() == want.keys()
            and all(_same(got[k], want[k]) for k in want)
        )
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(got) == len(want)
            and all(_same(g, w) for g, w in zip(got, want, strict=True))
        )
    return bool(got == want) and type(got) is type(want)


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_every_system_has_golden_files(system: str) -> None:
    assert list((DATA / system).glob("*.json")), f"no golden files in tests/data/{system}"


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_golden_scenario(path: Path) -> None:
    raw = json.loads(path.read_text())
    scene = load_scene(path)
    # A file belongs to the system whose folder it is in.
    assert find_ruleset_class(scene.ruleset).name == SYSTEMS[path.parent.name]
    expected = raw["expected"]
    assert len(expected) == len(scene.queries), "one expected entry per query"
    verdicts = ruleset_for(scene).answer_all(scene, str(path))
    for i, (verdict, want) in enumerate(zip(verdicts, expected, strict=True)):
        got = verdict.to_json()
        assert got["ask"] == scene.queries[i]["ask"]
        for key, value in want.items():
            if key == "reasons_include":
                text = " | ".join(got["reasons"])
                for fragment in value:
                    assert fragment in text, f"query {i}: {fragment!r} not in reasons: {text}"
                continue
            assert key in got, f"query {i} ({got['summary']}): no key {key!r}"
            assert _same(got[key], value), (
                f"query {i} ({got['summary']}): {key} = {got[key]!r}, expected {value!r}"
            )
