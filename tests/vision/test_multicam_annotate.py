"""The annotated video with two cameras (issue 32 item 1): both pictures side by side in
one file of a steady size, each with its own tags, the fused bases drawn in every view
that sees them, and a camera without a frame shown dimmed with its last picture."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
import twocam_vision as tv

from referee.calibration.camera import project, table_xyz
from referee.vision.annotate import Annotator
from referee.vision.pipeline import Pipeline

PLACE = {"t34": (8.0, 12.0, 0.0), "pz4": (46.0, 12.0, 180.0), "sq1": (28.0, 12.0, 30.0)}
W, H = tv.SIZE  # each camera's picture; side by side each is scaled to half: 640 x 480


def _results(ticks: list[tuple[bool, bool]]):
    pipeline = Pipeline(tv.profiles(), tv.roster(), source_name=("cam1", "cam2"))
    return [pipeline.process(tv.frame_set(k, PLACE, on)) for k, on in enumerate(ticks)]


def _at(camera: int, xy: tuple[float, float]) -> tuple[int, int]:
    """Where table point ``xy`` lands in the annotated picture (camera ``camera``'s tile)."""
    intr, pose = tv.cameras()[camera]
    (px,) = project(intr, pose, table_xyz([xy], 0.0))
    return round(px[0] / 2 + camera * W / 2), round(px[1] / 2)


def test_two_cameras_are_drawn_side_by_side_with_the_fused_bases_in_each(tmp_path):
    results = _results([(True, True)] * 12)
    annotator = Annotator(tmp_path / "a.mp4", tv.roster())
    drawn = annotator.draw(results[-1])
    # The row is as wide as one camera's picture: each camera at half size, the panel beside.
    assert drawn.shape[0] == H // 2 and drawn.shape[1] > W
    left, right = drawn[:, : W // 2].astype(int), drawn[:, W // 2 : W].astype(int)

    def matches(tile, camera: int) -> float:
        """How much of camera ``camera``'s printed tags (its picture away from the grey
        cloth) the tile shows as they are."""
        raw = cv2.resize(
            results[-1].views[camera].image, (W // 2, H // 2), interpolation=cv2.INTER_AREA
        ).astype(int)
        ink = np.abs(raw - 150).max(axis=2) > 60
        return float((np.abs(tile - raw).max(axis=2)[ink] <= 20).mean())

    assert matches(left, 0) > 0.8 and matches(right, 1) > 0.8
    assert matches(left, 1) < 0.5 and matches(right, 0) < 0.5
    # The base of sq1 (in the overlap) is drawn in both views, t34's only in camera 1's,
    # pz4's only in camera 2's: the side colours on the bases' edges.
    soviet, german = (0, 0, 220), (220, 120, 0)

    def coloured(camera: int, piece: str, colour) -> bool:
        pose = results[-1].tracks.piece(piece).pose
        base = tv.roster().by_id(piece).base
        corners = pose.footprint(base)
        edge_mid = (corners[0] + corners[1]) / 2  # the front edge's middle
        x, y = _at(camera, (float(edge_mid[0]), float(edge_mid[1])))
        patch = drawn[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3).astype(int)
        return bool((np.abs(patch - colour).sum(axis=1) < 90).any())

    assert coloured(0, "sq1", soviet) and coloured(1, "sq1", soviet)
    assert coloured(0, "t34", soviet) and coloured(1, "pz4", german)


def test_a_camera_without_a_frame_shows_its_last_picture_dimmed_at_the_same_size(tmp_path):
    results = _results([(True, True)] * 3 + [(True, False)] * 2)
    path = tmp_path / "two.mp4"
    annotator = Annotator(path, tv.roster(), fps=tv.FPS)
    drawn = [annotator.draw(r) for r in results]
    assert len({d.shape for d in drawn}) == 1
    right_live = drawn[2][:, W // 2 : W].astype(int)
    right_gone = drawn[4][:, W // 2 : W].astype(int)
    assert right_gone.mean() < 0.65 * right_live.mean()  # dimmed, still camera 2's picture
    # Camera 2's last picture, at half brightness, where its tags are.
    raw = cv2.resize(results[2].views[1].image, (W // 2, H // 2), interpolation=cv2.INTER_AREA)
    ink = np.abs(raw.astype(int) - 150).max(axis=2) > 60
    assert (np.abs(right_gone - raw // 2).max(axis=2)[ink] <= 20).mean() > 0.8
    # The file holds every frame, at the size drawn.
    for r in results:
        annotator.write(r)
    annotator.close()
    video = cv2.VideoCapture(str(path))
    count = 0
    while True:
        ok, frame = video.read()
        if not ok:
            break
        assert frame.shape == drawn[0].shape
        count += 1
    video.release()
    assert count == len(results)


@pytest.mark.slow  # ~2 s of CPU; the annotation itself is drawn in the default run
def test_run_annotate_with_two_cameras_writes_both_side_by_side(tmp_path):
    from click.testing import CliRunner

    from referee.cli import cli

    cam1, cam2 = tv.write_clips(tmp_path, [PLACE] * 6)
    out = tmp_path / "seen.mp4"
    args = ["run", "--video", str(cam1), "--video", str(cam2)]
    args += [
        "-c",
        str(tmp_path / "camera-1.json"),
        "-c",
        str(tmp_path / "camera-2.json"),
        "-r",
        str(tmp_path / "roster.json"),
    ]
    result = CliRunner().invoke(cli, [*args, "--annotate", str(out), "--no-log", "-q"])
    assert result.exit_code == 0, result.output
    video = cv2.VideoCapture(str(out))
    ok, frame = video.read()
    frames = int(video.get(cv2.CAP_PROP_FRAME_COUNT))
    video.release()
    assert ok and frames == 6
    assert frame.shape[0] == H // 2 and W < frame.shape[1] < 2 * W  # two half-size pictures
    help_text = CliRunner().invoke(cli, ["run", "--help"]).output
    assert "several cameras: side by side in one file" in " ".join(help_text.split())
