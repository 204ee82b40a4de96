"""Camera model: lens intrinsics, the table's pose, and the mapping both ways.

The one place where pixels meet inches. The simulator projects with it, the
calibration solves for it, the vision pipeline inverts it.

Table frame (3-D): x along the table width, y along its depth (both in game
inches), origin at a table corner. Looking down at the table, y grows away
from the x axis the way image rows grow, so for a right-handed frame z points
*down into* the table: a point ``h`` inches above the table has ``z = -h``.

``TablePose`` maps table points into the camera frame, ``X_cam = R @ X_table +
t``, with ``t`` in inches. Pixel coordinates are OpenCV's: the centre of the
top-left pixel is (0, 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]

#: Undistortion iterates until the step is below this many normalised units
#: (about 1e-9 px on a 1000 px focal length): never the limiting error.
_UNDISTORT_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)


def _frozen(values: ArrayLike, shape: tuple[int, ...], name: str) -> FloatArray:
    array = np.array(values, dtype=np.float64).reshape(shape)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite numbers, got {array.tolist()}")
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class Intrinsics:
    """A lens and sensor: pinhole matrix plus OpenCV's distortion model."""

    image_size: tuple[int, int]
    """(width, height) in pixels."""
    matrix: FloatArray
    """3x3 camera matrix [[fx, 0, cx], [0, fy, cy], [0, 0, 1]]."""
    distortion: FloatArray = field(default_factory=lambda: np.zeros(5))
    """Distortion coefficients (k1, k2, p1, p2[, k3[, k4, k5, k6]])."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "matrix", _frozen(self.matrix, (3, 3), "camera matrix"))
        dist = np.array(self.distortion, dtype=np.float64).ravel()
        if dist.size not in (4, 5, 8, 12, 14):
            raise ValueError(f"distortion needs 4, 5, 8, 12 or 14 coefficients, got {dist.size}")
        object.__setattr__(self, "distortion", _frozen(dist, (dist.size,), "distortion"))
        width, height = self.image_size
        if width <= 0 or height <= 0:
            raise ValueError(f"image size must be positive, got {self.image_size}")
        object.__setattr__(self, "image_size", (int(width), int(height)))

    @classmethod
    def from_fov(
        cls,
        image_size: tuple[int, int],
        horizontal_fov_deg: float,
        distortion: ArrayLike = (0.0, 0.0, 0.0, 0.0, 0.0),
    ) -> Intrinsics:
        """A centred camera with square pixels and the given horizontal field of view.

        >>> round(Intrinsics.from_fov((1920, 1080), 90.0).fx, 6)
        960.0
        """
        width, height = image_size
        f = (width / 2) / math.tan(math.radians(horizontal_fov_deg) / 2)
        matrix = [[f, 0, (width - 1) / 2], [0, f, (height - 1) / 2], [0, 0, 1]]
        return cls(image_size, np.array(matrix), np.array(distortion, dtype=float))

    @property
    def fx(self) -> float:
        return float(self.matrix[0, 0])

    @property
    def fy(self) -> float:
        return float(self.matrix[1, 1])

    @property
    def cx(self) -> float:
        return float(self.matrix[0, 2])

    @property
    def cy(self) -> float:
        return float(self.matrix[1, 2])

    def undistort_normalized(self, xy_px: ArrayLike) -> FloatArray:
        """Pixels -> normalised image coordinates (x/z, y/z) with the lens removed."""
        points = np.asarray(xy_px, dtype=np.float64).reshape(-1, 1, 2)
        if len(points) == 0:
            return np.zeros((0, 2))
        normalized = cv2.undistortPoints(
            points, self.matrix, self.distortion, None, None, None, _UNDISTORT_CRITERIA
        )
        return np.asarray(normalized, dtype=np.float64).reshape(-1, 2)

    def distort_normalized(self, normalized: ArrayLike) -> FloatArray:
        """Normalised lens-free coordinates -> pixels: the inverse of :meth:`undistort_normalized`.

        Non-finite points stay non-finite (NaN) instead of failing the batch.

        >>> cam = Intrinsics.from_fov((640, 480), 60, (-0.2, 0.05, 0, 0, 0))
        >>> px = [[10.0, 20.0], [600.25, 470.5]]
        >>> cam.distort_normalized(cam.undistort_normalized(px)).round(9).tolist()
        [[10.0, 20.0], [600.25, 470.5]]
        """
        points = np.asarray(normalized, dtype=np.float64).reshape(-1, 2)
        finite = np.all(np.isfinite(points), axis=1)
        out = np.full((len(points), 2), np.nan)
        if finite.any():
            rays = np.column_stack([points[finite], np.ones(int(finite.sum()))])
            pixels, _ = cv2.projectPoints(
                rays, np.zeros(3), np.zeros(3), self.matrix, self.distortion
            )
            out[finite] = np.asarray(pixels, dtype=np.float64).reshape(-1, 2)
        return out


def rotation_matrix(rvec: ArrayLike) -> FloatArray:
    """Rodrigues vector -> 3x3 rotation matrix."""
    matrix, _ = cv2.Rodrigues(np.asarray(rvec, dtype=np.float64).reshape(3, 1))
    return np.asarray(matrix, dtype=np.float64)


@dataclass(frozen=True)
class TablePose:
    """Where the table is relative to the camera: ``X_cam = R @ X_table + t`` (inches)."""

    rvec: FloatArray
    """Rodrigues rotation vector, table frame -> camera frame."""
    tvec: FloatArray
    """Translation in inches: the table origin in camera coordinates."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "rvec", _frozen(self.rvec, (3,), "rvec"))
        object.__setattr__(self, "tvec", _frozen(self.tvec, (3,), "tvec"))

    @classmethod
    def looking_down(
        cls,
        target: tuple[float, float],
        height: float,
        tilt_deg: float = 0.0,
        yaw_deg: float = 0.0,
    ) -> TablePose:
        """A camera ``height`` inches above the table aimed at ``target`` (x, y).

        With no tilt and no yaw, image columns run along +x and rows along +y.
        ``tilt_deg`` leans the camera back so it looks at the target from the
        -y side (a camera on a stand at the near table edge); ``yaw_deg``
        turns the image about the optical axis.

        >>> pose = TablePose.looking_down((24, 18), 40)
        >>> pose.camera_center.round(6).tolist()
        [24.0, 18.0, -40.0]
        """
        tilt, yaw = math.radians(tilt_deg), math.radians(yaw_deg)
        # Camera axes in table coordinates: optical axis points down (+z), image
        # x along +x and image y along +y before tilt and yaw.
        r_yaw = np.array(
            [[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]]
        )
        r_tilt = np.array(
            [[1, 0, 0], [0, math.cos(tilt), math.sin(tilt)], [0, -math.sin(tilt), math.cos(tilt)]]
        )
        camera_axes_in_table = r_yaw @ r_tilt  # columns: camera x, y, z in table frame
        distance = height / math.cos(tilt)
        optical_axis = camera_axes_in_table[:, 2]
        center = np.array([target[0], target[1], 0.0]) - distance * optical_axis
        rotation = camera_axes_in_table.T  # table -> camera
        rvec, _ = cv2.Rodrigues(rotation)
        return cls(rvec.ravel(), -rotation @ center)

    @property
    def rotation(self) -> FloatArray:
        return rotation_matrix(self.rvec)

    @property
    def camera_center(self) -> FloatArray:
        """The camera's optical centre in table coordinates (z < 0: above the table)."""
        return np.asarray(-self.rotation.T @ self.tvec, dtype=np.float64)


