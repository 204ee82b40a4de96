"""Draw flat textures (cloth, tags, a calibration board) into a distorted camera image.

Inverse mapping, so every output pixel gets exactly what the lens shows: for
each output sample the cached :class:`RayMap` gives its undistorted viewing
ray, the ray meets the texture's plane (a homography), and ``cv2.remap``
reads the texture there. Each output pixel averages ``supersample**2`` such
samples, which is what makes edges land to a few hundredths of a pixel (the
detector's sub-pixel corners depend on that grey-level ramp).

Conventions: pixel centres at integer coordinates (OpenCV: the centre of the
top-left pixel is (0, 0)); a texture of ``ppi`` pixels per inch whose
top-left *edge* sits at plane coordinates (0, 0), texture column ``c``
covering plane ``u`` in ``[c/ppi, (c+1)/ppi)``. Frames are BGR ``uint8``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from referee.calibration.camera import Intrinsics, TablePose, project, rotation_matrix
from referee.tags.board import BoardSpec

FloatArray = NDArray[np.float64]
Image = NDArray[np.uint8]


@dataclass(frozen=True, eq=False)
class RayMap:
    """Undistorted normalised coordinates (x/z, y/z) of every pixel centre of one camera.

    Computed once per camera (the hot path of every draw); interpolated
    bilinearly for sub-pixel samples, which is exact to about 1e-4 px for any
    realistic lens because undistortion is smooth at the pixel scale.
    """

    intrinsics: Intrinsics
    normalized: NDArray[np.float32]
    """(height, width, 2) float32 normalised coordinates of pixel centres."""

    @classmethod
    def for_camera(cls, intrinsics: Intrinsics) -> RayMap:
        key = (
            intrinsics.image_size,
            intrinsics.matrix.tobytes(),
            intrinsics.distortion.tobytes(),
        )
        cached = _RAY_MAPS.get(key)
        if cached is not None:
            return cached
        width, height = intrinsics.image_size
        cols, rows = np.meshgrid(
            np.arange(width, dtype=np.float64), np.arange(height, dtype=np.float64)
        )
        pixels = np.stack([cols, rows], axis=-1).reshape(-1, 2)
        normalized = intrinsics.undistort_normalized(pixels)
        ray_map = cls(intrinsics, normalized.reshape(height, width, 2).astype(np.float32))
        ray_map.normalized.setflags(write=False)
        if len(_RAY_MAPS) >= 4:  # a few cameras at most; 4K maps are 66 MB each
            _RAY_MAPS.pop(next(iter(_RAY_MAPS)))
        _RAY_MAPS[key] = ray_map
        return ray_map

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return self.intrinsics.image_size

    def sample(self, x0: int, y0: int, width: int, height: int, supersample: int) -> FloatArray:
        """Normalised coordinates of a ``supersample``-fold grid over a pixel box.

        Returns (height*s, width*s, 2) float32. Sub-sample centres sit at
        ``x0 + (k + 0.5)/s - 0.5``; positions beyond the image edge take the
        edge pixel's ray. Bilinear interpolation by ``cv2.remap``, whose
        1/32-pixel position grid holds these offsets exactly for ``s`` a power
        of two up to 16.
        """
        s = supersample
        if s == 1:
            return np.asarray(self.normalized[y0 : y0 + height, x0 : x0 + width])
        offsets = (np.arange(s) + 0.5) / s - 0.5
        xs = (np.arange(x0, x0 + width)[:, None] + offsets[None, :]).ravel().astype(np.float32)
        ys = (np.arange(y0, y0 + height)[:, None] + offsets[None, :]).ravel().astype(np.float32)
        map_x = np.ascontiguousarray(np.broadcast_to(xs[None, :], (len(ys), len(xs))))
        map_y = np.ascontiguousarray(np.broadcast_to(ys[:, None], (len(ys), len(xs))))
        return np.asarray(
            cv2.remap(
                self.normalized, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
            )
        )


_RAY_MAPS: dict[Any, RayMap] = {}


@dataclass(frozen=True)
class PlanePose:
    """A textured plane in the camera frame: ``X_cam = origin + u * axis_u + v * axis_v``.

    ``u`` runs along texture columns and ``v`` along texture rows, in inches.
    """

    axis_u: FloatArray
    axis_v: FloatArray
    origin: FloatArray

    @classmethod
    def from_rvec_tvec(cls, rvec: ArrayLike, tvec: ArrayLike) -> PlanePose:
        """OpenCV's object pose (object x -> u, object y -> v, z = 0 on the plane)."""
        rotation = rotation_matrix(rvec)
        return cls(rotation[:, 0].copy(), rotation[:, 1].copy(), np.asarray(tvec, float).ravel())

    @classmethod
    def on_table(
        cls,
        table_pose: TablePose,
        origin_xyz: ArrayLike,
        axis_u_table: ArrayLike,
        axis_v_table: ArrayLike,
    ) -> PlanePose:
        """A plane given in table coordinates (origin and unit axes, z down) seen by the camera."""
        rotation = table_pose.rotation
        return cls(
            rotation @ np.asarray(axis_u_table, float),
            rotation @ np.asarray(axis_v_table, float),
            rotation @ np.asarray(origin_xyz, float) + table_pose.tvec,
        )

    def to_camera(self, uv: ArrayLike) -> FloatArray:
        """Plane (u, v) inches -> camera-frame 3-D points, shape (n, 3)."""
        points = np.asarray(uv, dtype=np.float64).reshape(-1, 2)
        return np.asarray(self.origin + points[:, :1] * self.axis_u + points[:, 1:] * self.axis_v)

    def homography_from_normalized(self) -> FloatArray:
        """3x3 H with (u, v, 1) ~ H @ (x, y, 1) for normalised image coordinates."""
        plane_to_normalized = np.column_stack([self.axis_u, self.axis_v, self.origin])
        return np.asarray(np.linalg.inv(plane_to_normalized))


