"""What a camera over a wargames table sees: cloth, terrain, anchors, tagged pieces, hands.

:class:`TableRenderer` is configured once per camera and table (the static
background — cloth, terrain, buildings, corner anchors — is drawn once and
cached) and then turns piece poses and hands into frames. Tags are drawn
exactly as ``referee markers`` prints them (white quiet zone, black border,
row 0 of the marker to the piece's front) with the supersampled inverse
warp of :mod:`referee.sim.warp`, so their corners land where
:func:`referee.calibration.camera.project` says. Everything else (bases,
bodies, buildings, hands) is plain anti-aliased polygons: nobody measures it.

Drawing order is painter's: background, pieces on the table, lifted pieces,
hands. A piece hidden behind a building is drawn over it (a rare cosmetic
slip, never a wrong truth: visibility is judged from hands and the image
edge).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.calibration.camera import (
    Intrinsics,
    TablePose,
    inches_per_pixel,
    project,
    rotation_matrix,
    table_xyz,
)
from referee.calibration.profile import TableSize
from referee.markers.roster import RosterEntry
from referee.markers.sheets import DEFAULT_TAG_SIZE_IN
from referee.sim.textures import TERRAIN_COLOURS, cloth_texture, terrain_layer
from referee.sim.warp import PlanePose, RayMap, draw_board, draw_plane, premultiplied
from referee.tags.anchors import AnchorTag
from referee.tags.board import BoardSpec
from referee.tags.layout import (
    ANCHOR_HEADING_DEG,
    DEFAULT_DICTIONARY,
    QUIET_ZONE_CELLS,
    TagLayout,
    marker_bits,
    marker_cells,
)

Image = NDArray[np.uint8]
FloatArray = NDArray[np.float64]

#: Default printed tag size (black square side), inches: what ``referee markers`` prints.
DEFAULT_TAG_SIZE = DEFAULT_TAG_SIZE_IN

#: Base colours (BGR) per side; anything else gets a neutral grey.
SIDE_COLOURS: dict[str, tuple[int, int, int]] = {
    "soviet": (48, 84, 70),
    "german": (92, 100, 104),
    "us": (60, 90, 80),
    "british": (70, 96, 110),
}

SKIN = (120, 150, 205)

#: Paper of a printed terrain template (BGR), and the unprinted margin round its fill, inches.
PAPER = (226, 230, 232)
TEMPLATE_MARGIN_IN = 0.25

#: Building walls are this tall (inches) when drawn raised.
BUILDING_HEIGHT = 1.6

#: Terrain drawn as a raised box (the rest is flat felt on the cloth).
RAISED_KINDS = ("building",)

_SUBPIX = 8  # fixed-point bits for cv2 polygon drawing: 1/256 px vertices
_TAG_SUPERSAMPLE = 4


@dataclass(frozen=True)
class PiecePose:
    """Where a piece is in one frame: table inches, degrees, and how high a hand holds it."""

    x: float
    y: float
    heading: float
    lift: float = 0.0
    """Height of the base above the table (0 = standing on it), inches."""


@dataclass(frozen=True)
class Hand:
    """A player's arm reaching in from a table edge to a point over the table."""

    entry: tuple[float, float]
    """Where the arm crosses the table edge (table inches; may lie outside the table)."""
    palm: tuple[float, float]
    """Centre of the hand over the table, inches."""
    height: float = 2.5
    """Height of the palm above the table, inches."""


@dataclass(frozen=True)
class TemplateTag:
    """One tag printed on a paper terrain template, placed in the template's own frame."""

    tag: int
    at: tuple[float, float]
    """(forward, right) inches from the template's origin, as a piece's ``tag_offset``."""
    heading: float = 0.0
    """The tag's front, degrees from the template's forward axis."""


@dataclass(frozen=True)
class PaperTemplate:
    """A tagged terrain template: a paper outline of one kind lying flat on the table."""

    id: str
    kind: str
    outline: tuple[tuple[float, float], ...]
    """(forward, right) inches in the template's frame (origin at its pose)."""
    tags: tuple[TemplateTag, ...]
    tag_size: float

    def placed(self, pose: PiecePose) -> FloatArray:
        """The outline in table inches for the template at ``pose``."""
        return _place(pose, np.asarray(self.outline, float))

    def tag_pose(self, tag: TemplateTag, pose: PiecePose) -> tuple[float, float, float]:
        """(x, y, heading) of ``tag`` on the table for the template at ``pose``."""
        x, y = _place(pose, np.array([tag.at], float))[0]
        return float(x), float(y), (pose.heading + tag.heading) % 360.0


