"""How a verdict reads: the three words of a yes / no / too-close-to-call answer.

Every question ends in one of three answers, and each system words them in its
own terms ("in range", "may charge", "in cohesion"). A :class:`Words` value is
that wording as data, so a question template (:mod:`referee.rules.checks`)
or a system's own question says ``LEGAL(ok)`` instead of spelling the three
cases again. The tables below are the wordings more than one system uses.

>>> WITHIN(True), WITHIN(False), WITHIN(None)
('within', 'beyond', 'too close to call at')
>>> Words("in cover", "no cover")(None)
'too close to call'
"""

from __future__ import annotations

from dataclasses import dataclass

CLOSE = "too close to call"
"""What a measurement within its uncertainty of a limit is: never a coin flip."""


@dataclass(frozen=True)
class Words:
    """The words of an answer that holds (``yes``), fails (``no``) or is too close to call
    (``close``)."""

    yes: str
    no: str
    close: str = CLOSE

    def __call__(self, ok: bool | None) -> str:
        # None is neither: a measurement within its doubt of the limit.
        return self.close if ok is None else self.yes if ok else self.no


WITHIN = Words("within", "beyond", "too close to call at")
"""A distance against a limit, followed by the limit: ``'within 3in'``."""
LEGAL = Words("legal", "illegal")
"""A move, a charge, a placement."""
MAY_FIRE = Words("may fire", "may not fire")
IN_RANGE = Words("in range", "out of range")
YES = Words("yes", "no")
HOLDS = Words("holds", "fails")
IN_CONTACT = Words("in contact", "not in contact")
INSIDE = Words("inside", "outside", "too close to call at")
"""A point or a base against an area or a zone, followed by the area."""
HALF_RANGE = Words("within", "over", "doubtful")
"""Whether a target is within half the weapon's range (a better roll to hit)."""