#: The identity pose: :func:`~referee.calibration.camera.project` of camera-frame points.
CAMERA_FRAME = TablePose(np.zeros(3), np.zeros(3))


def project_camera_points(intrinsics: Intrinsics, points_cam: ArrayLike) -> FloatArray:
    """Camera-frame 3-D points -> distorted pixels, shape (n, 2)."""
    return project(intrinsics, CAMERA_FRAME, points_cam)


def premultiplied(texture: NDArray[Any]) -> NDArray[np.float32]:
    """BGR(A) or grey texture -> float32 premultiplied BGRA (alpha 1 where opaque).

    Prepare a texture once with this when drawing it many times.
    """
    tex = np.asarray(texture)
    if tex.dtype == np.float32 and tex.ndim == 3 and tex.shape[2] == 4:
        return tex
    scale = 255.0 if tex.dtype == np.uint8 else 1.0
    tex = tex.astype(np.float32) / scale
    if tex.ndim == 2:
        tex = np.repeat(tex[:, :, None], 3, axis=2)
    if tex.shape[2] == 3:
        alpha = np.ones((*tex.shape[:2], 1), np.float32)
        return np.ascontiguousarray(np.concatenate([tex, alpha], axis=2))
    alpha = tex[:, :, 3:4]
    return np.ascontiguousarray(np.concatenate([tex[:, :, :3] * alpha, alpha], axis=2))


def plane_bbox(
    ray_map: RayMap, plane: PlanePose, extent: tuple[float, float], margin: int = 2
) -> tuple[int, int, int, int] | None:
    """Pixel box (x0, y0, width, height) covering a plane rectangle ``[0, w] x [0, h]``.

    None when the rectangle is entirely outside the image or any part is
    behind the camera plane (nothing sensible to draw).
    """
    w, h = extent
    t = np.linspace(0.0, 1.0, 17)
    edge = np.concatenate(
        [
            np.column_stack([t * w, np.zeros_like(t)]),
            np.column_stack([np.full_like(t, w), t * h]),
            np.column_stack([t * w, np.full_like(t, h)]),
            np.column_stack([np.zeros_like(t), t * h]),
        ]
    )
    points = plane.to_camera(edge)
    if np.any(points[:, 2] <= 1e-6):
        return None
    pixels = project_camera_points(ray_map.intrinsics, points)
    width, height = ray_map.size
    x0 = max(math.floor(pixels[:, 0].min()) - margin, 0)
    y0 = max(math.floor(pixels[:, 1].min()) - margin, 0)
    x1 = min(math.ceil(pixels[:, 0].max()) + margin + 1, width)
    y1 = min(math.ceil(pixels[:, 1].max()) + margin + 1, height)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1 - x0, y1 - y0


