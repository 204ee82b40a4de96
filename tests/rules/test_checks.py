"""Question templates (``rules/checks.py``): a system's own question declared as data is
answered by name, judged with the pieces' doubt, and worded in the rule's terms."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import pytest

from referee.rules.checks import BaseSizes, Gap
from referee.rules.core import TableRuleset
from referee.rules.values import QueryError
from referee.rules.wording import Words
from referee.scene import Piece, Scene, Table


class Medics(TableRuleset):
    """A medic heals a wounded friend within 2in, edge to edge; bases are 1x1 or 2x1."""

    name = "example-medics"
    kinds: ClassVar[Mapping[str, str]] = {"medic": "medic", "rifle": "rifle", "hmg": "team"}
    SIZES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "medic": (1.0, 1.0),
        "rifle": (1.0, 1.0),
        "team": (1.0, 2.0),
    }
    checks = (
        Gap(
            "heal",
            "May the medic ``from`` heal ``to``? Within 2in, base edge to base edge.",
            2.0,
            Words("may heal", "may not heal"),
            reason="{b} is {d} from {a}: {near} {limit}",
            needs="healing",
        ),
        Gap("shout", "Within 6in centre to centre.", 6.0, Words("hears", "deaf"), measure="centre"),
        BaseSizes("bases", SIZES, "base_tolerance"),
    )

    @dataclass(frozen=True)
    class Settings(TableRuleset.Settings):
        base_tolerance: float = 0.05

    def healing(self, scene: Scene, a: Piece, b: Piece) -> list[tuple[bool, str]]:
        return [] if self.category(a) == "medic" else [(False, f"{a.id} is not a medic")]


def _scene(gap: float, doubt: float = 0.0, base: tuple[float, float] = (1, 1)) -> Scene:
    return Scene(
        "example-medics",
        Table(24, 24),
        pieces=(
            Piece("doc", "red", "medic", 4, 4, 0, (1, 1), uncertainty=doubt),
            Piece("pte", "red", "rifle", 5 + gap, 4, 0, base, uncertainty=doubt),
        ),
    )


def _ask(scene: Scene, **query: object):
    return Medics().answer(scene, query)


def test_template_questions_are_listed_and_answered_by_name():
    assert {"heal", "shout", "bases", "range", "los", "move"} <= set(Medics.questions())
    v = _ask(_scene(1.5), ask="heal", **{"from": "doc", "to": "pte"})
    assert v.ok is True and v.distance == pytest.approx(1.5) and v.limit == 2.0
    assert v.reasons == ("pte is 1.50in from doc: within 2in",)
    assert v.summary == "heal doc -> pte: 1.50in, may heal"


def test_a_gap_beyond_the_limit_fails_and_one_within_the_doubt_is_too_close_to_call():
    beyond = _ask(_scene(2.5), ask="heal", **{"from": "doc", "to": "pte"})
    assert beyond.ok is False and beyond.summary.endswith("may not heal")
    close = _ask(_scene(2.02, doubt=0.05), ask="heal", **{"from": "doc", "to": "pte"})
    assert close.ok is None and close.uncertainty == pytest.approx(0.1)
    assert "too close to call at 2in" in close.reasons[0]
    assert close.summary == "heal doc -> pte: 2.02in (+/-0.10), too close to call"


def test_a_condition_that_is_not_a_distance_comes_first_and_can_only_fail_it():
    v = _ask(_scene(0.5), ask="heal", **{"from": "pte", "to": "doc"})
    assert v.ok is False
    assert v.reasons[0] == "pte is not a medic" and "within 2in" in v.reasons[1]


def test_a_centre_measure_and_a_bad_piece_are_the_templates_too():
    v = _ask(_scene(4.0), ask="shout", **{"from": "doc", "to": "pte"})
    assert v.distance == pytest.approx(5.0) and v.ok is True  # centres 5in apart
    with pytest.raises(QueryError) as error:
        _ask(_scene(1.0), ask="heal", **{"from": "doc", "to": "nobody"})
    assert error.value.path == ".to"


def test_base_sizes_name_the_wrong_base_either_way_round_within_the_tolerance():
    assert _ask(_scene(1.0, base=(1.03, 0.98)), ask="bases").ok is True
    wrong = _ask(_scene(1.0, base=(2, 1)), ask="bases")
    assert wrong.ok is False and wrong.details["wrong"] == {
        "pte": {"base": [2, 1], "template": [1.0, 1.0]}
    }
    assert wrong.reasons == ("pte's base 2x1 is not the 1x1 template",)
