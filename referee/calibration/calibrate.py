"""Camera calibration from ChArUco views: collect good views, solve the lens, check the result.

Stages, each a plain function or a small class with one per-frame method:

* :class:`BoardDetector` finds the board's chessboard corners in one image.
* :class:`ViewCollector` keeps the views worth solving with: it rejects
  views with too few corners, blurry views (variance of the Laplacian over
  the board, see :func:`sharpness`) and near-duplicates (corners within
  :attr:`ViewCollector.duplicate_frac` of the image diagonal of an accepted
  view's), and says which parts of the image still lack corners.
* :func:`solve_intrinsics` runs ``cv2.calibrateCamera`` on the views, drops
  outlier views (per-view RMS above ``outlier_factor`` x the median) and
  solves again with the distortion terms :func:`choose_lens_model` picks by
  cross-validation over the views.
* :func:`picture_coverage` and :func:`fit_warning` say when the fit is poor
  (views short of the picture's edges, a high held-out error) and what to do.
* :func:`identify_markers` says which dictionary the markers in an image
  belong to, for the "wrong board spec" message.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from referee import media
from referee.calibration.camera import Intrinsics, TablePose, pixels_to_table
from referee.calibration.profile import CalibrationProfile, TableSize
from referee.calibration.table import (
    COMMON_TABLES_IN,
    FlatTag,
    TableFix,
    anchor_misfits,
    check_anchors_on_table,
    corners_out_of_view,
    default_anchors,
    detect_markers,
    locate_table,
)
from referee.errors import RefereeError, SourceError
from referee.tags.anchors import AnchorTag
from referee.tags.board import EXAMPLE as BOARD_EXAMPLE
from referee.tags.board import BoardSpec
from referee.tags.layout import (
    DEFAULT_DICTIONARY,
    dictionary_names,
    dictionary_size,
    get_dictionary,
)

FloatArray = NDArray[np.float64]
Image = NDArray[Any]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")

#: Fewest views ``calibrateCamera`` gets: fewer leave the lens poorly determined.
MIN_VIEWS = 3
#: Fewest chessboard corners for a view to count (a pose needs 4; 6 guards against lines).
MIN_CORNERS = 6
ANCHOR_MISFIT_IN = 0.5
"""Farthest a seen anchor may lie from its place by the located table. Anchors glued by
hand land within a fraction of that; anchors for another table size (a wrong
``--table``) land inches away however the pose compromises."""


def to_gray(image: Image) -> NDArray[np.uint8]:
    """Any OpenCV image -> 8-bit grey."""
    if image.ndim == 3:
        gray = cv2.cvtColor(
            image, cv2.COLOR_BGRA2GRAY if image.shape[2] == 4 else cv2.COLOR_BGR2GRAY
        )
    else:
        gray = image
    if gray.dtype != np.uint8:
        lo, hi = float(gray.min()), float(gray.max())
        gray = ((gray - lo) * (255.0 / max(hi - lo, 1e-12))).astype(np.uint8)
    return np.asarray(gray, dtype=np.uint8)


@dataclass(frozen=True)
class BoardView:
    """The board as seen in one image: corner ids, pixels and board-frame positions."""

    name: str
    """Where the view came from: a file name or ``frame 120``."""
    ids: NDArray[np.int32]
    corners_px: FloatArray
    """(n, 2) sub-pixel chessboard corners."""
    object_m: FloatArray
    """(n, 3) the same corners on the board, metres, z = 0."""
    sharpness: float
    marker_ids: NDArray[np.int32]
    """Board markers seen (even when too few corners were)."""

    def __len__(self) -> int:
        return len(self.ids)

    def object_in(self, inch_mm: float = 25.4) -> FloatArray:
        """Board-frame corner positions in game inches."""
        return np.asarray(self.object_m * (1000.0 / inch_mm))


def sharpness(gray: NDArray[np.uint8], points_px: FloatArray | None = None) -> float:
    """Focus measure: variance of the Laplacian, over the points' bounding box if given.

    A sharp printed board scores in the hundreds or more; motion blur or a
    defocused lens drops it below ~30.
    """
    if points_px is not None and len(points_px):
        x0, y0 = np.floor(points_px.min(axis=0)).astype(int)
        x1, y1 = np.ceil(points_px.max(axis=0)).astype(int)
        h, w = gray.shape[:2]
        gray = gray[max(y0, 0) : min(y1 + 1, h), max(x0, 0) : min(x1 + 1, w)]
        if gray.size < 16:
            return 0.0
    return float(cv2.Laplacian(gray, cv2.CV_64F).var())


class BoardDetector:
    """Finds one ChArUco board in images; configured once, one call per image."""

    def __init__(self, spec: BoardSpec) -> None:
        self.spec = spec
        self.board = spec.cv_board()
        charuco_params = cv2.aruco.CharucoParameters()
        detector_params = cv2.aruco.DetectorParameters()
        detector_params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
        self._detector = cv2.aruco.CharucoDetector(self.board, charuco_params, detector_params)

    def detect(self, image: Image, name: str = "") -> BoardView:
        """The board in ``image``; a view with no corners when it is not there."""
        gray = to_gray(image)
        corners, ids, _marker_corners, marker_ids = self._detector.detectBoard(gray)
        markers = (
            np.zeros(0, np.int32)
            if marker_ids is None
            else np.asarray(marker_ids, np.int32).ravel()
        )
        if ids is None or len(ids) == 0:
            empty = np.zeros((0, 2))
            return BoardView(name, np.zeros(0, np.int32), empty, np.zeros((0, 3)), 0.0, markers)
        # detectBoard already refines the corners (cornerSubPix); a second pass with
        # another window measurably worsens OpenCV's own sample calibration.
        ids_arr = np.asarray(ids, dtype=np.int32).ravel()
        all_corners = np.asarray(self.board.getChessboardCorners(), dtype=np.float64)
        px = np.asarray(corners, dtype=np.float64).reshape(-1, 2)
        return BoardView(name, ids_arr, px, all_corners[ids_arr], sharpness(gray, px), markers)


def _collinear(points: FloatArray) -> bool:
    centred = points - points.mean(axis=0)
    singular = np.linalg.svd(centred, compute_uv=False)
    return bool(singular[-1] < 1e-3 * max(singular[0], 1e-12))


@dataclass(frozen=True)
class Verdict:
    """What the collector made of one image."""

    accepted: bool
    reason: str
    """"accepted", "no board", "too few corners", "blurry" or "duplicate"."""
    view: BoardView
    guidance: str = ""
    """The collector's advice after this view (see :meth:`ViewCollector.guidance`)."""


