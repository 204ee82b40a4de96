"""Tag detection: pixels in, ids and sub-pixel corners out.

:class:`Detections` is the one value that leaves this stage (like
supervision's ``Detections``): arrays with validated shapes, ``len()``,
boolean-mask indexing, never mutated. :class:`TagDetector` wraps OpenCV's
``ArucoDetector`` with parameters tuned for the small tags of a wargames
table (a 0.8 in tag on a 72 in table seen in 1080p is about 20 px across;
OpenCV's default minimum perimeter drops tags under about 14 px) and, to
stay fast, re-detects only in regions around the tags it saw last frame and
where the picture moved, with a full-frame pass every few frames to pick up tags
that appear. Squares
OpenCV closes but cannot read get a second look at twice the resolution, and
on AprilTag families AprilTag 3 (the optional ``pupil-apriltags``,
:mod:`referee.tags.apriltag`) adds its candidates; every candidate then gets
the same edge-fitted corners and cell re-read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from referee.tags import apriltag
from referee.tags.corners import LensModel, refine_tag_corners
from referee.tags.layout import (
    DEFAULT_DICTIONARY,
    dictionary_size,
    get_dictionary,
    marker_bits,
    marker_cells,
)

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def _readonly(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class Detections:
    """Tags found in one image.

    >>> d = Detections([3, 7], np.zeros((2, 4, 2)))
    >>> len(d), d[d.ids == 7].ids.tolist()
    (2, [7])
    >>> Detections([1], np.zeros((2, 4, 2)))
    Traceback (most recent call last):
    ...
    ValueError: detections need one id per corner quad, got 1 ids and corners of shape (2, 4, 2)
    """

    ids: IntArray
    """Tag ids, shape (n,)."""
    corners_px: FloatArray
    """Sub-pixel corners, shape (n, 4, 2), OpenCV order (TL, TR, BR, BL; top = the tag's front)."""

    def __post_init__(self) -> None:
        ids = np.array(self.ids, dtype=np.int64).reshape(-1)
        corners = np.array(self.corners_px, dtype=np.float64)
        if corners.size == 0:
            corners = corners.reshape(0, 4, 2)
        if corners.ndim != 3 or corners.shape[1:] != (4, 2) or len(corners) != len(ids):
            raise ValueError(
                f"detections need one id per corner quad, got {len(ids)} ids and "
                f"corners of shape {corners.shape}"
            )
        object.__setattr__(self, "ids", _readonly(ids))
        object.__setattr__(self, "corners_px", _readonly(corners))

    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros(0, np.int64), np.zeros((0, 4, 2)))

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, index: ArrayLike | slice) -> Detections:
        """Select by boolean mask, index array or slice; always a new value."""
        if isinstance(index, slice):
            return Detections(self.ids[index], self.corners_px[index])
        selector = np.asarray(index)
        if selector.dtype != bool:
            selector = selector.astype(np.int64).reshape(-1)
        return Detections(self.ids[selector], self.corners_px[selector])

    @property
    def centers_px(self) -> FloatArray:
        """Mean of each tag's four corners, shape (n, 2)."""
        return np.asarray(self.corners_px.mean(axis=1), dtype=np.float64)

    @property
    def side_px(self) -> FloatArray:
        """Mean side length of each tag in pixels, shape (n,)."""
        edges = self.corners_px - np.roll(self.corners_px, -1, axis=1)
        return np.asarray(np.linalg.norm(edges, axis=2).mean(axis=1), dtype=np.float64)

    @staticmethod
    def merge(parts: list[Detections]) -> Detections:
        parts = [p for p in parts if len(p)]
        if not parts:
            return Detections.empty()
        return Detections(
            np.concatenate([p.ids for p in parts]), np.concatenate([p.corners_px for p in parts])
        )

    def to_json(self) -> dict[str, Any]:
        return {"ids": self.ids.tolist(), "corners_px": self.corners_px.tolist()}


