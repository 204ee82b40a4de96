"""Calibrating a projector over the table through the calibrated camera, and keeping tags dark.

The projector shows a grid of tags at known projector pixels
(:func:`projector_pattern`); the camera sees them on the cloth, the detector
reads their corners, the camera's profile maps those to table inches (lens
removed, ray met with the table), and a homography projector px -> table in
is fitted (:func:`fit_projector`). Its error is measured on points left out
of the fit: each tag in turn is held out of a fit to the others.

:func:`tag_mask` then says, in projector pixels, where the overlay must stay
black so no tag on the table is ever lit (a lit black cell turns grey and
the detector loses the tag).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.calibration.camera import pixels_to_table
from referee.calibration.profile import CalibrationProfile
from referee.calibration.projector_fit import MAX_LENS_TERM, ProjectorFit, undistort
from referee.errors import RefereeError
from referee.tags.detect import TagDetector
from referee.tags.layout import (
    DEFAULT_DICTIONARY,
    QUIET_ZONE_CELLS,
    dictionary_size,
    marker_cells,
    reserved_anchor_ids,
)

__all__ = [
    "ProjectorFit",
    "ProjectorPattern",
    "TagSpot",
    "choose_projector_lens",
    "fit_projector",
    "tag_mask",
]

Image = NDArray[np.uint8]
FloatArray = NDArray[np.float64]

#: Fewer tags than this read from the pattern and the fit is refused (each gives 4 corners).
MIN_PATTERN_TAGS = 4


@dataclass(frozen=True)
class ProjectorPattern:
    """Tags shown by the projector: where each tag's black-square corners are, projector px."""

    resolution: tuple[int, int]
    dictionary: str
    corners: Mapping[int, tuple[tuple[float, float], ...]]
    """Tag id -> 4 corners (OpenCV order), projector pixels (pixel centres at integers)."""
    cell_px: int

    def picture(self) -> Image:
        """The image to show: each tag black with a lit quiet zone, nothing else lit."""
        width, height = self.resolution
        image = np.zeros((height, width, 3), np.uint8)
        for tag, corners in self.corners.items():
            cells = marker_cells(self.dictionary, tag)
            padded = np.pad(cells, QUIET_ZONE_CELLS, constant_values=True)
            block = np.kron(padded, np.ones((self.cell_px, self.cell_px), bool))
            # The black square's top-left edge sits half a pixel before the first pixel.
            x0 = round(corners[0][0] + 0.5) - QUIET_ZONE_CELLS * self.cell_px
            y0 = round(corners[0][1] + 0.5) - QUIET_ZONE_CELLS * self.cell_px
            side = block.shape[0]
            image[y0 : y0 + side, x0 : x0 + side] = np.where(block[..., None], 255, 0)
        return image


def projector_pattern(
    resolution: tuple[int, int],
    columns: int = 6,
    rows: int = 4,
    cell_px: int = 14,
    dictionary: str = DEFAULT_DICTIONARY,
    avoid: Iterable[int] = (),
) -> ProjectorPattern:
    """A grid of ``columns`` x ``rows`` tags spread over the picture.

    Ids are the dictionary's highest ones, skipping the anchors' and ``avoid``
    (the pieces' tags), so a tag on the table is never taken for a projected one.
    """
    width, height = resolution
    used = set(reserved_anchor_ids(dictionary)) | set(avoid)
    ids = [i for i in range(dictionary_size(dictionary) - 1, -1, -1) if i not in used]
    if len(ids) < columns * rows:
        raise RefereeError(
            f"{dictionary} has only {len(ids)} tags free for a projector pattern of "
            f"{columns * rows}; use fewer columns or rows"
        )
    cells = marker_cells(dictionary, ids[0]).shape[0]
    side = cells * cell_px
    outer = side + 2 * QUIET_ZONE_CELLS * cell_px
    if columns * outer > width or rows * outer > height:
        raise RefereeError(
            f"a projector pattern of {columns} x {rows} tags of {outer} px does not fit "
            f"a {width} x {height} picture; use smaller tags or fewer of them"
        )
    corners: dict[int, tuple[tuple[float, float], ...]] = {}
    xs = np.linspace(outer / 2, width - outer / 2, columns)
    ys = np.linspace(outer / 2, height - outer / 2, rows)
    k = 0
    for y in ys:
        for x in xs:
            left = float(np.round(x - side / 2)) - 0.5
            top = float(np.round(y - side / 2)) - 0.5
            corners[ids[k]] = (
                (left, top),
                (left + side, top),
                (left + side, top + side),
                (left, top + side),
            )
            k += 1
    return ProjectorPattern((width, height), dictionary, corners, cell_px)