def local_px_per_inch(
    ray_map: RayMap, plane: PlanePose, uv: tuple[float, float]
) -> tuple[float, float]:
    """Image pixels per plane inch at plane point ``uv`` along u and along v (0 if behind)."""
    step = 0.05
    points = plane.to_camera([uv, (uv[0] + step, uv[1]), (uv[0], uv[1] + step)])
    if np.any(points[:, 2] <= 1e-6):
        return 0.0, 0.0
    pixels = project_camera_points(ray_map.intrinsics, points)
    du = np.linalg.norm(pixels[1] - pixels[0]) / step
    dv = np.linalg.norm(pixels[2] - pixels[0]) / step
    return float(du), float(dv)


def _area_weights(old: int, new: int) -> tuple[NDArray[np.intp], NDArray[np.float32]]:
    """Exact box-filter resample along one axis as (new, taps) source indices and weights.

    New texel ``j`` spans source ``[j*r, (j+1)*r)`` with ``r = old/new``; the
    weights are its overlaps with the source texels (hard squares).

    >>> index, weights = _area_weights(2, 3)  # two texels stretched over three
    >>> index.tolist(), weights.round(6).tolist()
    ([[0, 1], [0, 1], [1, 1]], [[1.0, 0.0], [0.5, 0.5], [1.0, 0.0]])
    """
    ratio = old / new
    taps = math.ceil(ratio) + 1
    lo = np.arange(new) * ratio
    first = np.floor(lo).astype(np.intp)
    index = first[:, None] + np.arange(taps)[None, :]
    overlap = np.minimum(lo[:, None] + ratio, index + 1) - np.maximum(lo[:, None], index)
    weights = np.clip(overlap, 0.0, None) / ratio
    return np.clip(index, 0, old - 1), weights.astype(np.float32)


_RESAMPLED: dict[int, tuple[NDArray[np.float32], tuple[int, int], NDArray[np.float32]]] = {}
"""id(texture) -> (texture, size, resampled): one size per texture, the one it was last drawn at."""


def _resample_cached(tex: NDArray[np.float32], size: tuple[int, int]) -> NDArray[np.float32]:
    """:func:`_resample` remembered per texture object: still pieces reuse it.

    Only the latest size of each texture is kept: a texture drawn at a new
    size each frame (a moving piece, a board carried across the view) never
    hits again at an old one, and its old copies were dead weight.
    """
    hit = _RESAMPLED.get(id(tex))
    if hit is not None and hit[0] is tex and hit[1] == size:
        return hit[2]
    out = _resample(tex, size)
    _RESAMPLED.pop(id(tex), None)
    _RESAMPLED[id(tex)] = (tex, size, out)
    # Bounded by bytes too, oldest out first: textures made afresh each draw (a new
    # object every time) must not pile up (they did: gigabytes over a calibration clip).
    held = sum(t.nbytes + o.nbytes for t, _, o in _RESAMPLED.values())
    while len(_RESAMPLED) > 1 and (held > _RESAMPLED_BYTES or len(_RESAMPLED) > 256):
        t, _, o = _RESAMPLED.pop(next(iter(_RESAMPLED)))
        held -= t.nbytes + o.nbytes
    return out


_RESAMPLED_BYTES = 256 << 20
"""Most bytes :func:`_resample_cached` keeps (textures and their resampled copies)."""


def _resample(tex: NDArray[np.float32], size: tuple[int, int]) -> NDArray[np.float32]:
    """Exact area resample to ``size`` (width, height), source texels treated as hard squares.

    (``cv2.resize`` with ``INTER_AREA`` is off by up to a texel for ratios near 1.)
    """
    height, width = tex.shape[:2]
    rows, row_w = _area_weights(height, size[1])
    out = np.einsum("nt,ntwc->nwc", row_w, tex[rows])
    cols, col_w = _area_weights(width, size[0])
    out = np.einsum("mt,nmtc->nmc", col_w, out[:, cols])
    return np.ascontiguousarray(out, dtype=np.float32)