REFINE_METHODS = {
    "none": cv2.aruco.CORNER_REFINE_NONE,
    "subpix": cv2.aruco.CORNER_REFINE_SUBPIX,
    "contour": cv2.aruco.CORNER_REFINE_CONTOUR,
    # OpenCV's contour refinement, then each side fitted to the black-to-white edge.
    "edges": cv2.aruco.CORNER_REFINE_CONTOUR,
}


#: OpenCV's ``minMarkerDistanceRate`` per pass: its default first (region passes use only
#: that), then a finer grouping that full-frame passes add (see ``_make_params``).
MARKER_DISTANCE_RATES = (0.125, 0.05)


@dataclass(frozen=True)
class DetectorSettings:
    """Detector tuning. Defaults measured on simulated 1080p/4K table footage (see benchmarks)."""

    min_side_px: float = 9.0
    """Smallest tag side looked for, px (OpenCV's default drops tags under ~14 px at 1080p)."""
    refine: str = "edges"
    """Corner refinement: ``edges`` (default: each side of the black square fitted as a line
    to the sub-pixel black-to-white edge, corners where the lines meet; see
    :func:`referee.tags.corners.refine_tag_corners`), ``contour``
    (OpenCV's; its outward bias is symmetric, so centres are good but facings less so),
    ``subpix`` or ``none``."""
    refine_window_px: int = 4
    """Largest half-window for sub-pixel refinement; OpenCV scales it down to a third of a cell."""
    full_every: int = 8
    """Run a full-frame pass at least every this many frames (1 = always full frame)."""
    roi_margin: float = 1.0
    """Margin around a known tag's box, in tag sides, searched on the frames in between."""
    motion_search: bool = True
    """On the frames in between, also search wherever the picture changed over the last two
    frames (a hand, a sliding piece): a piece carried under a hand is read the frame the
    hand leaves it, not at the next full pass (at 12 frames/s that was up to 0.6 s of a
    settled piece unseen, 1.8% of the visible tags of a random game's frames)."""
    motion_scale: int = 8
    """Frames are compared at 1/this of their size to find where something moved."""
    motion_levels: int = 30
    """Grey levels a downsized pixel must change by to count as motion (as :func:`_changed`:
    a hand trips it; noise, compression and mains flicker do not)."""
    motion_max_share: float = 0.3
    """Motion over more of the picture than this (a bumped camera, the exposure jumping) is
    not searched: the next full pass sees it all anyway."""
    adaptive_window: tuple[int, int, int] = (3, 23, 10)
    """Adaptive threshold window sizes (min, max, step)."""
    upscale_rejects: bool = True
    """Look again, at twice the resolution, around each square OpenCV found but could not
    read (up to ``upscale_max_side_px`` across): tags of about 14 px (2.3 px a cell) that
    the first pass misses are read there (see benchmarks/README.md, hard tags)."""
    upscale_max_side_px: float = 48.0
    """Largest unread square worth the second look, px."""
    apriltag_backend: bool = True
    """On AprilTag families, also take candidates from AprilTag 3 (``pupil-apriltags``) when
    it is installed (see :mod:`referee.tags.apriltag`); ignored for other dictionaries."""
    verify: bool = True
    """Re-read each tag's cells at the refined corners and drop tags whose id is not the
    nearest code to what is read (a misread id)."""