def _place(pose: PiecePose, points: FloatArray) -> FloatArray:
    """Template-frame (forward, right) points -> table (x, y), as a piece's tag offset."""
    h = math.radians(pose.heading)
    c, s = math.cos(h), math.sin(h)
    f, r = points[:, 0], points[:, 1]
    return np.column_stack([pose.x + f * c - r * s, pose.y + f * s + r * c])


@dataclass(frozen=True)
class BoardPlacement:
    """A ChArUco board somewhere in view: its object frame (inches) in the table frame."""

    spec_text: str
    rvec: tuple[float, float, float]
    """Board object frame -> table frame rotation (Rodrigues)."""
    tvec: tuple[float, float, float]
    """Board object origin in table coordinates (z < 0: above the table)."""


@dataclass(frozen=True)
class TagTruth:
    """What the camera really saw of one piece's tag in one frame."""

    corners_px: FloatArray
    """(4, 2) true tag corners in distorted pixels, OpenCV order (top = front)."""
    in_view: bool
    """All four corners inside the image."""
    covered: float
    """Fraction of the tag's printed square hidden under a hand (0..1)."""

    @property
    def visible(self) -> bool:
        """Whole tag in the image and nothing over it."""
        return self.in_view and self.covered == 0.0


@dataclass(frozen=True)
class Look:
    """Knobs for the background's appearance."""

    seed: int = 0
    cloth: str = "green"
    """``green`` or ``brown`` felt."""
    raised_buildings: bool = True
    texture_px_per_inch: float = 0.0
    """Resolution of the cloth texture; 0 picks about the camera's own."""


