"""QR encode/decode round trips, on pyzbar when present and on the OpenCV fallback."""

from __future__ import annotations

import sys
import warnings

import cv2
import numpy as np
import pytest

from referee.markers import qr

TEXTS = ['{"tag":12,"id":"t34","side":"soviet"}', "charuco:5x7:0.04m:0.02m:DICT_6X6_250"]


def _sheet(module_px: int = 4) -> np.ndarray:
    """Two codes on a white page, the second lower and to the right."""
    a, b = (qr.render_qr(t, module_px) for t in TEXTS)
    page = np.full((700, 900), 255, np.uint8)
    page[20 : 20 + a.shape[0], 30 : 30 + a.shape[1]] = a
    page[330 : 330 + b.shape[0], 450 : 450 + b.shape[1]] = b
    return page


@pytest.fixture
def opencv_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(qr, "USE_PYZBAR", False)


@pytest.fixture
def no_libzbar(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend pyzbar cannot load, and forget any earlier attempt."""
    monkeypatch.setitem(sys.modules, "pyzbar", None)
    monkeypatch.setitem(sys.modules, "pyzbar.pyzbar", None)
    monkeypatch.setattr(qr, "_pyzbar", None)
    monkeypatch.setattr(qr, "_pyzbar_tried", False)


def test_encode_grid_has_finder_patterns() -> None:
    grid = qr.encode_qr("x" * 40)
    n = grid.shape[0]
    assert grid.shape == (n, n) and (n - 17) % 4 == 0
    for r, c in [(0, 0), (0, n - 7), (n - 7, 0)]:
        finder = grid[r : r + 7, c : c + 7]
        assert finder[0].all() and finder[:, 0].all() and not finder[1, 1:6].any()


def test_encode_rejects_unknown_error_level() -> None:
    with pytest.raises(ValueError, match="error correction"):
        qr.encode_qr("x", error_correction="Z")


@pytest.mark.usefixtures("opencv_only")
def test_opencv_fallback_reads_two_codes_in_page_order() -> None:
    assert qr.decode_qr(_sheet()) == TEXTS


@pytest.mark.usefixtures("opencv_only")
def test_opencv_fallback_reads_bgr_photo_like_image() -> None:
    page = cv2.cvtColor(_sheet(), cv2.COLOR_GRAY2BGR)
    noisy = cv2.GaussianBlur(page, (3, 3), 0)
    rotated = cv2.warpAffine(
        noisy, cv2.getRotationMatrix2D((450, 350), 12, 0.9), (900, 700), borderValue=(255, 255, 255)
    )
    assert qr.decode_qr(rotated) == TEXTS


@pytest.mark.usefixtures("opencv_only")
def test_no_code_gives_empty_list() -> None:
    assert qr.decode_qr(np.full((300, 300, 3), 200, np.uint8)) == []


def test_rejects_non_image() -> None:
    with pytest.raises(ValueError, match="image"):
        qr.decode_qr(np.zeros((3, 3, 7), np.uint8))


@pytest.mark.usefixtures("no_libzbar")
def test_missing_libzbar_warns_once_in_the_commands_style_and_still_decodes(capsys) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # never a raw Python warning
        first = qr.decode_qr(_sheet())
        second = qr.decode_qr(_sheet())
    assert first == second == TEXTS
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: warning: libzbar not available")


def test_pyzbar_path_when_installed() -> None:
    try:
        from pyzbar import pyzbar  # noqa: F401
    except (ImportError, OSError):
        pytest.skip("libzbar is not installed here")
    assert qr.decode_qr(_sheet()) == TEXTS