class ViewCollector:
    """Keeps the views worth calibrating with, and says where corners are still missing."""

    def __init__(
        self,
        image_size: tuple[int, int],
        *,
        min_corners: int = MIN_CORNERS,
        min_sharpness: float = 30.0,
        duplicate_frac: float = 0.02,
        grid: int = 3,
    ) -> None:
        self.image_size = image_size
        self.min_corners = min_corners
        self.min_sharpness = min_sharpness
        self.duplicate_frac = duplicate_frac
        """A view whose shared corners moved less than this fraction of the image
        diagonal (median) from an accepted view's adds nothing: rejected."""
        self.grid = grid
        self.reset()

    def reset(self) -> None:
        self.views: list[BoardView] = []
        self.rejected: dict[str, int] = {}
        self._cells = np.zeros((self.grid, self.grid), dtype=np.int64)

    def add(self, view: BoardView) -> Verdict:
        """Judge one view; accepted views are kept in :attr:`views`."""
        reason = self._judge(view)
        if reason == "accepted":
            self.views.append(view)
            w, h = self.image_size
            cols = np.clip((view.corners_px[:, 0] * self.grid / w).astype(int), 0, self.grid - 1)
            rows = np.clip((view.corners_px[:, 1] * self.grid / h).astype(int), 0, self.grid - 1)
            np.add.at(self._cells, (rows, cols), 1)
        else:
            self.rejected[reason] = self.rejected.get(reason, 0) + 1
        return Verdict(reason == "accepted", reason, view, self.guidance())

    def _judge(self, view: BoardView) -> str:
        if len(view) == 0:
            return "no board"
        if len(view) < self.min_corners or _collinear(view.corners_px):
            return "too few corners"
        if view.sharpness < self.min_sharpness:
            return "blurry"
        diagonal = float(np.hypot(*self.image_size))
        for kept in self.views:
            shared, a, b = np.intersect1d(kept.ids, view.ids, return_indices=True)
            if len(shared) < 0.5 * min(len(kept), len(view)):
                continue
            moved = np.median(np.linalg.norm(kept.corners_px[a] - view.corners_px[b], axis=1))
            if moved < self.duplicate_frac * diagonal:
                return "duplicate"
        return "accepted"

    @property
    def coverage(self) -> NDArray[np.int64]:
        """Accepted corners per image region (``grid`` x ``grid``, row-major from top-left)."""
        return self._cells.copy()

    def missing_regions(self) -> list[str]:
        """Names of image regions without any accepted corner, e.g. ``["top-left"]``."""
        if self.grid != 3:
            return [f"cell {r},{c}" for r, c in zip(*np.nonzero(self._cells == 0), strict=True)]
        rows, cols = ("top", "middle", "bottom"), ("left", "centre", "right")
        names = []
        for r in range(3):
            for c in range(3):
                if self._cells[r, c] == 0:
                    names.append("centre" if (r, c) == (1, 1) else f"{rows[r]}-{cols[c]}")
        return names

    def guidance(self) -> str:
        """One line telling the user what to do next."""
        missing = self.missing_regions()
        n = len(self.views)
        views = f"{n} view{'' if n == 1 else 's'}"
        if not missing:
            return f"{views}; every region of the image has corners"
        return f"{views}; no corners yet near the {', '.join(missing)} of the image"


@dataclass(frozen=True)
class Solution:
    """Solved lens with its quality figures."""

    intrinsics: Intrinsics
    rms_px: float
    view_errors_px: tuple[float, ...]
    """Per-view RMS reprojection error of the views used, in their order."""
    used: tuple[str, ...]
    """Names of the views used."""
    dropped: tuple[tuple[str, float], ...]
    """Outlier views left out, with their error when they were dropped."""
    lens_model: str = "k1,k2,p1,p2,k3"
    """The distortion terms the evidence kept (see :func:`choose_lens_model`)."""
    held_out_px: tuple[tuple[str, float], ...] = ()
    """Each candidate model's RMS error on views left out of its fit, in
    :data:`LENS_MODELS` order; empty when there were too few views to tell."""

    @property
    def held_out_rms_px(self) -> float | None:
        """The chosen model's error on views it was not fitted to (None: not measured)."""
        return dict(self.held_out_px).get(self.lens_model)


