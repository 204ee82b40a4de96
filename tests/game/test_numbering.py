"""The stream's numbers: every event the parts make gets the next seq, frame and time."""

from __future__ import annotations

import threading

from referee.game.numbering import Numbering
from referee.game.publication import Publication
from referee.rules import find_ruleset
from referee.scene import Piece, Scene, Table

RULES = find_ruleset("paper-tigers")


def test_events_are_numbered_in_turn_and_stamped_with_the_frame():
    publication = Publication(threading.RLock())
    numbers = Numbering(publication)
    first = numbers.event("camera", {"kind": "lost", "message": "gone"})
    assert (first.seq, first.frame, first.t) == (1, None, 0.0)  # before any frame
    numbers.frame, numbers.t = 12, 0.4
    second = numbers.event("edit", {"edit": "terrain", "action": "remove", "id": "w"})
    assert (second.seq, second.frame, second.t) == (2, 12, 0.4)
    assert numbers.event("flag", {"kind": "jump", "message": "x"}, t=9.0).t == 9.0
    assert numbers.seq == 3


def test_a_verdict_names_its_pieces_and_is_kept_for_the_update():
    publication = Publication(threading.RLock())
    numbers = Numbering(publication)
    tanks = (
        Piece("t34", "soviet", "tank", 10, 18, 0, (1.5, 3.0)),
        Piece("pz4", "german", "tank", 30, 18, 180, (1.5, 3.0)),
    )
    verdict = RULES.answer(
        Scene("paper-tigers", Table(48, 36), tanks), {"ask": "range", "from": "t34", "to": "pz4"}
    )
    event = numbers.verdict(verdict, about=7, question=0)
    assert event.type == "verdict" and event.seq == 1
    assert event.data["about"] == 7 and event.data["question"] == 0
    assert event.data["pieces"] == ["pz4", "t34"]
    assert publication.made_so_far() == [(7, verdict)]
    asked = numbers.verdict(verdict)
    assert "about" not in asked.data and "question" not in asked.data
