"""The dashboard page itself (one page; its script talks to ``/api``), and the stream overlay.

``/overlay`` is a transparent page for a streaming program's browser source (OBS): the
table's map in a corner, the newest ruling as a caption and the threat view of the piece
it is about, kept live from ``/api/stream``. Its options are checked here, once, so a
wrong one is a 400 with one plain line (what OBS shows in place of the overlay) and the
page's script only ever gets values it can draw.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from flask import Blueprint, Response, render_template, request

from referee.errors import RefereeError

bp = Blueprint("pages", __name__)

CORNERS = ("tl", "tr", "bl", "br")
PARTS = ("map", "verdict", "threat")
SIZE_RANGE = (80, 4000)
"""The map's width in screen pixels: smaller cannot show a piece, larger than any stream."""
DEFAULTS = {"corner": "br", "size": "360", "show": ",".join(PARTS)}
PASSED_ON = ("token",)
"""Query parameters that are not overlay options (the access rule reads ``token``)."""


class OverlayOptionError(RefereeError):
    """An overlay option the page cannot draw; answered with 400 and the one line."""


@dataclass(frozen=True)
class OverlayOptions:
    corner: str
    size: int
    show: tuple[str, ...]


def overlay_options(args: Mapping[str, str]) -> OverlayOptions:
    """The overlay's options from its query string, defaults for those not given."""
    unknown = [name for name in args if name not in DEFAULTS and name not in PASSED_ON]
    if unknown:
        raise OverlayOptionError(
            f"overlay: unknown option {unknown[0]!r} (the options: corner, size, show)"
        )
    values = {**DEFAULTS, **{k: v for k, v in args.items() if k in DEFAULTS}}
    corner = values["corner"].strip().lower()
    if corner not in CORNERS:
        raise OverlayOptionError(
            f"overlay: corner {_quoted(values['corner'])} is not one of {', '.join(CORNERS)}"
        )
    low, high = SIZE_RANGE
    size_text = values["size"].strip()
    if not (size_text.isascii() and size_text.isdigit()) or not low <= int(size_text) <= high:
        raise OverlayOptionError(
            f"overlay: size {_quoted(values['size'])} is not a whole number of pixels "
            f"from {low} to {high}"
        )
    show = tuple(part.strip().lower() for part in values["show"].split(","))
    wrong = [part for part in show if part not in PARTS]
    if wrong or not show:
        raise OverlayOptionError(
            f"overlay: show {_quoted(values['show'])} is not a list of {', '.join(PARTS)}"
        )
    if "threat" in show and "map" not in show:
        # the threat view is lines on the map: without the map it has nowhere to be drawn
        raise OverlayOptionError("overlay: show=threat draws on the map: add map to show")
    return OverlayOptions(corner, int(size_text), tuple(p for p in PARTS if p in show))


def _quoted(value: str) -> str:
    """A user's value in the message, cut short: one readable line whatever was sent."""
    shown = value if len(value) <= 40 else value[:40] + "…"
    return repr(shown)


@bp.errorhandler(OverlayOptionError)
def _bad_option(error: OverlayOptionError) -> Response:
    return Response(str(error) + "\n", status=400, mimetype="text/plain")


@bp.get("/")
def index() -> str:
    return render_template("index.html")


@bp.get("/projector")
def projector() -> str:
    """The projector's page: verdicts drawn on the cloth at true scale, tags kept dark;
    ``?pattern=1`` shows the calibration pattern instead."""
    pattern = request.args.get("pattern", "") not in ("", "0")
    return render_template("projector.html", pattern=pattern)


@bp.get("/overlay")
def overlay() -> str:
    options = overlay_options(request.args)
    return render_template("overlay.html", options=options)