@dataclass(eq=False)
class TableRenderer:
    """Renders frames of one table seen by one camera; the background is computed once."""

    intrinsics: Intrinsics
    pose: TablePose
    table: TableSize
    pieces: Sequence[RosterEntry]
    terrain: Sequence[tuple[str, Sequence[tuple[float, float]]]] = ()
    """(kind, polygon) pairs in table inches."""
    anchors: Sequence[AnchorTag] = ()
    dictionary: str = DEFAULT_DICTIONARY
    tag_size: float = DEFAULT_TAG_SIZE
    look: Look = field(default_factory=Look)
    templates: Sequence[PaperTemplate] = ()
    """Paper terrain templates; where each lies is given per frame (they can be moved)."""

    def __post_init__(self) -> None:
        self._textures: dict[tuple[int, float], NDArray[np.float32]] = {}
        self._still_layer: tuple[Any, Image] | None = None

    @cached_property
    def ray_map(self) -> RayMap:
        """Each pixel's viewing ray (made when first drawn: truth alone never needs it)."""
        return RayMap.for_camera(self.intrinsics)

    # -- static background -------------------------------------------------------------

    @cached_property
    def background(self) -> Image:
        """Cloth, terrain and anchors as the camera sees them (read-only, cached)."""
        width, height = self.intrinsics.image_size
        frame = np.full((height, width, 3), (40, 40, 40), np.uint8)
        # The floor around the table: dark, slightly textured.
        rng = np.random.default_rng(self.look.seed + 7)
        floor = cv2.GaussianBlur(rng.normal(0, 6, (height, width)).astype(np.float32), (0, 0), 3)
        frame = np.clip(frame.astype(np.float32) + floor[:, :, None], 0, 255).astype(np.uint8)
        ppi = self.look.texture_px_per_inch or self._native_ppi()
        cloth = cloth_texture(
            self.table.width, self.table.depth, ppi, self.look.seed, self.look.cloth
        )
        layer = terrain_layer(cloth, ppi, self.terrain, self.look.seed)
        table_plane = PlanePose.on_table(self.pose, (0, 0, 0), (1, 0, 0), (0, 1, 0))
        draw_plane(frame, self.ray_map, table_plane, layer, ppi, supersample=1, exact=False)
        for anchor in self.anchors:
            self._draw_tag(
                frame, anchor.tag, anchor.size, (anchor.x, anchor.y, 0.0), ANCHOR_HEADING_DEG
            )
        if self.look.raised_buildings:
            for kind, polygon in self.terrain:
                if kind in RAISED_KINDS:
                    self._draw_prism(
                        frame, polygon, 0.0, BUILDING_HEIGHT, (150, 158, 170), roof=(70, 80, 140)
                    )
        frame.setflags(write=False)
        return frame

    def _native_ppi(self) -> float:
        centre = project(
            self.intrinsics,
            self.pose,
            table_xyz([[self.table.width / 2, self.table.depth / 2]], 0.0),
        )
        ipp = float(inches_per_pixel(self.intrinsics, self.pose, centre)[0])
        if not math.isfinite(ipp) or ipp <= 0:
            return 20.0
        return float(min(max(1.5 / ipp, 8.0), 80.0))

    # -- per frame ---------------------------------------------------------------------

    def render(
        self,
        poses: Mapping[str, PiecePose],
        hands: Iterable[Hand] = (),
        board: BoardPlacement | None = None,
        board_spec: BoardSpec | None = None,
        moving: Collection[str] | None = None,
        templates: Mapping[str, PiecePose] | None = None,
    ) -> tuple[Image, dict[str, TagTruth]]:
        """One clean frame (no lens blur, noise or compression) and the truth of every tag.

        Pieces missing from ``poses`` are not drawn (off the table). Truth is
        given for every drawn piece, in view or not. Given ``moving`` (ids of
        pieces and templates that may move between frames), the still pieces
        are drawn once into a cached layer and reused while they stay put.
        ``templates`` places the paper terrain templates (by id); they lie
        under every piece, so a still piece may stand on a still template.
        """
        entries = {entry.id: entry for entry in self.pieces}
        papers = {t.id: t for t in self.templates}
        placed = dict(templates or {})
        if moving is None:
            frame = self.background.copy()
            rest = list(poses)
            loose = sorted(placed)
        else:
            still = tuple(
                sorted(
                    (pid, pose)
                    for pid, pose in poses.items()
                    if pid not in moving and not pose.lift
                )
            )
            still_papers = tuple(sorted((i, p) for i, p in placed.items() if i not in moving))
            # Without templates the key is what it always was (the sample's frames stay equal).
            key: Any = (still, still_papers) if still_papers else still
            if self._still_layer is None or self._still_layer[0] != key:
                layer = self.background.copy()
                for tid, pose in still_papers:
                    self._draw_template(layer, papers[tid], pose)
                for pid, pose in still:
                    self._draw_piece(layer, entries[pid], pose)
                self._still_layer = (key, layer)
            frame = self._still_layer[1].copy()
            drawn = {pid for pid, _ in still}
            rest = [pid for pid in poses if pid not in drawn]
            loose = sorted(i for i in placed if i in moving)
        for tid in loose:
            self._draw_template(frame, papers[tid], placed[tid])
        order = sorted(rest, key=lambda pid: (poses[pid].lift, pid))
        for pid in order:
            self._draw_piece(frame, entries[pid], poses[pid])
        if board is not None and board_spec is not None:
            rotation = rotation_matrix(board.rvec)
            plane = PlanePose.on_table(self.pose, board.tvec, rotation[:, 0], rotation[:, 1])
            draw_board(frame, self.ray_map, plane, board_spec, self.table.inch_mm)
        hand_mask = np.zeros(frame.shape[:2], np.uint8)
        for hand in hands:
            self._draw_hand(frame, hand_mask, hand)
        return frame, self._truths(poses, hand_mask)

    def template_truth(
        self,
        templates: Mapping[str, PiecePose],
        poses: Mapping[str, PiecePose],
        hands: Iterable[Hand] = (),
    ) -> dict[str, list[TagTruth]]:
        """Each placed template's tags (in its order): corners, and how much hands or pieces hide.

        A piece standing on a template hides what its base and body cover, as
        a hand does.
        """
        width, height = self.intrinsics.image_size
        mask = np.zeros((height, width), np.uint8)
        scratch = np.zeros((height, width), np.uint8)
        entries = {entry.id: entry for entry in self.pieces}
        for pid, pose in poses.items():
            outline = self._piece_outline_px(entries[pid], pose)
            if outline is not None:
                cv2.fillConvexPoly(mask, outline, 255)
        for hand in hands:
            self._draw_hand(scratch, mask, hand)
        width, height = self.intrinsics.image_size
        out: dict[str, list[TagTruth]] = {}
        hidden = bool(mask.any())
        for paper in self.templates:
            if paper.id not in templates:
                continue
            truths = []
            for tag in paper.tags:
                corners = self.template_tag_corners_px(paper, tag, templates[paper.id])
                in_view = bool(
                    np.all(corners >= 0)
                    and np.all(corners[:, 0] <= width - 1)
                    and np.all(corners[:, 1] <= height - 1)
                )
                truths.append(TagTruth(corners, in_view, _covered(mask, corners, hidden)))
            out[paper.id] = truths
        return out

    def template_tag_corners_px(
        self, paper: PaperTemplate, tag: TemplateTag, pose: PiecePose
    ) -> FloatArray:
        x, y, heading = paper.tag_pose(tag, pose)
        corners = TagLayout(paper.tag_size, marker_bits(self.dictionary)).corners(x, y, heading)
        return project(self.intrinsics, self.pose, table_xyz(corners, 0.0))

    def _piece_outline_px(self, entry: RosterEntry, pose: PiecePose) -> NDArray[np.int32] | None:
        """The convex outline in the image of a piece's base and body (for what it hides)."""
        corners = _rect(pose.x, pose.y, pose.heading, entry.base)
        top = max(entry.tag_height, 0.08) + pose.lift
        pts3 = np.vstack([table_xyz(corners, pose.lift), table_xyz(corners, top)])
        px = project(self.intrinsics, self.pose, pts3)
        if not np.all(np.isfinite(px)) or np.abs(px).max() > 1e5:
            return None
        return np.asarray(cv2.convexHull(np.round(px).astype(np.int32)), np.int32)

    def truth(
        self, poses: Mapping[str, PiecePose], hands: Iterable[Hand] = ()
    ) -> dict[str, TagTruth]:
        """The truth :meth:`render` would give, without drawing the frame (fast)."""
        width, height = self.intrinsics.image_size
        mask = np.zeros((height, width), np.uint8)
        scratch = np.zeros((height, width), np.uint8)
        for hand in hands:
            self._draw_hand(scratch, mask, hand)
        return self._truths(poses, mask)

    def hand_mask(self, hands: Iterable[Hand]) -> Image:
        """255 where a hand or arm covers the picture, 0 elsewhere (for the webcam's shadows)."""
        width, height = self.intrinsics.image_size
        mask = np.zeros((height, width), np.uint8)
        scratch = np.zeros((height, width), np.uint8)
        for hand in hands:
            self._draw_hand(scratch, mask, hand)
        return mask

    def _truths(self, poses: Mapping[str, PiecePose], hand_mask: Image) -> dict[str, TagTruth]:
        entries = {entry.id: entry for entry in self.pieces}
        width, height = self.intrinsics.image_size
        truths: dict[str, TagTruth] = {}
        hidden = bool(hand_mask.any())
        for pid in sorted(poses):
            corners = self.tag_corners_px(entries[pid], poses[pid])
            in_view = bool(
                np.all(corners[:, 0] >= 0)
                and np.all(corners[:, 1] >= 0)
                and np.all(corners[:, 0] <= width - 1)
                and np.all(corners[:, 1] <= height - 1)
            )
            truths[pid] = TagTruth(corners, in_view, _covered(hand_mask, corners, hidden))
        return truths

    def tag_layout(self, entry: RosterEntry) -> TagLayout:
        return TagLayout(entry.tag_size or self.tag_size, marker_bits(self.dictionary))

    def tag_centre(self, entry: RosterEntry, pose: PiecePose) -> tuple[float, float, float]:
        """Tag centre (x, y, height above the table) for a piece at ``pose``."""
        h = math.radians(pose.heading)
        fwd, right = entry.tag_offset
        x = pose.x + fwd * math.cos(h) - right * math.sin(h)
        y = pose.y + fwd * math.sin(h) + right * math.cos(h)
        return x, y, entry.tag_height + pose.lift

    def tag_corners_px(self, entry: RosterEntry, pose: PiecePose) -> FloatArray:
        x, y, z = self.tag_centre(entry, pose)
        corners = self.tag_layout(entry).corners(x, y, pose.heading)
        return project(self.intrinsics, self.pose, table_xyz(corners, z))

    # -- drawing helpers ---------------------------------------------------------------

    def _tag_texture(self, tag: int) -> NDArray[np.float32]:
        key = (tag, 0.0)
        if key not in self._textures:
            cells = marker_cells(self.dictionary, tag).astype(np.uint8) * 255
            self._textures[key] = premultiplied(
                np.pad(cells, QUIET_ZONE_CELLS, constant_values=255)
            )
        return self._textures[key]

    def _draw_tag(
        self,
        frame: Image,
        tag: int,
        size: float,
        centre: tuple[float, float, float],
        heading: float,
    ) -> None:
        layout = TagLayout(size, marker_bits(self.dictionary))
        texture = self._tag_texture(tag)
        h = math.radians(heading)
        fwd = np.array([math.cos(h), math.sin(h), 0.0])
        right = np.array([-math.sin(h), math.cos(h), 0.0])
        x, y, height = centre
        # Texture columns run to the tag's right, rows from front to back.
        origin = np.array([x, y, -height]) + layout.outer / 2 * (fwd - right)
        plane = PlanePose.on_table(self.pose, origin, right, -fwd)
        draw_plane(
            frame, self.ray_map, plane, texture, texture.shape[1] / layout.outer, _TAG_SUPERSAMPLE
        )

    def _draw_template(self, frame: Image, paper: PaperTemplate, pose: PiecePose) -> None:
        """Paper lying flat: a light sheet, the kind's colour printed inside a margin, the tags."""
        outline = paper.placed(pose)
        self._fill_table_polygon(frame, outline, 0.0, PAPER)
        self._fill_table_polygon(
            frame, _inset(outline, TEMPLATE_MARGIN_IN), 0.0, _printed(paper.kind)
        )
        for tag in paper.tags:
            x, y, heading = paper.tag_pose(tag, pose)
            # A white patch a little wider than the tag's quiet zone, as printed sheets leave.
            layout = TagLayout(paper.tag_size, marker_bits(self.dictionary))
            patch = _rect(x, y, heading, (layout.outer + 0.15, layout.outer + 0.15))
            self._fill_table_polygon(frame, patch, 0.0, PAPER)
            self._draw_tag(frame, tag.tag, paper.tag_size, (x, y, 0.0), heading)

    def _draw_piece(self, frame: Image, entry: RosterEntry, pose: PiecePose) -> None:
        colour = SIDE_COLOURS.get(entry.side.lower(), (90, 90, 90))
        corners = _rect(pose.x, pose.y, pose.heading, entry.base)
        base_top = pose.lift + 0.08
        if pose.lift > 0.05:  # a soft shadow under a lifted piece
            self._fill_table_polygon(frame, corners, 0.0, (25, 40, 30), alpha=0.35)
        self._draw_prism(frame, corners, pose.lift, base_top, _shade(colour, 0.8), roof=colour)
        layout = self.tag_layout(entry)
        tx, ty, tz = self.tag_centre(entry, pose)
        if entry.tag_height > 0.15:
            # A hull/body under a raised tag: a box a little larger than the printed tag.
            body = max(layout.outer * 1.05, min(entry.base) * 0.8)
            bw = min(body, entry.base[0] * 0.95)
            bd = max(min(entry.base[1] * 0.9, body * 1.6), layout.outer * 1.05)
            hull = _rect(tx, ty, pose.heading, (bw, bd))
            self._draw_prism(
                frame, hull, base_top, tz, _shade(colour, 0.9), roof=_shade(colour, 1.1)
            )
        self._draw_tag(frame, entry.tag, layout.size, (tx, ty, tz), pose.heading)

    def _project_polygon(self, xy: FloatArray, height: float) -> NDArray[np.float64]:
        # Subdivide edges so long outlines bend with the lens.
        pts = _densify(np.asarray(xy, float), 0.5)
        return project(self.intrinsics, self.pose, table_xyz(pts, height))

    def _fill_table_polygon(
        self,
        frame: Image,
        xy: FloatArray,
        height: float,
        colour: tuple[int, int, int],
        alpha: float = 1.0,
    ) -> None:
        px = self._project_polygon(xy, height)
        _fill(frame, px, colour, alpha)

    def _draw_prism(
        self,
        frame: Image,
        polygon: Sequence[tuple[float, float]] | FloatArray,
        bottom: float,
        top: float,
        wall: tuple[int, int, int],
        roof: tuple[int, int, int],
    ) -> None:
        """A vertical prism (base, hull, building): visible walls far to near, then the roof."""
        poly = np.asarray(polygon, float)
        camera = self.pose.camera_center
        if top - bottom > 0.05:
            walls = []
            for i in range(len(poly)):
                a, b = poly[i], poly[(i + 1) % len(poly)]
                mid = (a + b) / 2
                walls.append((float(np.hypot(*(mid - camera[:2]))), a, b))
            for _, a, b in sorted(walls, key=lambda w: -w[0]):
                quad3 = np.array(
                    [
                        [a[0], a[1], -bottom],
                        [b[0], b[1], -bottom],
                        [b[0], b[1], -top],
                        [a[0], a[1], -top],
                    ]
                )
                edge = b - a
                normal = np.array([edge[1], -edge[0]])
                light = 0.75 + 0.25 * float(
                    np.dot(normal / (np.hypot(*normal) + 1e-9), [0.6, -0.8])
                )
                px = project(self.intrinsics, self.pose, quad3)
                _fill(frame, px, _shade(wall, light))
        self._fill_table_polygon(frame, poly, top, roof)

    def _draw_hand(self, frame: Image, mask: Image, hand: Hand) -> None:
        entry = np.array(hand.entry, float)
        palm = np.array(hand.palm, float)
        direction = palm - entry
        length = float(np.hypot(*direction))
        direction = np.array([0.0, -1.0]) if length < 1e-06 else direction / length
        side = np.array([-direction[1], direction[0]])
        wrist = palm - direction * 1.6
        arm_h0, arm_h1 = hand.height + 6.0, hand.height + 0.8
        half0, half1 = 1.9, 1.25
        arm = np.array(
            [
                [*(entry + side * half0), -arm_h0],
                [*(wrist + side * half1), -arm_h1],
                [*(wrist - side * half1), -arm_h1],
                [*(entry - side * half0), -arm_h0],
            ]
        )
        arm_px = project(self.intrinsics, self.pose, arm)
        # The palm: an ellipse plus fingers towards the piece.
        t = np.linspace(0, 2 * math.pi, 40, endpoint=False)
        palm_xy = (
            palm[None] + np.outer(np.cos(t) * 1.7, direction) + np.outer(np.sin(t) * 1.5, side)
        )
        palm_px = project(self.intrinsics, self.pose, table_xyz(palm_xy, hand.height))
        fingers = []
        for k, off in enumerate((-0.9, -0.3, 0.3, 0.9)):
            base = palm + side * off + direction * 1.2
            tip = base + direction * (1.3 - 0.25 * abs(k - 1.5))
            quad = np.array(
                [base + side * 0.26, tip + side * 0.22, tip - side * 0.22, base - side * 0.26]
            )
            fingers.append(project(self.intrinsics, self.pose, table_xyz(quad, hand.height - 0.3)))
        if frame.ndim == 3:
            # A soft shadow on the table from a lamp up and to one side.
            lean = np.array([0.3, 0.2])
            arm_shadow = np.array([arm[k, :2] - lean * arm[k, 2] for k in range(4)])
            for shadow in (arm_shadow, palm_xy - lean * -hand.height):
                self._fill_table_polygon(frame, shadow, 0.0, (20, 30, 25), alpha=0.3)
        for poly, shade in [(arm_px, 0.92), (palm_px, 1.0), *[(f, 0.97) for f in fingers]]:
            if not np.all(np.isfinite(poly)):
                continue
            if frame.ndim == 3:
                _fill(frame, poly, _shade(SKIN, shade))
            _fill(mask, poly, (255,), antialias=False)