def fit_projector(
    frame: Image, profile: CalibrationProfile, pattern: ProjectorPattern
) -> ProjectorFit:
    """Fit projector px -> table in from a camera frame of the projected ``pattern``."""
    found = TagDetector(pattern.dictionary).detect_full(frame)
    picture: list[FloatArray] = []
    table: list[FloatArray] = []
    for tag, corners_px in zip(found.ids.tolist(), found.corners_px, strict=True):
        if tag not in pattern.corners:
            continue
        on_table = pixels_to_table(profile.intrinsics, profile.table_pose, corners_px, 0.0)
        if not np.all(np.isfinite(on_table)):
            continue
        picture.append(np.array(pattern.corners[tag], np.float64))
        table.append(on_table)
    if len(picture) < MIN_PATTERN_TAGS:
        raise RefereeError(
            f"the camera read {len(picture)} of the projector's {len(pattern.corners)} tags "
            f"(at least {MIN_PATTERN_TAGS} are needed); is the projector on and aimed at "
            "the table, and the room dim enough?"
        )
    src = np.array(picture)
    dst = np.array(table)
    lens, errors = choose_projector_lens(src, dst, pattern.resolution)
    homography = _homography(
        undistort(src.reshape(-1, 2), lens, pattern.resolution), dst.reshape(-1, 2)
    )
    covered = _covered(homography, lens, pattern.resolution, profile)
    return ProjectorFit(
        resolution=pattern.resolution,
        homography=tuple(tuple(float(x) for x in row) for row in homography),  # type: ignore[misc]
        held_out_p95_in=float(np.percentile(errors, 95)),
        held_out_max_in=float(np.max(errors)),
        points_used=int(src.shape[0] * 4),
        covered=covered,
        lens=lens,
    )


LENS_MARGIN = 0.05
"""A lens term is kept only when it lowers the held-out RMS error by more than this
fraction (as the camera's lens model is chosen, calibration/calibrate.py). A projector
without distortion (the sample's) gains under 1% from a spurious k1 on the sample's
pattern; k1 = 0.02 lowers it by over 90%, so the margin separates them widely."""
LENS_TERMS = 2
"""Radial terms tried: k1, then k1 and k2."""


def choose_projector_lens(
    src: FloatArray, dst: FloatArray, resolution: tuple[int, int]
) -> tuple[tuple[float, ...], FloatArray]:
    """The radial terms the data support, and their held-out errors (inches per corner).

    ``src`` (tags, 4, 2) projector px, ``dst`` (tags, 4, 2) table inches. Each
    model (none, k1, k1 and k2) is scored by leaving each tag out of a fit to
    the others; a richer one is kept only when it beats the simpler by
    :data:`LENS_MARGIN`, so a projector with no distortion keeps the plain homography.
    """
    chosen: tuple[float, ...] = ()
    chosen_errors = _held_out(src, dst, resolution, 0)
    for terms in range(1, LENS_TERMS + 1):
        errors = _held_out(src, dst, resolution, terms)
        if _rms(errors) < _rms(chosen_errors) * (1 - LENS_MARGIN):
            chosen_errors = errors
            chosen = _fit_lens(src.reshape(-1, 2), dst.reshape(-1, 2), resolution, terms)
        else:
            break
    return chosen, chosen_errors


def _rms(errors: FloatArray) -> float:
    return float(np.sqrt(np.mean(errors * errors)))


def _held_out(
    src: FloatArray, dst: FloatArray, resolution: tuple[int, int], terms: int
) -> FloatArray:
    """Each tag's 4 corners measured by a fit (``terms`` radial terms) to all the others."""
    errors: list[float] = []
    for k in range(len(src)):
        keep = np.arange(len(src)) != k
        train_src, train_dst = src[keep].reshape(-1, 2), dst[keep].reshape(-1, 2)
        lens = _fit_lens(train_src, train_dst, resolution, terms) if terms else ()
        h = _homography(undistort(train_src, lens, resolution), train_dst)
        mapped = cv2.perspectiveTransform(
            undistort(src[k], lens, resolution).reshape(-1, 1, 2), h
        ).reshape(-1, 2)
        errors.extend(np.hypot(*(mapped - dst[k]).T).tolist())
    return np.array(errors, np.float64)


def _residuals(
    src: FloatArray, dst: FloatArray, resolution: tuple[int, int], lens: tuple[float, ...]
) -> FloatArray:
    """Table-inch residuals of the best homography once ``lens`` is taken out of ``src``."""
    straight = undistort(src, lens, resolution)
    h = _homography(straight, dst)
    mapped = cv2.perspectiveTransform(straight.reshape(-1, 1, 2), h).reshape(-1, 2)
    return np.asarray((mapped - dst).ravel(), np.float64)


