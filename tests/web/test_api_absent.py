"""A piece on the map can always be asked about (issue 42 item 4): a roster piece that is not
on the table this instant (a new pass of the sample, a piece not yet seen) is answered in
words, 409 ``{"error": "pz1 is not on the table now", "absent": ["pz1"]}``; "unknown piece
id" stays for ids the roster does not have."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import replace

from game.footage import First, until

from referee.game import sample_live
from referee.store import GameLog
from referee.web import create_app


def test_a_roster_piece_not_on_the_table_is_answered_in_words():
    live = sample_live(pace=0)  # no frame yet: every roster piece is off the table
    client = create_app(live, {"TESTING": True}).test_client()
    assert not client.get("/api/state").get_json()["pieces"]
    targets = client.post("/api/ask?log=0", json={"ask": "targets", "from": "pz1"})
    assert targets.status_code == 409
    assert targets.get_json() == {"error": "pz1 is not on the table now", "absent": ["pz1"]}
    pair = client.post("/api/ask", json={"ask": "range", "from": "pz1", "to": "t34a"})
    assert pair.status_code == 409
    assert pair.get_json() == {"error": "pz1, t34a are not on the table now",
                               "absent": ["pz1", "t34a"]}  # fmt: skip
    follow = client.post("/api/declare", json={"ask": "follow_me", "leader": "sq1"})
    assert follow.status_code == 409 and follow.get_json()["absent"] == ["sq1"]
    # an id that is in no roster is still the player's mistake, named as before
    unknown = client.post("/api/ask", json={"ask": "range", "from": "zz9", "to": "pz1"})
    assert unknown.status_code == 400
    assert "unknown piece id 'zz9'" in unknown.get_json()["error"]
    assert "absent" not in unknown.get_json()
    # once the camera has seen the pieces, the same questions are answered
    assert live.step(60) == 60
    for query in ({"ask": "targets", "from": "pz1"}, {"ask": "range", "from": "pz1", "to": "t34a"}):
        assert client.post("/api/ask?log=0", json=query).status_code == 200
    live.stop()


def test_a_burst_of_asks_across_a_new_pass_never_says_unknown_piece(tmp_path):
    """The sample loops (a short clip here, so many passes go by) while threads ask about
    every roster piece, logged and not: each answer is a verdict or "not on the table now",
    never an unknown id and never a server error."""
    log = GameLog(tmp_path / "games.sqlite")
    live = sample_live(pace=0, log=log, game="burst")
    video = live.footage.name
    live.footage = replace(live.footage, open=lambda: First(video, 12))
    client_app = create_app(live, {"TESTING": True})
    ids = [entry.id for entry in live.session.roster]
    answers: Counter[int] = Counter()
    wrong: list[tuple[int, dict]] = []
    lock = threading.Lock()
    done = threading.Event()

    def ask(k: int) -> None:
        client = client_app.test_client()
        n = 0
        while not done.is_set():
            pid = ids[(k + n) % len(ids)]
            other = ids[(k + n + 3) % len(ids)]
            query = (
                {"ask": "targets", "from": pid}
                if n % 2
                else {"ask": "range", "from": pid, "to": other}
            )
            response = client.post("/api/ask" + ("?log=0" if n % 3 else ""), json=query)
            body = response.get_json()
            with lock:
                answers[response.status_code] += 1
                expected = response.status_code == 200 or (
                    response.status_code == 409 and set(body["absent"]) <= set(ids)
                )
                if not expected or "unknown piece id" in str(body):
                    wrong.append((response.status_code, body))
            n += 1

    threads = [threading.Thread(target=ask, args=(k,)) for k in range(3)]
    live.start()
    for thread in threads:
        thread.start()
    try:
        until(lambda: live.passes >= 4, seconds=60)
    finally:
        done.set()
        for thread in threads:
            thread.join(30)
        live.stop()
        log.close()
    assert not wrong, wrong[:5]
    assert answers[200] and answers[409], answers  # both states of the table were asked about