def _calibrate(
    views: Sequence[BoardView], image_size: tuple[int, int], flags: int
) -> tuple[float, FloatArray, FloatArray, list[float]]:
    objects = [v.object_m.astype(np.float32).reshape(-1, 1, 3) for v in views]
    images = [v.corners_px.astype(np.float32).reshape(-1, 1, 2) for v in views]
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)
    try:
        # Two stages: k1 alone first, then the model asked for from there. Started from
        # no distortion (OpenCV's homography guess), a strong barrel lens with k3 can
        # settle in a false minimum (fx 20% off, every view 0.3 px out) that no model escapes.
        radial = cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3 | cv2.CALIB_ZERO_TANGENT_DIST
        _, guess, guess_dist, _, _ = cv2.calibrateCamera(
            objects, images, image_size, None, None, flags=radial, criteria=criteria
        )
        rms, matrix, dist, rvecs, tvecs = cv2.calibrateCamera(
            objects,
            images,
            image_size,
            guess,
            guess_dist,
            flags=flags | cv2.CALIB_USE_INTRINSIC_GUESS,
            criteria=criteria,
        )
    except cv2.error as error:
        raise RefereeError(
            f"camera calibration failed ({error.msg.strip() if hasattr(error, 'msg') else error});"
            " collect views of the board at more angles"
        ) from None
    errors = []
    for obj, img, rvec, tvec in zip(objects, images, rvecs, tvecs, strict=True):
        proj, _ = cv2.projectPoints(obj, rvec, tvec, matrix, dist)
        errors.append(float(np.sqrt(np.mean(np.sum((proj - img).reshape(-1, 2) ** 2, axis=1)))))
    return float(rms), np.asarray(matrix, np.float64), np.asarray(dist, np.float64).ravel(), errors


#: The distortion models tried, simplest first, with the ``calibrateCamera`` flags that
#: hold the other terms at zero. Radial k1, k2 are always fitted: every webcam lens needs them.
LENS_MODELS: tuple[tuple[str, int], ...] = (
    ("k1,k2", cv2.CALIB_FIX_K3 | cv2.CALIB_ZERO_TANGENT_DIST),
    ("k1,k2,k3", cv2.CALIB_ZERO_TANGENT_DIST),
    ("k1,k2,p1,p2", cv2.CALIB_FIX_K3),
    ("k1,k2,p1,p2,k3", 0),
)
#: Folds of the cross-validation over views (fewer when there are fewer views).
CV_FOLDS = 5
#: Fewest views for cross-validation: each fold must keep MIN_VIEWS to fit and leave one out.
MIN_CV_VIEWS = MIN_VIEWS + 2
LENS_MARGIN = 0.01
"""A richer lens model must lower the held-out error by this fraction to be kept, and on
more views than it raises it. On simulated 720p and 1080p clips (benchmarks/README.md)
a term the lens lacks lowered it by 0.6% at most; a real k3 by 2-25% when the views
reached the picture's corners (dropping it there cost up to 0.06 in at the table's
corners), by under 0.5% when they did not (then the coverage warning fires). The
margin leans towards keeping a term: a missed k3 costs more than a spurious one."""


def _held_out_errors(
    views: Sequence[BoardView], image_size: tuple[int, int], flags: int, folds: int
) -> FloatArray:
    """Each view's mean squared pixel error, reprojected by a lens fitted without it (k-fold).

    A held-out view's board pose is solved with the lens fixed (its 6 numbers
    are the view's own), so the error measures only how well the lens carries
    over to views it has not seen: an overfitted k3 fits the training views'
    noise and pays for it here.
    """
    squared = np.zeros(len(views))
    for fold in range(folds):
        train = [v for i, v in enumerate(views) if i % folds != fold]
        _, matrix, dist, _ = _calibrate(train, image_size, flags)
        for i in range(fold, len(views), folds):
            obj = views[i].object_m.astype(np.float64).reshape(-1, 1, 3)
            img = views[i].corners_px.astype(np.float64).reshape(-1, 1, 2)
            ok, rvec, tvec = cv2.solvePnP(obj, img, matrix, dist, flags=cv2.SOLVEPNP_IPPE)
            if not ok:
                ok, rvec, tvec = cv2.solvePnP(obj, img, matrix, dist)
            rvec, tvec = cv2.solvePnPRefineLM(obj, img, matrix, dist, rvec, tvec)
            proj, _ = cv2.projectPoints(obj, rvec, tvec, matrix, dist)
            squared[i] = float(np.mean(np.sum((proj - img).reshape(-1, 2) ** 2, axis=1)))
    return squared


def _weighted_rms(squared: FloatArray, views: Sequence[BoardView]) -> float:
    counts = np.array([len(v) for v in views], dtype=np.float64)
    return float(np.sqrt(np.sum(squared * counts) / np.sum(counts)))


def choose_lens_model(
    views: Sequence[BoardView],
    image_size: tuple[int, int],
    *,
    margin: float = LENS_MARGIN,
    folds: int = CV_FOLDS,
) -> tuple[str, int, tuple[tuple[str, float], ...]]:
    """The distortion model the views support: (name, flags, held-out RMS px per model).

    Each model of :data:`LENS_MODELS` is scored by each view's error when
    left out of the fit (``folds`` folds). One model is better than another
    when it lowers the held-out error by more than ``margin`` (a fraction)
    and on more views than it raises it, so one lucky view decides nothing.
    The tangential terms p1, p2 are kept unless k1, k2 alone is better; k3 is
    added only when it is better. A spurious k3 (views that never reach the
    picture's corners let k3 and fx trade off) lowers the error on the views
    fitted, not on the views left out, so it is not kept. With too few views
    to leave any out the full model is used, as before.
    """
    if len(views) < MIN_CV_VIEWS:
        name, flags = LENS_MODELS[-1]
        return name, flags, ()
    folds = min(folds, len(views))  # few views: leave one out at a time
    scored = [
        (name, flags, _held_out_errors(views, image_size, flags, folds))
        for name, flags in LENS_MODELS
    ]
    by_name = {name: (name, flags, errors) for name, flags, errors in scored}

    def better(candidate: tuple[str, int, FloatArray], than: tuple[str, int, FloatArray]) -> bool:
        lowered = than[2] - candidate[2]  # per view, mean squared px
        now, then = _weighted_rms(than[2], views), _weighted_rms(candidate[2], views)
        # Per-view errors are heavy-tailed (a view in a corner carries most of a real k3's
        # gain), so consistency is a sign count, not a mean over a standard error.
        consistent = int(np.sum(lowered > 0)) > int(np.sum(lowered < 0))
        return now - then > margin * now and consistent

    # The tangential terms stay unless leaving them out does better on the views left
    # out: a decentring of 0.0005 hardly shows there but moves the table by 0.01 in
    # (the bundled club sample's cameras), and fitted where there is none it stays ~1e-4.
    chosen = by_name["k1,k2,p1,p2"]
    if better(by_name["k1,k2"], chosen):
        chosen = by_name["k1,k2"]
    # k3 only when the views left out ask for it: a spurious k3 bends the picture's corners.
    with_k3 = by_name["k1,k2,k3" if chosen[0] == "k1,k2" else "k1,k2,p1,p2,k3"]
    if better(with_k3, chosen):
        chosen = with_k3
    return (
        chosen[0],
        chosen[1],
        tuple((name, _weighted_rms(errors, views)) for name, _, errors in scored),
    )