class TagDetector:
    """Finds tags of one dictionary; stateful only to know where to look next.

    ``detect(image)`` returns a new :class:`Detections` and never alters the
    image. Between full-frame passes it searches only around the tags found
    last time, and a region whose pixels have not changed since it was
    measured keeps its measurement without running the detector again (a
    settled table costs almost nothing); a tag that goes missing keeps its
    last region, so it is found there the frame it is uncovered; wherever the
    picture changed over the last two frames (a hand, a slide) is searched too, so a
    tag carried and put down elsewhere is read the frame the hand leaves it; a tag
    that appears anywhere else is found at the next full pass (at most
    ``full_every - 1`` frames later). ``reset()`` forgets the
    regions, so the next call is a full pass.
    """

    def __init__(
        self,
        dictionary: str = DEFAULT_DICTIONARY,
        settings: DetectorSettings | None = None,
        intrinsics: LensModel | None = None,
    ) -> None:
        self.dictionary = dictionary
        self.settings = settings or DetectorSettings()
        # With a camera model the ``edges`` refinement fits the tag sides with the lens removed.
        self.intrinsics = intrinsics
        if self.settings.refine not in REFINE_METHODS:
            raise ValueError(
                f"unknown corner refinement {self.settings.refine!r}; "
                f"use one of {sorted(REFINE_METHODS)}"
            )
        self._params = self._make_params()
        # AprilTag 3 adds candidates on its own families when installed; else OpenCV alone.
        family = apriltag.family_of(dictionary)
        use_april = self.settings.apriltag_backend and family is not None
        self._april_family = family if use_april and apriltag.available() else None
        self._cells = marker_bits(dictionary) + 2
        centres = np.arange(self._cells, dtype=np.float32) + 0.5
        grid_x, grid_y = np.meshgrid(centres, centres)
        self._cell_centres = np.stack([grid_x.ravel(), grid_y.ravel()], axis=1)[None]
        inner = np.zeros((self._cells, self._cells), bool)
        inner[1:-1, 1:-1] = True
        self._data_cells = inner.ravel()
        self._oriented: tuple[FloatArray, IntArray] | None = None
        self._detector = cv2.aruco.ArucoDetector(get_dictionary(dictionary), self._params)
        self.reset()

    def _make_params(self) -> cv2.aruco.DetectorParameters:
        s = self.settings
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = REFINE_METHODS[s.refine]
        params.cornerRefinementWinSize = int(s.refine_window_px)
        params.relativeCornerRefinmentWinSize = 0.3
        params.cornerRefinementMaxIterations = 50
        params.cornerRefinementMinAccuracy = 0.005
        params.adaptiveThreshWinSizeMin = s.adaptive_window[0]
        params.adaptiveThreshWinSizeMax = s.adaptive_window[1]
        params.adaptiveThreshWinSizeStep = s.adaptive_window[2]
        # Small tags have few pixels per cell: sample each cell more finely.
        params.perspectiveRemovePixelPerCell = 8
        params.perspectiveRemoveIgnoredMarginPerCell = 0.15
        params.minCornerDistanceRate = 0.05
        # Candidates closer than this (mean corner distance / perimeter) form one group, of
        # which OpenCV decodes one; a tag and the white square cut around it are 0.06 apart.
        # Neither setting finds every tag (sample clip: at 0.05 anchor 99 was lost in 51 of
        # 288 frames where stock OpenCV found it; at OpenCV's 0.125 a 3in tag touching the
        # picture's edge is lost), so passes that may miss a tag add a 0.05 pass: the first
        # full pass, a full pass missing a known tag, a region whose tag went missing, and
        # detect_full.
        params.minMarkerDistanceRate = MARKER_DISTANCE_RATES[0]
        return params

    def reset(self) -> None:
        """Forget known tag positions: the next frame gets a full-frame pass."""
        self._last: Detections = Detections.empty()
        self._since_full = 0
        self._full_next = True
        self._patches: dict[tuple[int, int, int, int], tuple[NDArray[np.uint8], Detections]] = {}
        self._small: list[NDArray[np.int16]] = []

    def request_full_pass(self) -> None:
        """Make the next :meth:`detect` a full-frame pass (e.g. a piece went missing)."""
        self._full_next = True

    def _run(
        self,
        gray: NDArray[np.uint8],
        origin: tuple[int, int] = (0, 0),
        rates: tuple[float, ...] = MARKER_DISTANCE_RATES[:1],
        scale: float = 1.0,
        april: bool = True,
    ) -> Detections:
        """Detect in ``gray``, whose pixel (0, 0) is ``origin`` in the full frame.

        One OpenCV pass per candidate grouping distance in ``rates``; a tag found
        again by a later pass is not repeated. ``scale`` > 1 marks a crop already
        enlarged that much (the second look at unread squares), which is not enlarged again.
        ``april`` lets AprilTag 3 add its candidates (when the back-end is on): it costs
        about 0.25 s a 1080p frame, so per-frame passes ask for it only where a tag may be
        missed, as for the finer grouping.
        """
        height, width = gray.shape[:2]
        rate = 4.0 * self.settings.min_side_px * scale / max(height, width)
        self._params.minMarkerPerimeterRate = float(min(rate, 1.0))
        quads, tags = np.zeros((0, 4, 2)), np.zeros(0, np.int64)
        unread: list[FloatArray] = []
        for distance in rates:
            self._params.minMarkerDistanceRate = distance
            self._detector.setDetectorParameters(self._params)
            corners, ids, rejected = self._detector.detectMarkers(gray)
            if len(rejected):
                unread.append(np.asarray(rejected, dtype=np.float64).reshape(-1, 4, 2))
            if ids is None or len(ids) == 0:
                continue
            new_quads = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
            new_tags = np.asarray(ids, dtype=np.int64).reshape(-1)
            fresh = ~_same_tags(new_tags, new_quads, tags, quads)
            quads = np.concatenate([quads, new_quads[fresh]])
            tags = np.concatenate([tags, new_tags[fresh]])
        if april and self._april_family is not None:
            new_tags, new_quads = apriltag.detect_apriltag(gray, self._april_family)
            fresh = ~_same_tags(new_tags, new_quads, tags, quads)
            quads = np.concatenate([quads, new_quads[fresh]])
            tags = np.concatenate([tags, new_tags[fresh]])
        if len(tags) == 0 and not unread:
            return Detections.empty()
        if len(tags) and self.settings.refine == "edges":
            lens, shift = self.intrinsics, origin
            if lens is not None and scale != 1.0:
                lens, shift = _ScaledLens(lens, scale, origin), (0, 0)
            quads = refine_tag_corners(gray, quads, self._cells, lens, shift)
        if len(tags) and self.settings.verify:
            keep = self._cells_agree(gray, quads, tags)
            quads, tags = quads[keep], tags[keep]
        found = Detections(tags, quads)
        if scale == 1.0 and self.settings.upscale_rejects and unread:
            found = self._add_new(
                found, self._second_look(gray, origin, np.concatenate(unread), found)
            )
        return found

    def _second_look(
        self,
        gray: NDArray[np.uint8],
        origin: tuple[int, int],
        unread: FloatArray,
        found: Detections,
    ) -> Detections:
        """Tags read at twice the resolution in boxes around squares OpenCV could not read.

        A tag of 2-3 px a cell often closes its outline (or its base's) but not
        its cells; enlarged 2x (bicubic) the same detector reads it. Only squares
        of at most ``upscale_max_side_px`` not already holding a found tag are
        looked at, so a frame with nothing unread costs nothing more.
        """
        side = np.linalg.norm(unread - np.roll(unread, -1, axis=1), axis=2).mean(axis=1)
        centre = unread.mean(axis=1)
        small = (side >= self.settings.min_side_px) & (side <= self.settings.upscale_max_side_px)
        if len(found):
            gap = np.linalg.norm(centre[:, None] - found.centers_px[None], axis=2)
            small &= ~(gap < found.side_px[None] * 0.5).any(axis=1)
        if not small.any():
            return Detections.empty()
        height, width = gray.shape[:2]
        lo = unread[small].min(axis=1) - side[small, None] * 0.5 - 2
        hi = unread[small].max(axis=1) + side[small, None] * 0.5 + 2
        boxes = _merge_boxes(
            [
                (
                    int(max(a[0], 0)),
                    int(max(a[1], 0)),
                    int(min(b[0], width)),
                    int(min(b[1], height)),
                )
                for a, b in zip(np.floor(lo), np.ceil(hi), strict=True)
            ]
        )
        parts = []
        for x0, y0, x1, y1 in boxes:
            if x1 - x0 < 4 or y1 - y0 < 4:
                continue
            crop = np.asarray(
                cv2.resize(gray[y0:y1, x0:x1], None, fx=2.0, fy=2.0, interpolation=cv2.INTER_CUBIC),
                dtype=np.uint8,
            )
            local = self._run(crop, (origin[0] + x0, origin[1] + y0), scale=2.0, april=False)
            # Enlarged pixel p is centred on original pixel (p + 0.5) / 2 - 0.5 of the crop.
            quads = (local.corners_px + 0.5) / 2.0 - 0.5 + np.array([x0, y0], float)
            parts.append(Detections(local.ids, quads))
        return Detections.merge(parts)

    @staticmethod
    def _add_new(found: Detections, extra: Detections) -> Detections:
        """``found`` plus the tags of ``extra`` it does not already have."""
        fresh = ~_same_tags(extra.ids, extra.corners_px, found.ids, found.corners_px)
        return Detections.merge([found, extra[fresh]])

    def _cells_agree(
        self, gray: NDArray[np.uint8], quads: FloatArray, tags: IntArray
    ) -> NDArray[np.bool_]:
        """Re-read every cell at the refined corners; keep tags whose id is the nearest code.

        OpenCV reads a tag's bits once, from its first, rougher outline. On
        tags of about 14 px (2.3 px per cell) it occasionally reads a valid
        but wrong id (measured: 2 of 5,200 detections on 72in/1080p
        footage). The cells are re-read at their centres from the refined
        corners as soft bits (0 = the tag's black, 1 = its white) and the tag
        is kept when its id's code, as oriented, is strictly nearer to them
        than every other code of the dictionary in any of the four turns: a
        misread is nearer to the true tag's code and is dropped (it is found
        again next frame), while a correct tag with a cell or two washed out
        by blur or a shadow (a real photo's 20 px tag) is kept. Demanding
        that every cell match exactly threw such tags away.
        """
        n = self._cells
        src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
        points = np.empty((len(tags), n * n, 2), np.float32)
        for k, quad in enumerate(quads):
            homography = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
            points[k] = cv2.perspectiveTransform(self._cell_centres, homography)[0]
        values = cv2.remap(
            gray,
            points[..., 0],
            points[..., 1],
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        ).astype(np.float64)
        low = values.min(axis=1, keepdims=True)
        span = np.maximum(values.max(axis=1, keepdims=True) - low, 1e-6)
        soft = ((values - low) / span)[:, self._data_cells]
        codes, owners = self._all_codes()
        # (tags, codes): summed soft-bit distance of each re-read tag to every oriented code.
        distance = np.abs(soft[:, None, :] - codes[None, :, :]).sum(axis=2)
        claimed = owners[None, :, 1] == 0
        claimed = claimed & (owners[None, :, 0] == tags[:, None])
        own = np.where(claimed, distance, np.inf).min(axis=1)
        others = np.where(owners[None, :, 0] == tags[:, None], np.inf, distance).min(axis=1)
        return np.asarray(own < others)

    def _all_codes(self) -> tuple[FloatArray, IntArray]:
        """Every id's data cells in its four turns: (codes (4m, bits^2), (id, turn) (4m, 2))."""
        if self._oriented is None:
            count = dictionary_size(self.dictionary)
            codes, owners = [], []
            for tag in range(count):
                cells = marker_cells(self.dictionary, tag)
                for turn in range(4):
                    codes.append(np.rot90(cells, turn).ravel()[self._data_cells])
                    owners.append((tag, turn))
            self._oriented = (
                np.asarray(codes, np.float64),
                np.asarray(owners, np.int64),
            )
        return self._oriented

    def detect_full(self, image: NDArray[Any]) -> Detections:
        """Search the whole image, statelessly."""
        return self._run(_gray(image), rates=MARKER_DISTANCE_RATES)

    def detect(self, image: NDArray[Any]) -> Detections:
        """Tags in ``image`` (BGR or grey); corners are never rounded to whole pixels."""
        s = self.settings
        full = self._full_next or len(self._last) == 0 or self._since_full + 1 >= s.full_every
        moved = self._motion_boxes(image) if s.motion_search else []
        if full:
            gray = _gray(image)
            found = self._run(gray, april=False)
            if len(self._last) == 0 or not np.isin(self._last.ids, found.ids).all():
                # Nothing known yet, or a known tag is missing: try the other grouping (and
                # AprilTag 3) too.
                found = self._add_new(found, self._run(gray, rates=MARKER_DISTANCE_RATES[1:]))
            self._since_full = 0
            self._full_next = False
            self._patches = {}
        else:
            self._since_full += 1
            boxes = self._regions(image.shape[1], image.shape[0])
            found = self._detect_regions(image, _merge_boxes(boxes + moved))
            found = _dedupe(found)
            # A tag that vanished (under a hand) keeps its region until the next full pass.
            lost = ~np.isin(self._last.ids, found.ids)
            self._last = Detections.merge([found, self._last[lost]])
            return found
        found = _dedupe(found)
        # A tag the full pass missed (under a hand) keeps its last region too: it is
        # searched there every frame, so it is back the frame it is uncovered (an anchor
        # that reappeared waited for the next full pass before). An unchanged region costs
        # nothing; a tag found anywhere else replaces its old region.
        lost = ~np.isin(self._last.ids, found.ids)
        self._last = Detections.merge([found, self._last[lost]])
        return found

    def _regions(self, width: int, height: int) -> list[tuple[int, int, int, int]]:
        last = self._last
        lo = last.corners_px.min(axis=1)
        hi = last.corners_px.max(axis=1)
        pad = (last.side_px * self.settings.roi_margin + 4)[:, None]
        x0y0 = np.floor(np.maximum(lo - pad, 0)).astype(int)
        x1y1 = np.ceil(np.minimum(hi + pad, [width, height])).astype(int)
        boxes = [
            (int(a[0]), int(a[1]), int(b[0]), int(b[1])) for a, b in zip(x0y0, x1y1, strict=True)
        ]
        return _merge_boxes(boxes)

    def _motion_boxes(self, image: NDArray[Any]) -> list[tuple[int, int, int, int]]:
        """Boxes (full-frame pixels) around what changed between the last three frames,
        grown by a tag side or so: where a hand is, or was a frame ago, and where a piece
        slid. Compared on a small copy, so a settled table costs a fraction of a
        millisecond."""
        height, width = image.shape[:2]
        scale = max(1, int(self.settings.motion_scale))
        size = (max(1, width // scale), max(1, height // scale))
        shrunk = cv2.resize(image, size, interpolation=cv2.INTER_LINEAR)
        if shrunk.ndim == 3:
            shrunk = cv2.cvtColor(shrunk, cv2.COLOR_BGR2GRAY)
        small: NDArray[np.int16] = np.asarray(shrunk, np.int16)
        history = [f for f in self._small if f.shape == small.shape]
        self._small = [*history[-1:], small]
        if not history:
            return []
        levels = self.settings.motion_levels
        moving = np.zeros(small.shape, bool)
        for before, after in zip([*history, small][:-1], [*history, small][1:], strict=True):
            moving |= np.abs(after - before) > levels
        count = int(np.count_nonzero(moving))
        if count == 0 or count > self.settings.motion_max_share * moving.size:
            return []
        # One changed pixel of the small copy may be a tag edge shifting by a hair; two
        # touching ones are something that moved.
        mask = cv2.dilate(moving.astype(np.uint8), np.ones((3, 3), np.uint8))
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        side = float(np.median(self._last.side_px)) if len(self._last) else 24.0
        pad = side * self.settings.roi_margin + scale
        boxes = []
        for x, y, w, h, area in stats[1:n]:
            if area < 12:  # a lone changed pixel dilated is 9; two touching are 12
                continue
            x0, y0 = max(0, int(x * scale - pad)), max(0, int(y * scale - pad))
            x1, y1 = min(width, int((x + w) * scale + pad)), min(height, int((y + h) * scale + pad))
            boxes.append((x0, y0, x1, y1))
        return boxes

    def _detect_regions(
        self, image: NDArray[Any], boxes: list[tuple[int, int, int, int]]
    ) -> Detections:
        parts = []
        patches: dict[tuple[int, int, int, int], tuple[NDArray[np.uint8], Detections]] = {}
        for box in boxes:
            x0, y0, x1, y1 = box
            crop = _gray(image[y0:y1, x0:x1])
            previous = self._patches.get(box)
            if previous is not None and not _changed(crop, previous[0]):
                # Nothing in this region changed since it was measured: same tags, same corners.
                found = previous[1]
            else:
                local = self._run(crop, (x0, y0), april=False)
                centres = self._last.centers_px
                inside = (
                    (centres[:, 0] >= x0)
                    & (centres[:, 0] < x1)
                    & (centres[:, 1] >= y0)
                    & (centres[:, 1] < y1)
                )
                if not np.isin(self._last.ids[inside], local.ids).all():
                    # A known tag went missing here: try the other grouping (and AprilTag 3).
                    extra = self._run(crop, (x0, y0), MARKER_DISTANCE_RATES[1:])
                    local = self._add_new(local, extra)
                found = Detections(local.ids, local.corners_px + np.array([x0, y0], float))
            patches[box] = (
                crop if previous is None or found is not previous[1] else previous[0],
                found,
            )
            parts.append(found)
        self._patches = patches
        return Detections.merge(parts)


class _ScaledLens:
    """The lens model seen from an enlarged crop: crop pixel ``p`` is full-frame pixel
    ``(p + 0.5) / scale - 0.5 + offset`` (the second look at unread squares)."""

    def __init__(self, lens: LensModel, scale: float, offset: tuple[int, int]) -> None:
        self.lens, self.scale = lens, scale
        self.offset = np.asarray(offset, dtype=np.float64)

    def undistort_normalized(self, xy_px: ArrayLike) -> FloatArray:
        full = (np.asarray(xy_px, np.float64) + 0.5) / self.scale - 0.5 + self.offset
        return self.lens.undistort_normalized(full)

    def distort_normalized(self, normalized: ArrayLike) -> FloatArray:
        full = self.lens.distort_normalized(normalized)
        return np.asarray((full - self.offset + 0.5) * self.scale - 0.5, dtype=np.float64)


def _same_tags(
    tags: IntArray, quads: FloatArray, known_tags: IntArray, known_quads: FloatArray
) -> NDArray[np.bool_]:
    """Which of ``tags`` (at ``quads``) are already among the known ones: same id, same place."""
    if len(tags) == 0 or len(known_tags) == 0:
        return np.zeros(len(tags), bool)
    gap = np.linalg.norm(quads.mean(axis=1)[:, None] - known_quads.mean(axis=1)[None], axis=2)
    return np.asarray(((gap < 2.0) & (tags[:, None] == known_tags[None])).any(axis=1))


def _changed(patch: NDArray[np.uint8], reference: NDArray[np.uint8]) -> bool:
    """True when a region differs from when it was measured by more than sensor noise.

    Counts pixels that changed by more than 30 grey levels (ten times typical
    webcam noise): a hand, a shadow or a tag shifted by half a pixel trips it,
    noise and compression do not. A sub-pixel nudge that does not is
    re-measured at the next full pass.
    """
    if patch.shape != reference.shape:
        return True
    big = cv2.absdiff(patch, reference) > 30
    return bool(np.count_nonzero(big) > max(3, patch.size // 200))


def _gray(image: NDArray[Any]) -> NDArray[np.uint8]:
    if image.ndim == 2:
        return np.ascontiguousarray(image)
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))


def _dedupe(found: Detections) -> Detections:
    """Drop the same quad found twice (overlapping regions); keep true duplicates apart."""
    if len(found) < 2:
        return found
    centers = found.centers_px
    keep = np.ones(len(found), bool)
    for i in range(len(found)):
        if not keep[i]:
            continue
        same = (found.ids == found.ids[i]) & (np.linalg.norm(centers - centers[i], axis=1) < 1.0)
        same[: i + 1] = False
        keep &= ~same
    return found[keep]


def _merge_boxes(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Union overlapping boxes so no tag is searched twice or cut by a region edge."""
    merged = list(boxes)
    changed = True
    while changed:
        changed = False
        out: list[tuple[int, int, int, int]] = []
        for box in merged:
            for i, other in enumerate(out):
                if (
                    box[0] < other[2]
                    and other[0] < box[2]
                    and box[1] < other[3]
                    and other[1] < box[3]
                ):
                    out[i] = (
                        min(box[0], other[0]),
                        min(box[1], other[1]),
                        max(box[2], other[2]),
                        max(box[3], other[3]),
                    )
                    changed = True
                    break
            else:
                out.append(box)
        merged = out
    return merged
