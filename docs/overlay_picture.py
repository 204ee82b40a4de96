"""The README's picture of the stream overlay (``/overlay``), taken again from the sample:

    .venv/bin/python docs/overlay_picture.py    # writes docs/overlay.png

Real headless Chromium (as the browser tests) on a 960x540 page, a 16:9 stream scaled
down, the sample stepped to a fixed frame and one line of sight asked, so the same code
gives the same picture. The page is screenshotted without a background (as OBS composites
it) and laid over a grey checkerboard, which stands for the stream: where the squares show,
the overlay is transparent. Kept to a 256-colour palette; Pillow comes with reportlab.
"""

from __future__ import annotations

import io
import json
import sys
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "web"))

from browser import chromium, chromium_missing, dashboard  # noqa: E402
from PIL import Image  # noqa: E402

from referee.game import sample_live  # noqa: E402

FRAMES = 50  # t34a has moved 6 in north and settled
VIEWPORT = {"width": 960, "height": 540}
SQUARE = 24  # px: the checkerboard's squares
OPTIONS = "corner=br&size=360"


def checkerboard(width: int, height: int) -> Image.Image:
    board = Image.new("RGBA", (width, height), (150, 150, 150, 255))
    dark = Image.new("RGBA", (SQUARE, SQUARE), (110, 110, 110, 255))
    for y in range(0, height, SQUARE):
        for x in range((y // SQUARE) % 2 * SQUARE, width, 2 * SQUARE):
            board.paste(dark, (x, y))
    return board


def main() -> int:
    missing = chromium_missing()
    if missing:
        print(f"referee: error: cannot take the picture: {missing}", file=sys.stderr)
        return 2
    live = sample_live(pace=0)
    assert live.step(FRAMES) == FRAMES
    with dashboard(live) as running, chromium() as browser:
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(running.url + "overlay?" + OPTIONS)
        page.wait_for_selector("#ov-map:not([hidden]) .piece")
        question = {"ask": "los", "from": "t34a", "to": "gs1"}
        request = urllib.request.Request(
            running.url + "api/ask",
            data=json.dumps(question).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            summary = json.loads(response.read())["verdicts"][0]["summary"]
        page.wait_for_function(
            "s => (document.querySelector('#ov-caption .head') || {}).textContent === s",
            arg=summary,
        )
        page.wait_for_selector("#ov-threats[data-from='t34a'] .threat")
        shot = Image.open(io.BytesIO(page.screenshot(omit_background=True))).convert("RGBA")
    live.stop()
    picture = Image.alpha_composite(checkerboard(*shot.size), shot).convert("RGB")
    path = HERE / "overlay.png"
    picture.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    print(f"{path.relative_to(HERE.parent)}: {path.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