def solve_intrinsics(
    views: Sequence[BoardView],
    image_size: tuple[int, int],
    *,
    min_views: int = MIN_VIEWS,
    outlier_factor: float = 3.0,
    outlier_floor_px: float = 0.5,
    max_dropped: int = 5,
    flags: int = 0,
    select_model: bool = True,
) -> Solution:
    """Solve camera matrix and distortion from board views, the lens model chosen by evidence.

    While the worst view's RMS error exceeds both ``outlier_factor`` x the
    median view error and ``outlier_floor_px``, it is dropped and the solve
    repeated (at most ``max_dropped`` views, never below ``min_views``); the
    outliers are judged with the full model (k1, k2, p1, p2, k3), which fits
    any good view. Then, with ``select_model``, :func:`choose_lens_model`
    picks the distortion terms by cross-validation over the kept views and
    the chosen model is solved again on all of them (terms left out are 0 in
    the result). Raises :class:`RefereeError` when fewer than ``min_views``
    views are given.
    """
    if len(views) < min_views:
        raise RefereeError(
            f"only {len(views)} usable board view(s); calibration needs at least {min_views}: "
            "show the board at more positions and angles"
        )
    kept = list(views)
    dropped: list[tuple[str, float]] = []
    # One view at a time: a single bad view inflates its neighbours' errors too.
    for _ in range(max_dropped + 1):
        rms, matrix, dist, errors = _calibrate(kept, image_size, flags)
        worst = int(np.argmax(errors))
        limit = max(outlier_factor * float(np.median(errors)), outlier_floor_px)
        if errors[worst] <= limit or len(kept) <= min_views or len(dropped) >= max_dropped:
            break
        dropped.append((kept[worst].name, errors[worst]))
        del kept[worst]
    model = LENS_MODELS[-1][0]
    held_out: tuple[tuple[str, float], ...] = ()
    if select_model and flags == 0:
        model, model_flags, held_out = choose_lens_model(kept, image_size)
        if model_flags != 0:
            rms, matrix, dist, errors = _calibrate(kept, image_size, model_flags)
    intrinsics = Intrinsics(image_size, matrix, dist)
    return Solution(
        intrinsics,
        rms,
        tuple(errors),
        tuple(v.name for v in kept),
        tuple(dropped),
        model,
        held_out,
    )


def identify_markers(images: Sequence[Image]) -> list[tuple[str, list[int]]]:
    """Which predefined dictionaries find markers in ``images``: [(name, ids)], best first.

    The DICT_NxN_50/100/250/1000 dictionaries nest (each starts with the
    smaller one's markers), so each family is searched once with its largest
    member and reported as the smallest member that holds every id seen.
    Only the first two images are searched (this runs to explain a failure).
    """
    grays = [to_gray(i) for i in images[:2]]
    searched: dict[int, str] = {}
    for name in dictionary_names():
        match = re.fullmatch(r"DICT_(\d)X\1_(\d+)", name)
        if match and match.group(2) != "1000":
            continue
        searched.setdefault(int(getattr(cv2.aruco, name)), name)
    found: list[tuple[str, list[int]]] = []
    # ArUco families first; the slow AprilTag dictionaries only when those find nothing.
    tiers = [
        [n for n in searched.values() if "APRILTAG" not in n],
        [n for n in searched.values() if "APRILTAG" in n],
    ]
    for tier in tiers:
        for name in tier:
            detector = cv2.aruco.ArucoDetector(get_dictionary(name), cv2.aruco.DetectorParameters())
            ids: set[int] = set()
            for gray in grays:
                _, got, _ = detector.detectMarkers(gray)
                if got is not None:
                    ids.update(int(i) for i in np.asarray(got).ravel())
            if not ids:
                continue
            if name.endswith("_1000"):
                for size in (50, 100, 250, 1000):
                    if max(ids) < size:
                        name = name.replace("_1000", f"_{size}")
                        break
            found.append((name, sorted(ids)))
        if found:
            break
    found.sort(key=lambda item: -len(item[1]))
    return found[:1] if found else []


# --- frame sources -------------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    name: str
    image: Image


def image_files(folder: Path) -> list[Path]:
    """Images in a folder, sorted by name (so the last one is the table view)."""
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)


def read_image(path: Path) -> Image:
    """The image, its size checked from its header before any pixel is decoded."""
    return np.asarray(media.read_image(path))


def iter_folder(folder: Path) -> Iterator[Frame]:
    for path in image_files(folder):
        yield Frame(path.name, read_image(path))