def _printed(kind: str) -> tuple[int, int, int]:
    """A terrain kind's colour as an inkjet prints it on paper: lighter than felt."""
    colour = TERRAIN_COLOURS.get(kind, (90, 110, 110))
    return tuple(int(c + (255 - c) * 0.35) for c in colour)  # type: ignore[return-value]


def _inset(poly: FloatArray, margin: float) -> FloatArray:
    """``poly`` shrunk towards its centroid so its edges move in by about ``margin``.

    Exact for regular shapes and close enough for the convex outlines of paper
    templates; the printed fill only needs to stay inside the sheet.
    """
    centre = poly.mean(axis=0)
    distances = []
    for i in range(len(poly)):
        a, b = poly[i], poly[(i + 1) % len(poly)]
        edge = b - a
        length = float(np.hypot(*edge)) or 1.0
        to_centre = centre - a
        distances.append(abs(float(edge[0] * to_centre[1] - edge[1] * to_centre[0])) / length)
    reach = min(distances) if distances else 0.0
    if reach <= margin * 2:
        return poly
    return np.asarray(centre + (poly - centre) * (1 - margin / reach), float)


def _shade(colour: Sequence[int], factor: float) -> tuple[int, int, int]:
    return tuple(int(min(max(c * factor, 0), 255)) for c in colour)  # type: ignore[return-value]


