"""AprilTag 3 (``pupil-apriltags``) as an optional source of tag candidates.

AprilTag 3's own quad finder (``quad_decimate`` 1) finds tags of its
families that OpenCV's contour-based ``ArucoDetector`` misses: tags under
about 15 px, washed out or seen at steep angles (measured in
``benchmarks/bench_hard_tags.py``). It is an extra (``pip install
table-referee[apriltag]``); without it :func:`available` is False and the
detector runs OpenCV alone.

Conventions, checked on renders (``tests/tags/test_apriltag_backend.py``):
AprilTag 3 gives corners counter-clockwise in the image starting at the
tag's bottom-left, with pixel (0, 0)'s centre at (0.5, 0.5); the project
(OpenCV) gives them clockwise from the top-left with pixel centres at whole
numbers. Ids are the same as OpenCV's ``DICT_APRILTAG_*`` (both number the
codes of the AprilTag family lists in order).
"""

from __future__ import annotations

import atexit
import threading
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: OpenCV dictionary -> AprilTag 3 family, for the families both have.
FAMILIES = {
    "DICT_APRILTAG_16H5": "tag16h5",
    "DICT_APRILTAG_25H9": "tag25h9",
    "DICT_APRILTAG_36H11": "tag36h11",
}

#: Bits AprilTag 3 may correct per family and still never turn one tag into another:
#: under half the family's minimum Hamming distance less one (16h5: 5, 25h9: 9, 36h11: 11),
#: so a tag with one more wrong bit is still nearer its own code than any other.
MAX_CORRECTED = {"tag16h5": 0, "tag25h9": 1, "tag36h11": 2}

#: AprilTag 3's corner k -> the project's corner order (TL, TR, BR, BL of the printed tag).
CORNER_ORDER = (1, 0, 3, 2)

_detectors: dict[tuple[str, int], Any] = {}


def available() -> bool:
    """True when ``pupil-apriltags`` can be imported."""
    try:
        import pupil_apriltags  # noqa: F401
    except ImportError:
        return False
    return True


def family_of(dictionary: str) -> str | None:
    """AprilTag 3's name for an OpenCV dictionary, or None when it has no such family.

    >>> family_of("DICT_APRILTAG_36H11"), family_of("DICT_4X4_100")
    ('tag36h11', None)
    """
    return FAMILIES.get(dictionary.upper())


def _detector(family: str) -> Any:
    # One per thread: a pupil_apriltags.Detector is not safe to share between threads.
    key = (family, threading.get_ident())
    if key not in _detectors:
        import pupil_apriltags

        _detectors[key] = pupil_apriltags.Detector(
            families=family, nthreads=1, quad_decimate=1.0, refine_edges=1
        )
    return _detectors[key]


def _free_all() -> None:
    """Free the cached detectors, detector first.

    ``pupil_apriltags.Detector.__del__`` frees the tag families before the
    detector, whose own destructor then reads them (a use-after-free that
    corrupted the heap: a crash at exit, or mid-run when one was dropped). So
    detectors are cached for the process's life and freed here in the right
    order, with ``__del__`` disarmed.
    """
    for detector in _detectors.values():
        pointer, detector.tag_detector_ptr = detector.tag_detector_ptr, None
        if pointer is None:
            continue
        detector.libc.apriltag_detector_destroy.restype = None
        detector.libc.apriltag_detector_destroy(pointer)
        for name, family in detector.tag_families.items():
            destroy = getattr(detector.libc, f"{name}_destroy")
            destroy.restype = None
            destroy(family)
    _detectors.clear()


atexit.register(_free_all)


def detect_apriltag(
    gray: NDArray[np.uint8], family: str
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Ids (n,) and corners (n, 4, 2) in the project's order and pixel convention.

    Detections that needed more corrected bits than :data:`MAX_CORRECTED`
    allows are dropped.
    """
    found = _detector(family).detect(np.ascontiguousarray(gray, dtype=np.uint8))
    limit = MAX_CORRECTED[family]
    kept = [tag for tag in found if tag.hamming <= limit]
    if not kept:
        return np.zeros(0, np.int64), np.zeros((0, 4, 2))
    ids = np.array([tag.tag_id for tag in kept], np.int64)
    quads = np.array([np.asarray(tag.corners, np.float64) for tag in kept])
    return ids, quads[:, list(CORNER_ORDER)] - 0.5