def _thumbnail(image: Image) -> NDArray[np.float32]:
    return np.asarray(
        cv2.resize(to_gray(image), (64, 36), interpolation=cv2.INTER_AREA), np.float32
    )


def iter_video(path: Path, every_s: float = 0.2, still_level: float = 0.6) -> Iterator[Frame]:
    """Frames of a video, one every ``every_s`` seconds, plus the final frame (the table view).

    A sampled frame that looks the same as the last one yielded (mean
    difference of a 64x36 thumbnail under ``still_level`` grey levels: nothing
    moved) is skipped, so a board lying still is not detected over and over.
    The final frame is always yielded.
    """
    with media.quiet_libraries():
        capture = cv2.VideoCapture(str(path))
    if not capture.isOpened():
        raise SourceError(f"{path}: cannot open video (unreadable file or unsupported codec)")
    try:
        fps = capture.get(cv2.CAP_PROP_FPS) or 30.0
        step = max(1, round(every_s * fps))
        index = 0
        last: Frame | None = None
        shown: NDArray[np.float32] | None = None
        while True:
            ok, image = capture.read()
            if not ok:
                break
            frame = Frame(f"frame {index}", image)
            index += 1
            if (index - 1) % step == 0:
                thumb = _thumbnail(image)
                if shown is None or float(np.mean(np.abs(thumb - shown))) >= still_level:
                    shown = thumb
                    last = None
                    yield frame
                    continue
            last = frame
        if index == 0:
            raise SourceError(f"{path}: the video has no frames that can be decoded")
        if last is not None:
            yield last
    finally:
        capture.release()


# --- the whole run ----------------------------------------------------------------------


def spec_from_qr(image: Image) -> BoardSpec | None:
    """The board spec printed as a QR code on the board sheet, if one is readable in ``image``."""
    from referee.markers.qr import decode_qr

    for text in decode_qr(image):
        if text.strip().lower().startswith("charuco:"):
            try:
                return BoardSpec.parse(text)
            except ValueError:
                continue
    return None


@dataclass(frozen=True)
class CalibrationRun:
    """Everything one calibration produced: the profile and how it was reached."""

    profile: CalibrationProfile
    solution: Solution
    table: TableFix | None
    """None when the table view showed neither board nor anchors (frame "manual")."""
    table_view: str
    views_seen: int
    rejected: tuple[tuple[str, int], ...]
    guidance: str
    corners_out_of_view: tuple[tuple[float, float], ...] = ()
    """Table corners the located camera cannot see, farthest first: a table larger than
    the view (a wrong ``--table``, or a camera that sees only part of the table)."""
    picture_coverage: float = 1.0
    """Fraction of the picture the board covered in some view used (:func:`picture_coverage`)."""

    @property
    def fit_warning(self) -> str | None:
        """One line saying the lens fit is poor and what to do, or None (:func:`fit_warning`)."""
        return fit_warning(self.solution, self.picture_coverage, self.guidance)


#: Below this fraction of the picture inside the board corners' outline the lens is
#: extrapolated over the rest. Simulated clips (12 views) whose boards reach into the
#: picture's corners, as the collector's guidance asks, cover 77-82%; boards that stop a
#: sixth of the picture short of its edges 59-68% (table error up to twice as large,
#: benchmarks/README.md "calibration"); a quarter short 40-48%.
MIN_PICTURE_COVERAGE = 0.7
#: Above this held-out error (px) the lens does not carry over to views it was not fitted
#: to: a sharp board gives 0.05-0.3 px; blur, a board that is not flat or a rolling
#: shutter give more.
MAX_HELD_OUT_PX = 0.5


def picture_coverage(views: Sequence[BoardView], image_size: tuple[int, int]) -> float:
    """Fraction of the picture inside the outline (convex hull) of every view's corners.

    The lens is measured where board corners were seen and extrapolated
    beyond them; the table's corners, where the anchors sit, are usually
    near the picture's corners, so views that stop short of them leave the
    lens guessed exactly where it matters.
    """
    points = [view.corners_px for view in views if len(view)]
    if not points:
        return 0.0
    hull = cv2.convexHull(np.vstack(points).astype(np.float32))
    width, height = image_size
    return float(min(cv2.contourArea(hull) / (width * height), 1.0))


def fit_warning(solution: Solution, coverage: float, guidance: str = "") -> str | None:
    """Why the lens fit may be poor far from the board's views, with the remedy; or None.

    Two signs, judged at calibration time: the views cover too little of the
    picture (below :data:`MIN_PICTURE_COVERAGE`), or the lens explains views
    left out of its fit poorly (held-out error above :data:`MAX_HELD_OUT_PX`).
    """
    where = guidance.partition("no corners yet near the ")[2]
    missing = f", none near the {where.removesuffix(' of the image')}" if where else ""
    if coverage < MIN_PICTURE_COVERAGE:
        return (
            "the lens is extrapolated where the board never was: move the board nearer the "
            f"picture's edges and corners: the views cover {coverage:.0%} of the picture"
            f"{missing} (aim for {MIN_PICTURE_COVERAGE:.0%} or more), then calibrate again"
        )
    held_out = solution.held_out_rms_px
    if held_out is not None and held_out > MAX_HELD_OUT_PX:
        return (
            f"the lens fits the views left out of its fit only to {held_out:.2f} px (good: "
            f"under {MAX_HELD_OUT_PX:g}): hold the board flat and still in each view, add "
            "light, and show it at more angles near the picture's edges and corners, then "
            "calibrate again"
        )
    return None