def _rect(x: float, y: float, heading: float, size: Sequence[float]) -> FloatArray:
    """Rectangle corners (front-left, front-right, back-right, back-left), table inches.

    The corners of ``referee.geometry.base_corners`` without its 1e-12 rounding,
    which moves antialiased edges of the committed sample footage.
    """
    h = math.radians(heading)
    fwd = np.array([math.cos(h), math.sin(h)])
    right = np.array([-math.sin(h), math.cos(h)])
    w, d = size[0] / 2, size[1] / 2
    c = np.array([x, y])
    return np.array(
        [
            c + d * fwd - w * right,
            c + d * fwd + w * right,
            c - d * fwd + w * right,
            c - d * fwd - w * right,
        ]
    )


def _densify(poly: FloatArray, step: float) -> FloatArray:
    out = []
    for i in range(len(poly)):
        a, b = poly[i], poly[(i + 1) % len(poly)]
        n = max(math.ceil(float(np.hypot(*(b - a))) / step), 1)
        for k in range(n):
            out.append(a + (b - a) * k / n)
    return np.array(out)


def _fill(
    frame: Image,
    px: NDArray[np.float64],
    colour: Sequence[int],
    alpha: float = 1.0,
    antialias: bool = True,
) -> None:
    if len(px) < 3 or not np.all(np.isfinite(px)):
        return
    if np.abs(px).max() > 1e5:
        return
    pts = np.round(px * (1 << _SUBPIX)).astype(np.int32).reshape(-1, 1, 2)
    line = cv2.LINE_AA if antialias else cv2.LINE_8
    if alpha >= 1.0:
        cv2.fillPoly(frame, [pts], tuple(int(c) for c in colour), line, _SUBPIX)
        return
    x, y, w, h = cv2.boundingRect(np.round(px).astype(np.int32).reshape(-1, 1, 2))
    x0, y0 = max(x - 1, 0), max(y - 1, 0)
    x1, y1 = min(x + w + 1, frame.shape[1]), min(y + h + 1, frame.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    region = frame[y0:y1, x0:x1]
    overlay = region.copy()
    shifted = pts - np.array([x0, y0], np.int32) * (1 << _SUBPIX)
    cv2.fillPoly(overlay, [shifted], tuple(int(c) for c in colour), line, _SUBPIX)
    cv2.addWeighted(overlay, alpha, region, 1 - alpha, 0, dst=region)


def _covered(mask: Image, corners_px: FloatArray, any_hidden: bool | None = None) -> float:
    """Fraction of the tag quadrilateral's pixels under the hand mask.

    ``any_hidden``: whether the mask has anything on it, when the caller knows (one
    look at a whole 1080p mask per frame, not one per tag).
    """
    if not (mask.any() if any_hidden is None else any_hidden):
        return 0.0
    pts = np.round(corners_px).astype(np.int32).reshape(-1, 1, 2)
    x, y, w, h = cv2.boundingRect(pts)
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, mask.shape[1]), min(y + h, mask.shape[0])
    if x1 <= x0 or y1 <= y0:
        return 0.0
    quad = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(quad, pts - np.array([x0, y0], np.int32), 1)
    total = int(quad.sum())
    if total == 0:
        return 0.0
    hidden = int((quad & (mask[y0:y1, x0:x1] > 0)).sum())
    return round(hidden / total, 4)
