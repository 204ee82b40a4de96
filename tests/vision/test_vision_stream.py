"""A phone or IP camera overhead: an MJPEG stream over HTTP that drops and comes back."""

from __future__ import annotations

import http.server
import socketserver
import threading
import time

import cv2
import pytest

from referee.calibration.profile import load_profile
from referee.game import Session, drive, open_camera_source, repo_footage
from referee.markers.roster import load_roster
from referee.store import GameLog
from referee.vision.pipeline import Pipeline

FOOTAGE = repo_footage()


class MjpegServer:
    """Serves the sample clip as ``multipart/x-mixed-replace`` JPEGs, as phone camera apps do;
    each connection gets ``per_connection`` frames and is then cut, like a dropped Wi-Fi link."""

    def __init__(self, frames: list[bytes], per_connection: int) -> None:
        self.frames = frames
        self.per_connection = per_connection
        self.connections = 0
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                start = server.connections * server.per_connection
                server.connections += 1
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                try:
                    for jpeg in server.frames[start : start + server.per_connection]:
                        self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\n")
                        self.wfile.write(b"Content-Length: %d\r\n\r\n" % len(jpeg))
                        self.wfile.write(jpeg + b"\r\n")
                        time.sleep(1 / 30)  # a 30 fps camera
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/stream.mjpg"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def jpegs():
    capture = cv2.VideoCapture(str(FOOTAGE / "video.mp4"))
    frames = []
    for _ in range(60):
        ok, image = capture.read()
        assert ok
        frames.append(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes())
    capture.release()
    return frames


def test_a_stream_that_drops_is_reopened_logged_and_the_pieces_are_kept(jpegs, tmp_path):
    server = MjpegServer(jpegs, per_connection=30)
    profile = load_profile(FOOTAGE / "camera.json")
    roster = load_roster(FOOTAGE / "roster.json")
    log = GameLog(tmp_path / "games.sqlite")
    holder: list[Session] = []
    try:
        source, _ = open_camera_source(server.url, holder)
        source.backoff = (0.05, 0.2)  # type: ignore[attr-defined]
        session = Session.start(
            Pipeline(profile, roster, source_name=server.url),
            log=log,
            game="phone",
            source=server.url,
        )
        holder.append(session)
        count = drive(session, source, progress=False, limit=55)
        source.close()
        session.close()
    finally:
        server.close()
    assert count == 55 and server.connections >= 2
    events = log.events(log.game("phone"))
    cameras = [e.data["kind"] for e in events if e.type == "camera"]
    assert cameras[:2] == ["lost", "reopened"]
    # The drop made no flag and no move of its own: only the clip's real move (t34a's 6in).
    assert not [e for e in events if e.type == "flag"]
    moves = [e.data for e in events if e.type == "move"]
    assert all(m["piece"] == "t34a" and abs(m["distance"] - 6.0) < 0.05 for m in moves), moves
    settled = log.positions_at(log.game("phone"), resting=True)
    assert set(settled) == {p.id for p in roster}  # every piece seen through the stream