def calibrate_frames(
    frames: Iterable[Frame],
    *,
    spec: BoardSpec | None,
    table: TableSize,
    anchors: Sequence[AnchorTag] = (),
    marker_dictionary: str = DEFAULT_DICTIONARY,
    flat_tags: Sequence[tuple[int, float]] = (),
    table_image: Frame | None = None,
    collector: ViewCollector | None = None,
    min_sharpness: float = 30.0,
    on_verdict: Callable[[Verdict], None] | None = None,
    qr_frames: int = 60,
    on_frame: Callable[[int, str], None] | None = None,
    select_lens_model: bool = True,
) -> CalibrationRun:
    """Calibrate from a stream of frames; the final frame (or ``table_image``) is the table view.

    ``spec`` None identifies the board in the first ``qr_frames`` frames: one
    of the project's printed boards by its QR pattern where the sheet prints it
    (no decoding needed), any board by decoding its QR code (every frame with
    libzbar; with OpenCV's slower reader every :data:`OPENCV_QR_EVERY` th
    frame), or, failing both, a printed board by its layout alone, its size
    then fixed by the anchors or flat tags lying beside it in the table view.
    ``on_frame(frames_read, stage)`` reports progress as frames are read;
    ``select_lens_model`` False fits all five distortion terms (the model
    before issue 41, for comparison).
    ``anchors`` default to :func:`default_anchors` for
    ``marker_dictionary``; ``flat_tags`` are (tag id, size in inches) of
    pieces whose tags lie flat (tag_height 0): seen in the table view they
    refine the plane. Raises :class:`RefereeError` (never writes anything) on
    an empty source, a board spec that matches nothing seen, too few views, or
    ``anchors`` lying outside ``table`` (checked before any frame is read).
    """
    check_anchors_on_table(anchors, table)
    anchors = tuple(anchors) or default_anchors(marker_dictionary, table)
    pending: list[Frame] = []
    detector: BoardDetector | None = None
    last: Frame | None = None
    last_view: BoardView | None = None
    last_useful: tuple[Frame, BoardView] | None = None
    seen = 0
    sample_frames: list[Image] = []
    image_size: tuple[int, int] | None = None

    def process(frame: Frame) -> None:
        nonlocal last_view, last_useful, image_size, collector
        assert detector is not None
        h, w = frame.image.shape[:2]
        if image_size is None:
            image_size = (w, h)
            if collector is None:
                collector = ViewCollector(image_size, min_sharpness=min_sharpness)
        elif image_size != (w, h):
            raise SourceError(
                f"{frame.name}: image size {w}x{h} differs from the first image's "
                f"{image_size[0]}x{image_size[1]}; calibrate one camera at one resolution"
            )
        view = detector.detect(frame.image, frame.name)
        assert collector is not None
        verdict = collector.add(view)
        if on_verdict is not None:
            on_verdict(verdict)
        last_view = view
        if len(view) >= MIN_CORNERS:
            last_useful = (frame, view)
        if len(sample_frames) < 4 and len(view) == 0:
            sample_frames.append(frame.image)

    identify = _BoardIdentifier() if spec is None else None
    for frame in frames:
        seen += 1
        last = frame
        if on_frame is not None:
            identifying = detector is None and identify is not None  # no spec given: find it
            on_frame(seen, "identifying the board" if identifying else "reading board views")
        if detector is None:
            if spec is None:
                assert identify is not None
                spec = identify(frame.image)
            if spec is None:
                pending.append(frame)
                if len(pending) < qr_frames:
                    continue
                assert identify is not None
                spec = identify.by_layout()
                if spec is None:
                    break  # nothing identified the board: refused below
            detector = BoardDetector(spec)
            for early in pending:
                process(early)
            pending = []
        process(frame)
    if detector is None and pending and identify is not None:
        # A short source: fewer frames than qr_frames, and only the layout was seen.
        spec = identify.by_layout()
        if spec is not None:
            detector = BoardDetector(spec)
            for early in pending:
                process(early)
    if seen == 0 or last is None:
        raise SourceError("the source has no images or frames")
    if detector is None or spec is None:
        raise RefereeError(
            "no board spec given and no calibration board recognised (no board QR code read, "
            "and not the printed board's pattern); pass --board "
            f"charuco:COLSxROWS:SQUARE:MARKER:DICT, e.g. --board {BOARD_EXAMPLE} for "
            "calibration/board-letter.pdf"
        )
    assert collector is not None and image_size is not None
    if not collector.views:
        raise RefereeError(_nothing_found_message(spec, collector, sample_frames or [last.image]))
    solution = solve_intrinsics(collector.views, image_size, select_model=select_lens_model)
    intr = solution.intrinsics

    # The table view: an explicit image, else the final frame, else the last frame with a board.
    if table_image is not None:
        th, tw = table_image.image.shape[:2]
        if (tw, th) != image_size:
            raise SourceError(
                f"{table_image.name}: table image is {tw}x{th} but the views are "
                f"{image_size[0]}x{image_size[1]}; take it with the same camera and resolution"
            )
        table_frame, table_board = table_image, detector.detect(table_image.image, table_image.name)
    elif last_view is not None and len(last_view) >= MIN_CORNERS:
        table_frame, table_board = last, last_view
    elif last_useful is not None:
        table_frame, table_board = last_useful
    else:
        table_frame, table_board = last, last_view or detector.detect(last.image, last.name)
    if identify is not None and identify.scale_unknown:
        spec = _printed_board_by_scale(
            intr, spec, table, table_frame, table_board, anchors, marker_dictionary, flat_tags
        )
        table_board = replace(
            table_board, object_m=table_board.object_m * (spec.square_m / detector.spec.square_m)
        )
    fix = _table_fix(
        intr, spec, table, table_frame, table_board, anchors, marker_dictionary, flat_tags
    )
    if fix is None:
        pose = TablePose.looking_down((table.width / 2, table.depth / 2), 40.0)
        frame_source = "manual"
        off_view: tuple[tuple[float, float], ...] = ()  # a made-up pose says nothing of the table
    else:
        pose, frame_source = fix.pose, fix.frame_source
        off_view = corners_out_of_view(intr, pose, table)
    profile = CalibrationProfile(
        intrinsics=intr,
        table_pose=pose,
        table=table,
        frame_source=frame_source,
        board=spec.to_string(),
        rms_px=solution.rms_px,
        view_errors_px=solution.view_errors_px,
        views_used=len(solution.used),
        anchors=anchors if frame_source == "anchors" else (),
        lens_model=solution.lens_model,
        held_out_px=solution.held_out_rms_px,
    )
    used = set(solution.used)
    return CalibrationRun(
        profile,
        solution,
        fix,
        table_frame.name,
        seen,
        tuple(sorted(collector.rejected.items())),
        collector.guidance(),
        off_view,
        picture_coverage([view for view in collector.views if view.name in used], image_size),
    )