def _fit_lens(
    src: FloatArray, dst: FloatArray, resolution: tuple[int, int], terms: int
) -> tuple[float, ...]:
    """``terms`` radial terms minimising the table-inch error, the homography refitted at
    each step (Gauss-Newton on the few terms, differences for the Jacobian)."""
    lens = np.zeros(terms)
    step = 1e-5
    for _ in range(12):
        now = _residuals(src, dst, resolution, tuple(lens))
        jacobian = np.column_stack(
            [
                (_residuals(src, dst, resolution, tuple(lens + step * np.eye(terms)[i])) - now)
                / step
                for i in range(terms)
            ]
        )
        delta = np.linalg.lstsq(jacobian, -now, rcond=None)[0]
        lens = np.clip(lens + delta, -MAX_LENS_TERM, MAX_LENS_TERM)
        if np.max(np.abs(delta)) < 1e-7:
            break
    return tuple(float(k) for k in lens)


def _homography(src: FloatArray, dst: FloatArray) -> FloatArray:
    # Least squares over every corner: the detector verifies ids, so there are no outliers
    # for RANSAC to reject, and its threshold would only throw good corners away.
    h, _ = cv2.findHomography(src, dst, 0)
    if h is None:
        raise RefereeError("the projector's tags seen by the camera fit no homography")
    return np.asarray(h, np.float64)


def _covered(
    homography: FloatArray,
    lens: tuple[float, ...],
    resolution: tuple[int, int],
    profile: CalibrationProfile,
) -> tuple[tuple[float, float], ...]:
    """The picture's outline on the table, clipped to the table (the corners' hull: a
    lens bows the edges by a fraction of an inch, which the outline need not follow)."""
    width, height = resolution
    edge = np.array(
        [[-0.5, -0.5], [width - 0.5, -0.5], [width - 0.5, height - 0.5], [-0.5, height - 0.5]]
    )
    straight = undistort(edge, lens, resolution)
    picture = cv2.perspectiveTransform(straight.reshape(-1, 1, 2), homography).reshape(-1, 2)
    w, d = profile.table.width, profile.table.depth
    table = np.array([[0, 0], [w, 0], [w, d], [0, d]], np.float32)
    quad = picture.astype(np.float32)
    if cv2.contourArea(quad, oriented=True) < 0:
        quad = quad[::-1].copy()
    area, clipped = cv2.intersectConvexConvex(quad, table)
    if clipped is None or area <= 0:
        return ()
    return tuple((float(x), float(y)) for x, y in clipped.reshape(-1, 2))


@dataclass(frozen=True)
class TagSpot:
    """A tag on the table now: its centre (table inches) and black-square side (inches)."""

    x: float
    y: float
    size: float


def tag_mask(
    fit: ProjectorFit,
    tags: Sequence[TagSpot],
    margin_in: float,
    quiet_cells: float = QUIET_ZONE_CELLS,
    bits: int = 4,
) -> Image:
    """1 everywhere the projector may light, 0 over every tag and ``margin_in`` round it.

    Each tag is blacked out as a disc holding its white square at any heading
    (its half-diagonal) plus the margin, which absorbs motion between frames
    and the parallax of a raised tag under a projector not straight above it.
    Multiply the overlay by the mask (``overlay * mask[..., None]``).
    """
    if not margin_in >= 0:
        raise ValueError(f"margin must be a non-negative number of inches, got {margin_in}")
    width, height = fit.resolution
    mask = np.ones((height, width), np.uint8)
    if not tags:
        return mask
    angles = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    # The polygon's edges must lie outside the disc: push the vertices out by 1/cos(pi/48).
    spread = 1.0 / np.cos(np.pi / len(angles))
    for spot in tags:
        outer = spot.size * (1 + 2 * quiet_cells / (bits + 2))
        radius = (outer / np.sqrt(2) + margin_in) * spread
        circle = np.column_stack(
            [spot.x + radius * np.cos(angles), spot.y + radius * np.sin(angles)]
        )
        px = fit.to_picture(circle)
        if not np.all(np.isfinite(px)) or np.abs(px).max() > 1e6:
            continue
        hull = cv2.convexHull(np.round(px * 16).astype(np.int32).reshape(-1, 1, 2))
        cv2.fillConvexPoly(mask, hull, 0, cv2.LINE_8, 4)
    # A one-pixel guard band round every hole: a lit pixel's light spills past its edge.
    return np.asarray(cv2.erode(mask, np.ones((3, 3), np.uint8)), np.uint8)
