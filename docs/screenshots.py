"""The README's pictures of the dashboard, taken again from the bundled sample:

    .venv/bin/python docs/screenshots.py        # writes docs/threat-view.png, docs/ruler.png

Real headless Chromium (Debian's ``chromium``, as the browser tests) on a tablet-sized
page (1024x768), the sample stepped to a fixed frame, so the same code gives the same
picture, byte for byte (the header's frame rate and the camera picture, which vary, are
left out). Each PNG is the map (and, for the threat view, the Dispute pane beside it), kept
to a 256-colour palette (the page is flat colours): tens of KB. Pillow comes with reportlab.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "web"))

from browser import chromium, chromium_missing, dashboard  # noqa: E402
from PIL import Image  # noqa: E402

from referee.game import sample_live  # noqa: E402

FRAMES = 50  # t34a has moved 6 in north and settled (its arrow is on the map)
VIEWPORT = {"width": 1024, "height": 768}


def _save(png: bytes, path: Path) -> None:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    print(f"{path.relative_to(HERE.parent)}: {path.stat().st_size // 1024} KB")


def _clip(page, side: bool = True) -> dict[str, float]:
    """The map and the side pane, down to the lower of the two (not the header: its frame
    rate differs from run to run)."""
    box = page.evaluate(
        """(side) => { const a = document.getElementById('map-wrap').getBoundingClientRect();
             const b = document.getElementById(side ? 'side' : 'map-wrap').getBoundingClientRect();
             const top = document.getElementById('map-panel').getBoundingClientRect().top - 8;
             return {x: 0, y: Math.max(0, top), width: Math.max(a.right, b.right) + 8,
                     height: Math.max(a.bottom, b.bottom) + 8 - Math.max(0, top)}; }""",
        side,
    )
    box["height"] = min(box["height"], VIEWPORT["height"] - box["y"])
    return box


def main() -> int:
    missing = chromium_missing()
    if missing:
        print(f"referee: error: cannot take screenshots: {missing}", file=sys.stderr)
        return 2
    live = sample_live(pace=0)
    assert live.step(FRAMES) == FRAMES
    with dashboard(live) as running, chromium() as browser:
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(running.url)
        page.wait_for_selector('#moves .move[data-piece="t34a"]')
        # the threat view: one tap on t34a
        page.click('.piece[data-id="t34a"]')
        page.wait_for_selector("#threats .threat")
        page.wait_for_selector("#verdict .threats-head")
        _save(page.screenshot(clip=_clip(page)), HERE / "threat-view.png")
        # the ruler: from t34a to gs2 through one waypoint
        page.mouse.click(*_screen(page, 34, 1))  # the bare map: clears the view
        page.click("#ruler-tool")
        for x, y in ((10.5, 14.5), (12, 11)):
            page.mouse.click(*_screen(page, x, y))
        page.mouse.dblclick(*_screen(page, 17, 3.6))
        page.wait_for_function("() => referee.ruler.done")
        # the map alone: the camera picture beside it changes from run to run
        _save(page.screenshot(clip=_clip(page, side=False)), HERE / "ruler.png")
    live.stop()
    return 0


def _screen(page, x: float, y: float) -> tuple[float, float]:
    """Where table point (x, y) inches is on the page."""
    return tuple(
        page.evaluate(
            """([x, y]) => { const m = document.getElementById('map');
                 const p = m.createSVGPoint(); p.x = x; p.y = y;
                 const s = p.matrixTransform(m.getScreenCTM()); return [s.x, s.y]; }""",
            [x, y],
        )
    )


if __name__ == "__main__":
    sys.exit(main())