#: Without libzbar, OpenCV's QR reader (about a second per 1080p frame) tries every n-th frame.
OPENCV_QR_EVERY = 10


class _BoardIdentifier:
    """Which board the frames show, when no spec was given (see :func:`calibrate_frames`)."""

    def __init__(self) -> None:
        from referee.calibration.recognise import printed_boards, same_layout
        from referee.markers.qr import pyzbar_available

        self.boards = printed_boards()
        self.layout = BoardDetector(self.boards[0].spec) if same_layout(self.boards) else None
        self.fast_qr = pyzbar_available()
        self.frames = 0
        self.layout_seen = 0
        self.scale_unknown = False

    def __call__(self, image: Image) -> BoardSpec | None:
        from referee.calibration.recognise import match_printed_board

        self.frames += 1
        if self.layout is not None:
            view = self.layout.detect(image)
            if len(view) >= MIN_CORNERS:
                self.layout_seen += 1
                squares = view.object_m[:, :2] / self.layout.spec.square_m
                spec = match_printed_board(to_gray(image), view.corners_px, squares, self.boards)
                if spec is not None:
                    return spec
        if self.fast_qr or self.frames % OPENCV_QR_EVERY == 1:
            return spec_from_qr(image)
        return None

    def by_layout(self) -> BoardSpec | None:
        """A printed board recognised by its pattern only: its size is settled at the table."""
        if self.layout is None or self.layout_seen == 0:
            return None
        self.scale_unknown = True
        return self.layout.spec


def _printed_board_by_scale(
    intr: Intrinsics,
    spec: BoardSpec,
    table: TableSize,
    frame: Frame,
    board_view: BoardView,
    anchors: Sequence[AnchorTag],
    dictionary: str,
    flat_tags: Sequence[tuple[int, float]],
) -> BoardSpec:
    """Which printed size the board is, from tags of known size lying beside it."""
    from referee.calibration.recognise import choose_by_scale, printed_boards, square_from_tags

    boards = printed_boards()
    choices = " or ".join(f"--board {b.spec.to_string()} ({b.page})" for b in boards)
    unread = (
        f"the board is the printed {spec.columns}x{spec.rows} board but its QR code was not read"
    )
    if len(board_view) < MIN_CORNERS:
        raise RefereeError(
            f"{unread} and the table view ({frame.name}) does not show it flat; pass {choices}"
        )
    ids, corners = detect_markers(to_gray(frame.image), dictionary, intr)
    sizes = {a.tag: a.size for a in anchors} | dict(flat_tags)
    known = [(quad, sizes[int(t)]) for t, quad in zip(ids, corners, strict=True) if int(t) in sizes]
    square = square_from_tags(
        intr,
        board_view.corners_px,
        board_view.object_m[:, :2] / spec.square_m,
        np.array([quad for quad, _ in known]).reshape(-1, 4, 2),
        [size * table.inch_mm / 1000.0 for _, size in known],
    )
    if square is None:
        raise RefereeError(
            f"{unread}, and no anchor or flat tag of known size lies beside it in the table view "
            f"({frame.name}) to tell its size; pass {choices}"
        )
    chosen = choose_by_scale(square, boards)
    if chosen is None:
        raise RefereeError(
            f"{unread}; the tags beside it make a square {square * 1000:.1f} mm, neither printed "
            f"size: measure a square and use the spec `referee board --square` prints"
        )
    return chosen


def _table_fix(
    intr: Intrinsics,
    spec: BoardSpec,
    table: TableSize,
    frame: Frame,
    board_view: BoardView,
    anchors: Sequence[AnchorTag],
    dictionary: str,
    flat_tags: Sequence[tuple[int, float]],
) -> TableFix | None:
    gray = to_gray(frame.image)
    ids, corners = detect_markers(gray, dictionary, intr)
    sizes = dict(flat_tags)
    anchor_tags = {a.tag for a in anchors}
    flats = [
        FlatTag(int(t), sizes[int(t)], quad)
        for t, quad in zip(ids, corners, strict=True)
        if int(t) in sizes and int(t) not in anchor_tags
    ]
    has_board = len(board_view) >= MIN_CORNERS and not _collinear(board_view.corners_px)
    seen_anchors = len(set(int(i) for i in ids) & anchor_tags)
    if not has_board and seen_anchors < 3:
        return None
    fix = locate_table(
        intr,
        board_view.object_in(table.inch_mm) if has_board else None,
        board_view.corners_px if has_board else None,
        ids,
        corners,
        anchors,
        flats,
    )
    if fix.frame_source == "anchors":
        misfits = anchor_misfits(intr, fix.pose, ids, corners, anchors)
        tag, worst = max(misfits.items(), key=lambda item: item[1])
        if worst > ANCHOR_MISFIT_IN:
            where = next(f"({a.x:g}, {a.y:g})" for a in anchors if a.tag == tag)
            size = f"{table.width:g}x{table.depth:g}in"
            fits = _table_the_anchors_fit(intr, ids, corners, anchors, dictionary, table)
            hint = f"; the anchors seen fit a {fits} table (--table {fits})" if fits else ""
            raise RefereeError(
                f"table view {frame.name}: the corner anchors do not fit a {size} table "
                f"(anchor {tag} is seen {worst:.2f}in from its place {where}); check --table "
                "(the table's size in game inches) or the roster's anchors, and that each "
                f"anchor is glued in its corner{hint}"
            )
    return fix


