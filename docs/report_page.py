"""The README's picture of a battle report, made again from the bundled sample:

    .venv/bin/python docs/report_page.py        # writes docs/battle-report.png

The sample clip is played into a temporary game log (``referee run``), its report written
(``referee log report``) and opened in real headless Chromium (Debian's ``chromium``, as
the browser tests); the picture is the report's first turn: its heading, the table after
it with the turn's moves as arrows, and the move list. 256 colours (the page is flat).
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "web"))

from browser import chromium, chromium_missing  # noqa: E402
from click.testing import CliRunner  # noqa: E402
from PIL import Image  # noqa: E402

from referee.cli import cli  # noqa: E402
from referee.game import repo_footage  # noqa: E402


def main() -> int:
    missing = chromium_missing()
    if missing:
        print(f"referee: error: cannot take the picture: {missing}", file=sys.stderr)
        return 2
    f = repo_footage()
    with tempfile.TemporaryDirectory() as folder:
        db, out = Path(folder) / "games.sqlite", Path(folder) / "report.html"
        for args in (
            ["run", "--video", str(f / "video.mp4"), "-c", str(f / "camera.json"), "-r",
             str(f / "roster.json"), "--scene", str(f / "scene.json"), "--db", str(db),
             "--game", "sample", "-q"],
            ["log", "report", "sample", "--db", str(db), "--out", str(out)],
        ):  # fmt: skip
            result = CliRunner().invoke(cli, args)
            if result.exit_code != 0:
                print(result.output, file=sys.stderr)
                return 1
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 900, "height": 1400})
            page.goto(out.as_uri())
            box = page.evaluate(
                """() => { const r = document.querySelector('section[data-turn="1"]')
                     .getBoundingClientRect();
                     return {x: r.left - 12, y: r.top + window.scrollY - 8,
                             width: r.width + 24, height: r.height + 16}; }"""
            )
            png = page.screenshot(clip=box, full_page=True)
    path = HERE / "battle-report.png"
    image = Image.open(io.BytesIO(png)).convert("RGB")
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    print(f"{path.relative_to(HERE.parent)}: {path.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