def render_plane(
    ray_map: RayMap,
    plane: PlanePose,
    texture: NDArray[Any],
    texture_px_per_inch: float,
    supersample: int = 4,
    bbox: tuple[int, int, int, int] | None = None,
    exact: bool = True,
) -> tuple[tuple[int, int, int, int], NDArray[np.float32]] | None:
    """Render a texture into its pixel box: ((x0, y0, w, h), premultiplied BGRA float32 0..1).

    With ``exact`` (for tags and boards, whose texels have hard edges) the
    texture is first resampled so one texel spans one sub-sample at the
    plane's centre: point samples of a hard edge would otherwise quantise
    the pixel coverage (edges off by up to ``1/(2*supersample)`` px), while
    box-filtered texels at the sample spacing make the sum of samples the
    true area coverage (up to a symmetric blur much narrower than a pixel).
    Without it (a large cloth), the texture is sampled as it is. None when
    the texture is not in view.
    """
    tex = premultiplied(texture)
    extent = (tex.shape[1] / texture_px_per_inch, tex.shape[0] / texture_px_per_inch)
    if bbox is None:
        bbox = plane_bbox(ray_map, plane, extent)
        if bbox is None:
            return None
    if exact:
        scale_u, scale_v = local_px_per_inch(ray_map, plane, (extent[0] / 2, extent[1] / 2))
        if scale_u > 0 and scale_v > 0:
            size = (
                max(round(extent[0] * scale_u * supersample), 2),
                max(round(extent[1] * scale_v * supersample), 2),
            )
            tex = _resample_cached(tex, size)
    ppi_u, ppi_v = tex.shape[1] / extent[0], tex.shape[0] / extent[1]
    x0, y0, w, h = bbox
    normalized = ray_map.sample(x0, y0, w, h, supersample)
    # float32 keeps texel positions to ~1e-4 texel here: far below anything visible.
    hom = plane.homography_from_normalized().astype(np.float32)
    x, y = normalized[..., 0], normalized[..., 1]
    q = hom[:, 0, None, None] * x + hom[:, 1, None, None] * y + hom[:, 2, None, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        # Texture pixel coordinates: centre of texel c at u = (c + 0.5) / ppi.
        map_x = (q[0] / q[2]) * ppi_u - 0.5
        map_y = (q[1] / q[2]) * ppi_v - 0.5
    behind = ~(q[2] > 0)
    map_x[behind] = -1e6
    map_y[behind] = -1e6
    samples = cv2.remap(
        tex,
        map_x.astype(np.float32, copy=False),
        map_y.astype(np.float32, copy=False),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0, 0),
    )
    if supersample > 1:
        samples = cv2.resize(samples, (w, h), interpolation=cv2.INTER_AREA)
    return bbox, np.asarray(samples, dtype=np.float32).reshape(h, w, 4)


def composite(
    frame: Image,
    bbox: tuple[int, int, int, int],
    premult: NDArray[np.float32],
    opacity: float = 1.0,
) -> None:
    """Alpha-composite a premultiplied BGRA patch over ``frame`` in place."""
    x0, y0, w, h = bbox
    region = frame[y0 : y0 + h, x0 : x0 + w].astype(np.float32)
    alpha = premult[:, :, 3:4] * opacity
    blended = region * (1.0 - alpha) + premult[:, :, :3] * (255.0 * opacity)
    frame[y0 : y0 + h, x0 : x0 + w] = np.clip(blended + 0.5, 0, 255).astype(np.uint8)


def draw_plane(
    frame: Image,
    ray_map: RayMap,
    plane: PlanePose,
    texture: NDArray[Any],
    texture_px_per_inch: float,
    supersample: int = 4,
    opacity: float = 1.0,
    exact: bool = True,
) -> tuple[int, int, int, int] | None:
    """Draw a texture lying on ``plane`` into ``frame`` (in place); returns the pixel box touched.

    The texture's top-left edge is at plane (0, 0); pixels outside the
    texture keep the frame. Returns None when nothing was in view.
    """
    rendered = render_plane(ray_map, plane, texture, texture_px_per_inch, supersample, exact=exact)
    if rendered is None:
        return None
    bbox, premult = rendered
    composite(frame, bbox, premult, opacity)
    return bbox


def charuco_texture(
    board: cv2.aruco.CharucoBoard, square_px: int = 40, margin_squares: float = 0.5
) -> tuple[Image, float]:
    """A printed ChArUco board with a white paper margin: (grey image, margin in squares).

    The board's object point (0, 0) is at ``margin_squares * square_px``
    texels from the image's top-left edge.
    """
    cols, rows = board.getChessboardSize()
    margin = round(margin_squares * square_px)
    image = board.generateImage((cols * square_px, rows * square_px), marginSize=0, borderBits=1)
    paper = np.full((rows * square_px + 2 * margin, cols * square_px + 2 * margin), 255, np.uint8)
    paper[margin : margin + rows * square_px, margin : margin + cols * square_px] = image
    return paper, margin / square_px