def _table_the_anchors_fit(
    intr: Intrinsics,
    ids: NDArray[Any],
    corners: FloatArray,
    anchors: Sequence[AnchorTag],
    dictionary: str,
    table: TableSize,
) -> str | None:
    """The common table size (``48x36``) whose default anchors fit the ones seen, if any.

    Only for the default anchors (placed from ``--table``): a roster's own
    anchors say nothing of another size. Each common table is tried both ways
    round, smallest first, by the same fit and tolerance that refused ``table``.
    """
    if tuple(anchors) != tuple(default_anchors(dictionary, table)):
        return None
    for long_side, short_side in COMMON_TABLES_IN:
        for width, depth in ((long_side, short_side), (short_side, long_side)):
            size = TableSize(width, depth, table.inch_mm)
            if (width, depth) == (table.width, table.depth):
                continue
            trial = default_anchors(dictionary, size)
            try:
                fix = locate_table(intr, None, None, ids, corners, trial)
            except RefereeError:
                continue
            misfits = anchor_misfits(intr, fix.pose, ids, corners, trial)
            if (
                misfits
                and max(misfits.values()) <= ANCHOR_MISFIT_IN
                and _anchor_sides_fit(intr, fix.pose, ids, corners, trial)
            ):
                return f"{width:g}x{depth:g}"
    return None


def _anchor_sides_fit(
    intr: Intrinsics,
    pose: TablePose,
    ids: NDArray[Any],
    corners: FloatArray,
    anchors: Sequence[AnchorTag],
) -> bool:
    """True when every seen anchor measures its printed size (within 5%) on the fitted table.

    Four anchors of a table of another size but the same shape (30x22 for
    48x36) fit by moving the camera nearer; their printed size tells them apart.
    """
    sizes = {a.tag: a.size for a in anchors}
    quads = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    for tag, quad in zip(np.asarray(ids).ravel(), quads, strict=True):
        if int(tag) not in sizes:
            continue
        on_table = pixels_to_table(intr, pose, quad, 0.0)
        side = np.linalg.norm(on_table - np.roll(on_table, -1, axis=0), axis=1).mean()
        if abs(side / sizes[int(tag)] - 1.0) > 0.05:
            return False
    return True


def _nothing_found_message(
    spec: BoardSpec, collector: ViewCollector, images: Sequence[Image]
) -> str:
    rejected = ", ".join(f"{n} {reason}" for reason, n in sorted(collector.rejected.items()))
    if collector.rejected.get("blurry") and not collector.rejected.get("too few corners"):
        return (
            f"every view of the board was too blurry ({rejected}); hold the camera and board "
            "still, add light, or focus the lens"
        )
    flipped = _other_pattern_seen(spec, images)
    if flipped is not None:
        if flipped.legacy:
            return (
                f"no corners of {spec.to_string()} seen, but the board is printed in OpenCV's "
                "legacy ChArUco pattern (OpenCV before 4.6; it differs "
                "when the rows are even): add the :legacy ending, "
                f"--board {flipped.to_string()}"
            )
        return (
            f"no corners of {spec.to_string()} seen, but the board is printed in the current "
            "ChArUco pattern, not the legacy one: drop the :legacy ending, "
            f"--board {flipped.to_string()}"
        )
    found = identify_markers(images)
    if not found and np.median([sharpness(to_gray(i)) for i in images]) < 10.0:
        return (
            f"no calibration board seen and the images look blurry ({rejected}); hold the "
            "camera and board still, add light, or focus the lens"
        )
    if found:
        name, ids = found[0]
        same_family = name.rsplit("_", 1)[0] == spec.dictionary.rsplit("_", 1)[0]
        if same_family and max(ids) < dictionary_size(spec.dictionary):
            return (
                f"markers of {spec.dictionary} were seen (ids {_ids(ids)}) but no chessboard "
                f"corners of a {spec.columns}x{spec.rows} board; check the board size in "
                f"--board {spec.to_string()}"
            )
        return (
            f"no {spec.to_string()} board seen, but markers of {name} were found "
            f"(ids {_ids(ids)}); pass --board with that dictionary, e.g. "
            f"--board {spec.to_string().replace(spec.dictionary, name)}"
        )
    return (
        f"no calibration board seen in any view ({rejected or 'nothing decoded'}); check the "
        "source shows the board, well lit and in focus"
    )


def _other_pattern_seen(spec: BoardSpec, images: Sequence[Image]) -> BoardSpec | None:
    """The spec with the other ChArUco pattern when that one finds the board and ``spec`` not.

    OpenCV 4.6 changed which squares of a board with an even number of rows
    hold markers; a board printed one way and given the other shows its
    markers but never a chessboard corner.
    """
    if spec.rows % 2:
        return None  # odd rows: both patterns are the same board
    flipped = replace(spec, legacy=not spec.legacy)
    detector = BoardDetector(flipped)
    if any(len(detector.detect(image)) >= MIN_CORNERS for image in images):
        return flipped
    return None


def _ids(ids: Sequence[int]) -> str:
    shown = ", ".join(map(str, ids[:8]))
    return shown + (", ..." if len(ids) > 8 else "")
