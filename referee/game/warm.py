"""The maps' compiled loops made ready for this machine before a player taps.

numba compiles the loops of :mod:`referee.maps` on their first call after installing
(up to a minute in all) and holds the GIL meanwhile, so a dashboard's first ``targets``
tap froze for 45-65 s and every other request with it (issue 42). :class:`WarmUp` runs
:func:`warm` in a separate process, which compiles the loops into numba's cache beside
the modules; until it is done the serving process answers with the loops' pure-Python
twins (:meth:`referee.maps.MapCache.use_twins`: the same arithmetic, slower), then loads the
compiled loops from the cache (under a second). With the cache already warm the process
is done in a few seconds, having compiled nothing.

``python -m referee.game.warm [SYSTEM ...]`` runs :func:`warm` (every system when none
is named); the test suite runs it before its workers start, so they find the cache warm.
"""

from __future__ import annotations

import contextlib
import random
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

from referee.maps import MapCache
from referee.rules import QueryError, ruleset_for, ruleset_names
from referee.scene import Scene
from referee.sim.tables import SYSTEM_KINDS, random_table

_REASON = "warm-up"


def _tables(system: str) -> list[Scene]:
    """Tables that take every loop a live table of ``system`` takes: doubt and no doubt,
    terrain, bases apart, and for Papercraft a crowded table (its shields pay only from
    about 150 bases on a 72 x 48 in table)."""
    rng = random.Random(system)
    tables = [
        random_table(12, 6, 0.0, seed=rng.randint(0, 999), ruleset=system),
        random_table(30, 14, 0.02, seed=rng.randint(0, 999), ruleset=system),
        random_table(60, 10, 0.1, seed=rng.randint(0, 999), ruleset=system, apart=True),
    ]
    if system == "papercraft":
        tables.append(
            random_table(160, 4, 0.0, seed=rng.randint(0, 999), ruleset=system, apart=True)
        )
    return tables


def warm(systems: Sequence[str] = ()) -> None:
    """Ask every question that takes a compiled loop, on :func:`_tables` of each system
    (every system when none is named): the all-pairs map, ``range``, ``los`` and
    ``targets``, then ``targets`` again after a piece moved (the live map's update), so
    numba compiles each loop for the argument types a live table passes."""
    for system in [s for s in (systems or ruleset_names()) if s in SYSTEM_KINDS]:
        for scene in _tables(system):
            rules = ruleset_for(scene)
            asked = set(rules.questions())
            if hasattr(rules, "visibility"):
                rules.visibility(scene)
            for first, second in zip(scene.pieces[:3], scene.pieces[3:6], strict=False):
                for question in ("range", "los"):
                    if question in asked:
                        pair = {"ask": question, "from": first.id, "to": second.id}
                        with contextlib.suppress(QueryError):  # e.g. a kind with no weapon
                            rules.answer(scene, pair)
            if "targets" in asked:
                firer, mover = scene.pieces[0], scene.pieces[-1]
                rules.answer(scene, {"ask": "targets", "from": firer.id})
                later = scene.with_pieces(mover.moved(mover.x + 1.0, mover.y + 0.5))
                rules.answer(later, {"ask": "targets", "from": firer.id})


class WarmUp:
    """:func:`warm` in a process of its own, the twins answering until it is done."""

    def __init__(self, systems: Sequence[str]) -> None:
        self.started = time.monotonic()
        self.finished: float | None = None
        self.failed: str | None = None
        MapCache.use_twins(_REASON)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "referee.game.warm", *systems],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        self._waiter = threading.Thread(target=self._wait, name="referee-warm-up", daemon=True)
        self._waiter.start()

    def _wait(self) -> None:
        code = self._process.wait()
        if code != 0:
            # The loops then compile where they are first called, as in every other command.
            self.failed = f"the warm-up process exited with code {code}"
        self.finished = time.monotonic()
        MapCache.use_compiled(_REASON)

    @property
    def running(self) -> bool:
        return self.finished is None

    def to_json(self) -> dict[str, object]:
        """What the dashboard's health says of it."""
        end = self.finished if self.finished is not None else time.monotonic()
        return {
            "running": self.running,
            "seconds": round(end - self.started, 1),
            "failed": self.failed,
        }

    def stop(self) -> None:
        """End the process (serve is stopping); the twins are no longer needed."""
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
        self._waiter.join(timeout=5)


if __name__ == "__main__":
    from referee.runtime import tell_when_compiling

    tell_when_compiling()
    warm(sys.argv[1:])
