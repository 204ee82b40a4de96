"""The compiled loops' pure-Python twins (issue 42: no warm-up freeze): what ``serve``
answers with while the loops compile in another process. They must give the very
verdicts the compiled loops give, and never reach numba."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest
from numba.core.registry import CPUDispatcher

from referee.game.warm import WarmUp
from referee.maps import kernels
from referee.rules import ruleset_for
from referee.sim.tables import SYSTEM_KINDS, random_table


@pytest.fixture
def twins() -> Iterator[None]:
    kernels.use_twins("test")
    try:
        yield
    finally:
        kernels.use_compiled("test")


@pytest.mark.parametrize("module", kernels.MODULES)
def test_a_twin_module_holds_no_compiled_loop(module: str) -> None:
    """Every loop of the module, and every plain function that calls one, is rebound to
    the twins' namespace: nothing a twin calls is numba's."""
    space = kernels._twins(module)
    assert not [name for name, value in space.items() if isinstance(value, CPUDispatcher)]
    own = [
        value
        for value in space.values()
        if getattr(value, "__module__", None) == f"referee.maps.{module}"
        and hasattr(value, "__globals__")
    ]
    assert own, "the module has functions of its own"
    assert all(value.__globals__ is space for value in own)


def test_loops_are_the_compiled_ones_unless_twins_are_asked_for(twins: None) -> None:
    (twin,) = kernels.loops("contacts", "contacts")
    assert not isinstance(twin, CPUDispatcher) and not kernels.compiled()
    kernels.use_compiled("test")
    assert isinstance(kernels.loop("contacts", "contacts"), CPUDispatcher)


def _targets(system: str, seed: int) -> list[dict[str, object]]:
    rng = random.Random(f"{system}/{seed}")
    scene = random_table(
        26, rng.randint(6, 18), rng.choice((0.0, 0.02, 0.1)), seed=seed, ruleset=system
    )
    rules = ruleset_for(scene)
    if "targets" not in rules.questions():
        return []
    firers = [p.id for p in scene.pieces][:4]
    return [dict(rules.answer(scene, {"ask": "targets", "from": f}).to_json()) for f in firers]


@pytest.mark.parametrize("system", sorted(SYSTEM_KINDS))
def test_twins_answer_targets_exactly_as_the_compiled_loops(system: str) -> None:
    """Four firers' ``targets`` on a random 26-piece table, field for field and float for
    float, compiled and with the twins."""
    compiled = _targets(system, 5)
    kernels.use_twins("test")
    try:
        assert _targets(system, 5) == compiled
    finally:
        kernels.use_compiled("test")


def test_a_warm_up_answers_with_twins_until_its_process_is_done() -> None:
    """The warm-up process compiles (here: finds the suite's warm cache) while the twins
    answer; when it ends the compiled loops are used again."""
    warm = WarmUp(["pz8-ww2"])
    try:
        assert warm.running and not kernels.compiled()
        assert warm.to_json()["running"] is True
        deadline = time.monotonic() + 120
        while warm.running and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not warm.running, "the warm-up process did not end"
        assert kernels.compiled()
        assert warm.to_json()["failed"] is None
    finally:
        warm.stop()
    assert kernels.compiled()
