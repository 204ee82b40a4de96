"""Question templates: a system's bespoke questions declared as data.

Many questions a rulebook adds are the same question in other words: two pieces, the
distance between them, a limit, and the answer in the rule's own terms ("may take its
place", "in contact"). A system lists such questions in :attr:`Ruleset.checks
<referee.rules.base.Ruleset.checks>` and the base class answers them by name, like its
``ask_*`` methods; the system keeps a hook only where its text has a real rule (a
precondition that is not a distance).

* :class:`Gap`: is the distance between two pieces within a limit?
* :class:`BaseSizes`: is every piece's base its kind's size?
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from referee.geometry import centre_distance, polygon_distance
from referee.rules.values import Verdict, judge
from referee.rules.wording import WITHIN, Words

if TYPE_CHECKING:
    from referee.rules.base import Ruleset
    from referee.rules.core import TableRuleset
    from referee.scene import Scene


def _inches(x: float) -> str:
    return f"{x:.2f}in"


@dataclass(frozen=True)
class Gap:
    """Is the distance between two pieces (``pieces``: the query's fields naming them)
    within ``limit`` inches?

    ``measure`` is ``edge`` (nearest base edges) or ``centre``. ``needs`` names a method of
    the ruleset, ``(scene, a, b) -> [(ok, reason), ...]``, for the rule's conditions that
    are not a distance: each is judged before the distance, and any False makes the answer
    False. ``reason`` and ``summary`` are format strings over ``ask``, ``a`` and ``b`` (the
    pieces' ids), ``d`` (the distance), ``pm`` (its doubt, when there is one), ``limit``,
    ``near`` (the distance against the limit, :data:`WITHIN`) and ``word`` (the answer in
    ``words``)."""

    ask: str
    doc: str
    limit: float | Callable[[Any], float]
    words: Words
    pieces: tuple[str, str] = ("from", "to")
    measure: str = "edge"
    reason: str = "bases {d} apart: {word}"
    summary: str = "{ask} {a} -> {b}: {d}{pm}, {word}"
    needs: str | None = None

    def answer(self, rules: Ruleset, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        a, b = (rules.question_piece(scene, query, key) for key in self.pieces)
        if self.measure == "centre":
            d = centre_distance(a.xy, b.xy)
        else:
            d = polygon_distance(a.corners(), b.corners())
        doubt = a.uncertainty + b.uncertainty
        limit = self.limit if isinstance(self.limit, (int, float)) else self.limit(rules)
        near = judge(d, limit, doubt)
        conditions = getattr(rules, self.needs)(scene, a, b) if self.needs else []
        oks = [ok for ok, _ in conditions] + [near]
        ok = False if False in oks else None if None in oks else True
        words = {
            "ask": self.ask,
            "a": a.id,
            "b": b.id,
            "d": _inches(d),
            "pm": f" (+/-{doubt:.2f})" if doubt else "",
            "limit": f"{limit:g}in",
            "near": WITHIN(near),
            "word": self.words(ok),
        }
        reasons = [why for _, why in conditions] + [self.reason.format(**words)]
        return Verdict(
            self.ask,
            ok,
            tuple(reasons),
            distance=d,
            uncertainty=doubt,
            limit=limit,
            summary=self.summary.format(**words),
        )


@dataclass(frozen=True)
class BaseSizes:
    """Is every piece's base the size its kind's category fixes (``sizes``: category ->
    (width, depth), inches, either way round), within the setting ``tolerance`` names?"""

    ask: str
    sizes: Mapping[str, tuple[float, float]]
    tolerance: str
    noun: str = "template"

    @property
    def doc(self) -> str:
        return f"Is every piece's base its type's {self.noun} size?"

    def answer(self, rules: TableRuleset, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        tol = getattr(rules.settings, self.tolerance)
        wrong: dict[str, Any] = {}
        for p in scene.pieces:
            want = self.sizes[rules.category(p)]
            if max(abs(a - b) for a, b in zip(sorted(p.base), sorted(want), strict=True)) > tol:
                wrong[p.id] = {"base": list(p.base), self.noun: list(want)}
        reasons = [
            f"{pid}'s base {v['base'][0]:g}x{v['base'][1]:g} is not the "
            f"{v[self.noun][0]:g}x{v[self.noun][1]:g} {self.noun}"
            for pid, v in wrong.items()
        ] or [f"every base is its type's {self.noun}"]
        return Verdict(
            self.ask,
            not wrong,
            tuple(reasons),
            details={"wrong": wrong},
            summary=f"{self.ask}: " + ("all match" if not wrong else f"wrong: {', '.join(wrong)}"),
        )
