"""The Dispute pane's evidence: a logged verdict names the pictures kept with it, and
``/api/evidence/<seq>/<kind>.jpg`` serves them (404 with one JSON line when there is none)."""

from __future__ import annotations

import cv2
import numpy as np

from referee.game.evidence import MAX_BYTES


def test_a_logged_dispute_names_its_pictures_and_they_are_served(client):
    answer = client.post(
        "/api/ask?evidence=1", json={"ask": "range", "from": "t34a", "to": "pz1"}
    ).get_json()
    evidence = answer["evidence"]
    assert {e["kind"] for e in evidence} == {"camera", "top"}
    assert sum(e["bytes"] for e in evidence) <= MAX_BYTES
    seq = evidence[0]["seq"]
    events = client.get(f"/api/events?after={seq - 1}").get_json()["events"]
    assert events[0]["seq"] == seq and events[0]["type"] == "verdict"
    for e in evidence:
        response = client.get(f"/api/evidence/{e['seq']}/{e['kind']}.jpg")
        assert response.status_code == 200 and response.mimetype == "image/jpeg"
        assert len(response.data) == e["bytes"]
        picture = cv2.imdecode(np.frombuffer(response.data, np.uint8), cv2.IMREAD_COLOR)
        assert picture is not None and min(picture.shape[:2]) >= 16


def test_an_answer_not_logged_has_no_pictures(client):
    answer = client.post(
        "/api/ask?log=0&evidence=1", json={"ask": "range", "from": "t34a", "to": "pz1"}
    ).get_json()
    assert answer["verdicts"] and answer["evidence"] == []


def test_the_answer_is_check_json_s_unless_the_pictures_are_asked_for(client):
    answer = client.post("/api/ask", json={"ask": "range", "from": "t34a", "to": "pz1"})
    assert set(answer.get_json()) == {"verdicts"}
    bad = client.post("/api/ask?evidence=yes", json={"ask": "range", "from": "t34a", "to": "pz1"})
    assert (
        bad.status_code == 400 and bad.get_json()["error"] == "evidence: must be 0 or 1, got 'yes'"
    )


def test_no_evidence_is_a_404_with_one_json_line(client):
    for url, needle in (
        ("/api/evidence/999999/camera.jpg", "has no camera evidence"),
        ("/api/evidence/1/sideways.jpg", "no evidence kind 'sideways'"),
        ("/api/evidence/-1/camera.jpg", "no such endpoint"),
        ("/api/evidence/x/top.jpg", "no such endpoint"),
    ):
        response = client.get(url)
        assert response.status_code == 404, url
        error = response.get_json()["error"]
        assert needle in error and "\n" not in error