def draw_charuco(
    frame: Image,
    ray_map: RayMap,
    board_pose: PlanePose,
    board: cv2.aruco.CharucoBoard,
    square_in: float,
    supersample: int = 3,
    square_px: int = 40,
) -> tuple[int, int, int, int] | None:
    """Draw a ChArUco board whose object frame (OpenCV's, in inches) has pose ``board_pose``.

    ``board_pose`` maps board object coordinates scaled to inches (object
    point ``(x, y, 0)`` of the board is at ``(x, y) * square_in /
    board.getSquareLength()``) into the camera frame, so a ``solvePnP``
    against ``board.getChessboardCorners()`` scaled the same way recovers it.
    A white paper margin of half a square surrounds the board. The texture is
    made afresh on every call: to draw one board many times use :func:`draw_board`.
    """
    paper, margin_squares = charuco_texture(board, square_px)
    return _draw_paper(
        frame,
        ray_map,
        board_pose,
        premultiplied(paper),
        margin_squares,
        square_in,
        square_px,
        supersample,
    )


def _draw_paper(
    frame: Image,
    ray_map: RayMap,
    board_pose: PlanePose,
    paper: NDArray[np.float32],
    margin_squares: float,
    square_in: float,
    square_px: int,
    supersample: int,
) -> tuple[int, int, int, int] | None:
    """Draw a board's paper (:func:`charuco_texture`, premultiplied) at ``board_pose``."""
    margin_in = margin_squares * square_in
    shifted = PlanePose(
        board_pose.axis_u,
        board_pose.axis_v,
        board_pose.origin - margin_in * board_pose.axis_u - margin_in * board_pose.axis_v,
    )
    return draw_plane(frame, ray_map, shifted, paper, square_px / square_in, supersample)


def board_square_px(spec: BoardSpec) -> int:
    """Texels per board square: the fewest (at least 40) that make each marker cell whole texels.

    Whole-texel cells keep every printed edge on a texel boundary, so the exact
    resample in :func:`render_plane` makes the same image from any of them.
    Nearness is judged to 1e-9 of a texel: ``0.021 / 0.03`` is ``0.7000000000000001``
    in floats, and an exact comparison chose 400 texels over 80 (25 times the
    texels: a 117 MB float texture for a 5x7 board).

    >>> board_square_px(BoardSpec.parse("charuco:5x7:0.03m:0.021m:DICT_6X6_250"))
    80
    """
    cells = spec.cv_board().getDictionary().markerSize + 2
    ratio = spec.marker_m / spec.square_m

    def misfit(px: int) -> float:
        texels = px * ratio / cells
        return round(abs(texels - round(texels)), 9)

    return min(range(40, 401, 2), key=lambda px: (misfit(px), px))


@functools.lru_cache(maxsize=4)
def _board_paper(spec: BoardSpec) -> tuple[NDArray[np.float32], float, int]:
    """(premultiplied paper, margin in squares, texels per square) of ``spec``, made once.

    The same object every frame, so :func:`_resample_cached` keeps one copy
    per board instead of a new texture (and its resampled copy) per pose.
    """
    square_px = board_square_px(spec)
    paper, margin_squares = charuco_texture(spec.cv_board(), square_px)
    texture = premultiplied(paper)
    texture.setflags(write=False)
    return texture, margin_squares, square_px


def draw_board(
    frame: Image,
    ray_map: RayMap,
    board_pose: PlanePose,
    spec: BoardSpec,
    inch_mm: float = 25.4,
    supersample: int = 3,
) -> tuple[int, int, int, int] | None:
    """Draw the ChArUco board of ``spec`` (see ``referee.tags.board``) at ``board_pose``.

    ``board_pose`` is the board's object frame in the camera frame with
    object lengths in game inches: ``spec.cv_board().getChessboardCorners()``
    times ``spec.square_in(inch_mm) / spec.square_m`` are the board corners.
    """
    paper, margin_squares, square_px = _board_paper(spec)
    return _draw_paper(
        frame,
        ray_map,
        board_pose,
        paper,
        margin_squares,
        spec.square_in(inch_mm),
        square_px,
        supersample,
    )