def table_xyz(xy: ArrayLike, height: ArrayLike = 0.0) -> FloatArray:
    """Table (x, y) plus a height above the table -> table-frame 3-D points.

    >>> table_xyz([[1, 2]], 0.9).tolist()
    [[1.0, 2.0, -0.9]]
    """
    points = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    heights = np.broadcast_to(np.asarray(height, dtype=np.float64), (len(points),))
    return np.column_stack([points, -heights])


def project(intrinsics: Intrinsics, pose: TablePose, xyz: ArrayLike) -> FloatArray:
    """Table-frame 3-D points -> distorted pixel coordinates, shape (n, 2)."""
    points = np.asarray(xyz, dtype=np.float64).reshape(-1, 3)
    if len(points) == 0:
        return np.zeros((0, 2))
    pixels, _ = cv2.projectPoints(
        points, pose.rvec, pose.tvec, intrinsics.matrix, intrinsics.distortion
    )
    return np.asarray(pixels, dtype=np.float64).reshape(-1, 2)


def pixels_to_table(
    intrinsics: Intrinsics, pose: TablePose, xy_px: ArrayLike, height: ArrayLike = 0.0
) -> FloatArray:
    """Pixels -> table (x, y) where each pixel's ray meets the plane ``height`` above the table.

    The inverse of :func:`project` for points at a known height: the lens is
    removed exactly (iterated to 1e-12), then the viewing ray is intersected
    with the plane ``z = -height``. A tag on a tank roof 0.9 in up must be
    mapped with ``height=0.9`` or it lands up to half an inch away from its
    true position near the table edge. Rays that never meet the plane
    (pointing above the horizon) give NaN.

    >>> cam = Intrinsics.from_fov((640, 480), 60)
    >>> pose = TablePose.looking_down((10, 10), 30)
    >>> px = project(cam, pose, table_xyz([[12.5, 7.25]], 1.0))
    >>> pixels_to_table(cam, pose, px, 1.0).round(9).tolist()
    [[12.5, 7.25]]
    """
    normalized = intrinsics.undistort_normalized(xy_px)
    heights = np.broadcast_to(np.asarray(height, dtype=np.float64), (len(normalized),))
    rotation_t = pose.rotation.T
    rays = np.column_stack([normalized, np.ones(len(normalized))]) @ rotation_t.T
    center = pose.camera_center
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = (-heights - center[2]) / rays[:, 2]
    scale = np.where(scale > 0, scale, np.nan)
    return np.asarray(center[:2] + scale[:, None] * rays[:, :2], dtype=np.float64)


def inches_per_pixel(
    intrinsics: Intrinsics, pose: TablePose, xy_px: ArrayLike, height: ArrayLike = 0.0
) -> FloatArray:
    """Local ground resolution: how many table inches one pixel spans at each point.

    The geometric mean of the two singular values of the pixel -> table
    Jacobian, from central differences of :func:`pixels_to_table`. Used to
    turn a corner-localisation error in pixels into a position uncertainty.
    """
    points = np.asarray(xy_px, dtype=np.float64).reshape(-1, 2)
    step = 0.5
    offsets = np.array([[step, 0], [-step, 0], [0, step], [0, -step]])
    probes = (points[:, None, :] + offsets[None]).reshape(-1, 2)
    heights = np.repeat(np.broadcast_to(np.asarray(height, float), (len(points),)), 4)
    mapped = pixels_to_table(intrinsics, pose, probes, heights).reshape(-1, 4, 2)
    d_dx = (mapped[:, 0] - mapped[:, 1]) / (2 * step)
    d_dy = (mapped[:, 2] - mapped[:, 3]) / (2 * step)
    area = np.abs(d_dx[:, 0] * d_dy[:, 1] - d_dx[:, 1] * d_dy[:, 0])
    return np.asarray(np.sqrt(area), dtype=np.float64)
