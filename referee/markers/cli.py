"""Commands for printables: ``referee markers``, ``cards``, ``roster scan`` and ``board``."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from referee.markers.roster import TerrainTemplate
    from referee.markers.roster_init import PieceLine

from referee.commands import gathered
from referee.errors import RefereeError, RosterError, counted, warn
from referee.markers.oblique import (
    DEFAULT_FOV_DEG,
    MAX_TILT_DEG,
    ObliqueCamera,
    oblique_tag_size,
)
from referee.markers.pdf import write_pdf
from referee.markers.roster import Roster, load_roster
from referee.markers.sheets import (
    AUTO_MARGIN,
    DEFAULT_TAG_SIZE_IN,
    MIN_PX_PER_CELL,
    TagPrint,
    anchor_sheet,
    anchor_tags,
    auto_tag_size,
    check_piece_tag,
    describe_size,
    parse_ids,
    parse_size,
    piece_tags,
    size_warning,
    tag_sheet,
)
from referee.outputs import output_file
from referee.tags.board import BoardSpec, parse_length, parse_pair
from referee.tags.layout import (
    ANCHOR_INSET_IN,
    ANCHOR_SIZE_IN,
    DEFAULT_DICTIONARY,
    EDGE_ANCHOR_OVER_IN,
    anchor_spots,
    canonical_dictionary,
    reserved_anchor_ids,
)
from referee.validate import number


@dataclass(frozen=True)
class Printing:
    """``--page`` and ``--out``: the paper a sheet is laid out on and the PDF written."""

    page: str
    out: str | None


@dataclass(frozen=True)
class CameraView:
    """The camera ``markers --size auto`` sizes tags for: ``--camera WxH`` (its resolution),
    ``--camera-height``, ``--camera-tilt`` and ``--fov``."""

    camera: str
    height: float | None
    tilt: float | None
    fov: float | None


@dataclass(frozen=True)
class Shape:
    """What a terrain template is: ``--kind``, ``--size WxD`` or ``--outline FILE``."""

    kind: str | None
    size: str | None
    outline: str | None


PAGES = click.Choice(["letter", "a4"], case_sensitive=False)

#: Piece tags printed when neither --ids nor --roster is given: two Letter pages of 0.8 in tags.
DEFAULT_ID_COUNT = 48


def _pair(text: str, option: str, example: str) -> tuple[float, float]:
    try:
        return parse_pair(text)
    except ValueError:
        raise RefereeError(f"{option}: cannot read {text!r}; write it like {example}") from None


def _dictionary(name: str) -> str:
    try:
        return canonical_dictionary(name)
    except ValueError as error:
        raise RefereeError(f"--dictionary: {error}") from None


def _id_span(ids: list[int]) -> str:
    """'0-47' for a contiguous run, else the count."""
    if ids == list(range(ids[0], ids[-1] + 1)):
        return f"ids {ids[0]}-{ids[-1]}" if len(ids) > 1 else f"id {ids[0]}"
    return f"{len(ids)} ids"


@click.group(invoke_without_command=True)
@click.option("--ids", help="Tag ids: ranges and lists like 10-40 or 1,3,5-9.  [default: 0-47]")
@click.option(
    "--size",
    help=f"Side of the black square: 0.8in, 20mm, or auto.  [default: {DEFAULT_TAG_SIZE_IN:g}in; "
    f"{ANCHOR_SIZE_IN:g}in with --anchors]",
)
@click.option(
    "--dictionary",
    help=f"Tag dictionary: OpenCV's name or a .yml file.  [default: {DEFAULT_DICTIONARY}, "
    "or the roster's]",
)
@click.option(
    "--roster",
    "roster_path",
    type=click.Path(dir_okay=False),
    help="Print one tag per piece of this roster, labelled with the piece.",
)
@click.option(
    "--anchors",
    is_flag=True,
    help="Print the table's anchor tags instead: the four corners' (the dictionary's last "
    f"four ids), and with --table over {EDGE_ANCHOR_OVER_IN:g} in a side two more for the "
    "middle of the long edges (six, the last six ids).",
)
@click.option(
    "--table",
    default="48x36",
    show_default=True,
    help="Table width x depth in inches, for --size auto, the too-small warning and --anchors.",
)
@click.option(
    "--camera",
    "--resolution",
    "camera",
    default="1920x1080",
    show_default=True,
    help="Camera resolution, for --size auto and the too-small warning.",
)
@click.option(
    "--camera-height",
    type=float,
    metavar="IN",
    help="--size auto for a camera at the table's long edge: its lens's height above the "
    "table, inches.",
)
@click.option(
    "--camera-tilt",
    type=float,
    metavar="DEG",
    help="... and its tilt from straight down, degrees (0: overhead; a tripod at the edge: "
    "20-35).  [default: 0]",
)
@click.option(
    "--fov",
    type=float,
    metavar="DEG",
    help=f"... and its horizontal field of view, degrees.  [default: {DEFAULT_FOV_DEG:g}, a "
    "1080p webcam's]",
)
@click.option("--page", type=PAGES, default="letter", show_default=True)
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    help="PDF to write.  [default: tags.pdf; ROSTER-tags.pdf with --roster (roster-tags.pdf "
    "for roster.json), so an earlier tags.pdf is kept; anchors.pdf with --anchors]",
)
@gathered(
    "view",
    CameraView,
    {"camera": "camera", "camera_height": "height", "camera_tilt": "tilt", "fov": "fov"},
)
@gathered("printing", Printing, {"page": "page", "out": "out"})
def markers(
    ids: str | None,
    size: str | None,
    dictionary: str | None,
    roster_path: str | None,
    anchors: bool,
    table: str,
    view: CameraView,
    printing: Printing,
) -> None:
    """Print tag sheets at exact size: piece tags, or the table's corner anchors.

    Print the PDF at 100% ("actual size") and check its scale bars with a ruler.
    --size auto picks the smallest tag that gives the camera at least 5 pixels
    per tag cell, assuming it looks straight down at the table with 5% margin;
    with --camera-height (and --camera-tilt, --fov) it places the camera at the
    middle of the table's long edge and sizes the tags for the far edge.
    `referee markers terrain` prints paper terrain templates with their tags.
    """
    camera, camera_height, camera_tilt, fov = view.camera, view.height, view.tilt, view.fov
    page, out = printing.page, printing.out
    if click.get_current_context().invoked_subcommand is not None:
        return  # `markers terrain`: its own options, its own output
    oblique = _oblique_camera(size, camera_height, camera_tilt, fov, camera)
    default = _default_out(anchors, roster_path)
    output_file(default if out is None else out, "--out", (".pdf",), "tags.pdf")
    roster: Roster | None = None
    if roster_path is not None:
        roster = load_roster(roster_path)
        if ids is not None:
            raise RefereeError("give --ids or --roster, not both")
        if dictionary is not None and _dictionary(dictionary) != roster.dictionary:
            raise RefereeError(
                f"--dictionary {dictionary} differs from the roster's {roster.dictionary}; "
                "leave --dictionary out to use the roster's"
            )
    name = roster.dictionary if roster else _dictionary(dictionary or DEFAULT_DICTIONARY)
    page = page.lower()

    items: tuple[TagPrint, ...]
    if anchors:
        if ids is not None:
            raise RefereeError("--anchors prints the reserved anchor ids; leave --ids out")
        if size == "auto":
            raise RefereeError("--size auto is for piece tags; anchors default to 2in")
        anchor_size = parse_size(size) if size else ANCHOR_SIZE_IN
        if roster and roster.anchors and size is None:
            anchor_size = roster.anchors[0].size
        # The table only counts when given: a big one gets the two edge anchors too.
        given = click.get_current_context().get_parameter_source("table")
        commandline = click.core.ParameterSource.COMMANDLINE
        big = _pair(table, "--table", "48x36") if given == commandline else None
        sheet = anchor_sheet(name, anchor_size, page, big)
        items = anchor_tags(name, anchor_size, big)
        target = default if out is None else out
    else:
        if oblique is not None:
            tag_size = _oblique_size(_pair(table, "--table", "48x36"), oblique, name)
        elif size == "auto":
            tag_size, px = auto_tag_size(_pair(table, "--table", "48x36"), _camera(camera), name)
            click.echo(
                f"--size auto: {describe_size(tag_size)} tags give {px:g} px per "
                f"tag cell (goal {MIN_PX_PER_CELL:g}) on a {table} in table filling a {camera} "
                f"camera looking straight down with {AUTO_MARGIN:.0%} margin"
            )
        else:
            tag_size = parse_size(size) if size else DEFAULT_TAG_SIZE_IN
        if roster is not None:
            if not roster.pieces:
                hint = (
                    f"; print its terrain templates with: referee markers terrain --roster "
                    f"{roster_path}"
                    if roster.templates
                    else ""
                )
                raise RosterError(f"{roster_path}: the roster has no pieces{hint}")
            for entry in roster.pieces:
                try:
                    check_piece_tag(name, entry.tag)
                except RefereeError as error:
                    raise RosterError(f"{roster_path}: piece {entry.id!r}: {error}") from None
            items = tuple(
                TagPrint(e.tag, e.tag_size or tag_size, e.name or e.id) for e in roster.pieces
            )
        else:
            first_anchor = reserved_anchor_ids(name)[0]
            chosen = (
                parse_ids(ids, name) if ids else tuple(range(min(DEFAULT_ID_COUNT, first_anchor)))
            )
            items = piece_tags(chosen, tag_size, name)
        sheet = tag_sheet(items, name, page)
        target = default if out is None else out

    write_pdf(sheet.pages, target, sheet.title)
    _warn_small(items, name, table, camera)
    tags = [item.tag for item in items]
    kind = "anchor tag" if anchors else "tag"
    sizes = sorted({item.size_in for item in items})
    size_text = ", ".join(describe_size(s) for s in sizes)
    click.echo(
        f"wrote {target}: {counted(len(items), kind)} ({_id_span(sorted(tags))}, {name}) on "
        f"{counted(len(sheet.pages), page + ' page')}, "
        f"{size_text} black squares; print at 100% and check the scale bars"
    )
    if anchors:
        click.echo(
            f"glue each anchor with its centre {ANCHOR_INSET_IN:g} in from both table edges at its "
            "corner, "
            "arrow along the table's width (+x); corners in id order: "
            "(0, 0), (width, 0), (width, depth), (0, depth)"
        )
        if len(items) > 4:
            # A big table: say where every one goes, in inches, the edge anchors included.
            assert big is not None
            for item, (x, y) in zip(items, anchor_spots(big), strict=True):
                click.echo(f"  anchor {item.tag}: centre at ({x:g}, {y:g}) in")
            click.echo(
                f"the table's longer side is over {EDGE_ANCHOR_OVER_IN:g} in: anchors "
                f"{items[4].tag} and {items[5].tag} go at the middle of its long edges, so a "
                "camera seeing part of the table still sees three or more anchors"
            )


def _default_out(anchors: bool, roster_path: str | None) -> str:
    """The PDF ``markers`` writes without --out: named for what it holds, like cards.pdf and
    board-letter.pdf, so a roster's tags never silently replace the plain tags.pdf."""
    if anchors:
        return "anchors.pdf"
    if roster_path is not None:
        return f"{Path(roster_path).stem or 'roster'}-tags.pdf"
    return "tags.pdf"


def _warn_small(items: Sequence[TagPrint], dictionary: str, table: str, camera: str) -> None:
    """Warn about tags the camera will not read; table and camera count only when given."""
    ctx = click.get_current_context()
    given = all(
        ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE
        for name in ("table", "camera")
    )
    setup = (_pair(table, "--table", "48x36"), _camera(camera)) if given else (None, None)
    for size in sorted({item.size_in for item in items}):
        message = size_warning(size, dictionary, *setup)
        if message is not None:
            warn(message)


def _oblique_camera(
    size: str | None,
    height: float | None,
    tilt: float | None,
    fov: float | None,
    resolution: str,
) -> ObliqueCamera | None:
    """The camera ``--size auto`` sizes tags for at the table's edge; None: straight down."""
    given = [
        name
        for name, value in (("--camera-height", height), ("--camera-tilt", tilt), ("--fov", fov))
        if value is not None
    ]
    if not given:
        return None
    if size != "auto":
        raise RefereeError(
            f"{given[0]} sizes the tags for an oblique camera: it goes with --size auto "
            "(e.g. --size auto --camera-height 40 --camera-tilt 30)"
        )
    if height is None:
        raise RefereeError(
            f"{given[0]} needs --camera-height: the height of the camera's lens above the "
            "table in inches (e.g. --camera-height 40 --camera-tilt 30)"
        )
    number(height, "--camera-height", positive=True, maximum=1000.0, hint="inches, e.g. 40")
    tilt = 0.0 if tilt is None else tilt
    number(
        tilt,
        "--camera-tilt",
        minimum=0.0,
        maximum=MAX_TILT_DEG,
        hint="degrees from straight down, e.g. 30",
    )
    fov = DEFAULT_FOV_DEG if fov is None else fov
    number(fov, "--fov", minimum=10.0, maximum=170.0, hint="the horizontal field of view, e.g. 70")
    return ObliqueCamera(height, tilt, _camera(resolution), fov)


def _oblique_size(table: tuple[float, float], camera: ObliqueCamera, dictionary: str) -> float:
    """Size tags for the far edge of an oblique camera; say the size and why."""
    fit = oblique_tag_size(table, camera, dictionary, min_px_per_cell=MIN_PX_PER_CELL)
    x, y = fit.worst_xy
    click.echo(
        f"--size auto: {describe_size(fit.size_in)} tags: a tag looks smallest at "
        f"({x:g}, {y:g}), {fit.distance_in:.0f} in from {camera.describe()} at the "
        f"middle of the table's long edge; there a tag cell is {fit.across_px:.1f} px across "
        f"and {fit.along_px:.1f} px along the line of sight ({fit.equivalent_px:.1f} px "
        f"square, goal {MIN_PX_PER_CELL:g}); nearer tags look larger"
    )
    if fit.out_of_view:
        corners = ", ".join(f"({cx:g}, {cy:g})" for cx, cy in fit.out_of_view)
        warn(
            f"table corners {corners} fall outside the picture of {camera.describe()}: the "
            "anchors there will not be seen; move the camera back, raise it or change its tilt"
        )
    return fit.size_in


def _camera(text: str) -> tuple[int, int]:
    w, h = _pair(text, "--camera", "1920x1080")
    return int(w), int(h)


@click.command()
@click.option(
    "--roster",
    "roster_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="Roster whose pieces get a card each.",
)
@click.option(
    "--out",
    default="cards.pdf",
    show_default=True,
    type=click.Path(dir_okay=False),
)
@click.option("--page", type=PAGES, default="letter", show_default=True)
@click.option(
    "--size",
    help="Tag size for pieces without tag_size in the roster.  "
    f"[default: {DEFAULT_TAG_SIZE_IN:g}in]",
)
def cards(roster_path: str, out: str, page: str, size: str | None) -> None:
    """Print a unit card per piece: its roster entry in a QR code, and its tag.

    Scan the cards later with `referee roster scan` to rebuild the roster.
    """
    from referee.markers.cards import card_sheet

    output_file(out, "--out", (".pdf",), "cards.pdf")
    roster = load_roster(roster_path)
    default_size = parse_size(size) if size else DEFAULT_TAG_SIZE_IN
    sheet = card_sheet(roster, page.lower(), default_size)
    for tag_size in sorted({e.tag_size or default_size for e in roster}):
        message = size_warning(tag_size, roster.dictionary)
        if message is not None:
            warn(message)
    write_pdf(sheet.pages, out, sheet.title)
    previews = [p.piece for p in sheet.placed if not p.true_size]
    click.echo(
        f"wrote {out}: {counted(len(sheet.placed), 'card')} on "
        f"{counted(len(sheet.pages), page.lower() + ' page')}"
    )
    if previews:
        click.echo(
            f"tags of {', '.join(previews)} are too big for a card and shown shrunk; "
            f"print them with: referee markers --roster {roster_path}"
        )


@click.group()
def roster() -> None:
    """Build and update the roster (which tag is on which piece)."""


@roster.command()
@click.option(
    "--pieces",
    "pieces_path",
    type=click.Path(dir_okay=False),
    help="Text file with one piece per line: ID SIDE KIND WIDTHxDEPTH [tag=N height=H "
    "offset=F,R size=S name=...]; '-' reads standard input.",
)
@click.option(
    "--piece",
    "piece_lines",
    multiple=True,
    help='One piece, same form as a line of --pieces, e.g. --piece "t34a soviet tank 1.5x3 '
    'height=0.9" (repeat for more).',
)
@click.option(
    "--dictionary",
    default=DEFAULT_DICTIONARY,
    show_default=True,
    help="Tag dictionary: OpenCV's name or a .yml file.",
)
@click.option(
    "--first-tag",
    default=0,
    show_default=True,
    type=click.IntRange(0),
    help="Pieces without tag=N get ids counting up from here.",
)
@click.option(
    "--out",
    default="roster.json",
    show_default=True,
    type=click.Path(dir_okay=False),
)
@click.option(
    "--terrain",
    "terrain_lines",
    multiple=True,
    help="A paper terrain template: KIND:LENGTHxWIDTH[:ID], e.g. woods:8x6 (repeat for "
    "more); its tags follow the pieces'. Print it with: referee markers terrain --roster.",
)
@click.option("--force", is_flag=True, help="Overwrite --out if it exists.")
def init(
    pieces_path: str | None,
    piece_lines: tuple[str, ...],
    dictionary: str,
    first_tag: int,
    out: str,
    force: bool,
    terrain_lines: tuple[str, ...] = (),
) -> None:
    """Start a roster from a list of pieces, or ask for each piece when no list is given.

    A base is WIDTHxDEPTH in inches: width across the front, depth from front
    to back. Tags are numbered from --first-tag, skipping the corner anchors'.
    """
    from referee.markers.roster_init import (
        MAX_PIECE_LIST_BYTES,
        add_terrain,
        build_roster,
        parse_piece_line,
        parse_piece_list,
        parse_terrain_option,
        piece_list_text,
        read_piece_list,
    )

    if output_file(out, "--out").exists() and not force:
        raise RosterError(f"--out {out}: already exists; add --force to replace it")
    name = _dictionary(dictionary)
    terrain = [parse_terrain_option(t, f"--terrain #{k}") for k, t in enumerate(terrain_lines, 1)]
    pieces = []
    if pieces_path is not None:
        if pieces_path == "-":
            data = sys.stdin.buffer.read(MAX_PIECE_LIST_BYTES + 1)
            pieces += parse_piece_list(piece_list_text(data, "<stdin>"), "<stdin>")
        else:
            pieces += parse_piece_list(read_piece_list(pieces_path), pieces_path)
    for k, line in enumerate(piece_lines, start=1):
        piece = parse_piece_line(line, f"--piece #{k}")
        if piece is not None:
            pieces.append(piece)
    if pieces_path is None and not piece_lines:
        pieces = _ask_pieces()
    new = build_roster(pieces, name, first_tag)
    if terrain:
        new = add_terrain(new, terrain)
    new.save(out)
    for entry in new:
        click.echo(
            f"  tag {entry.tag:>3}  {entry.id}  ({entry.side} {entry.kind}, base "
            f"{entry.base[0]:g}x{entry.base[1]:g}in, tag {entry.tag_height:g}in up)"
        )
    for template in new.templates:
        tags = ", ".join(str(t.tag) for t in template.tags)
        click.echo(f"  tag {tags:>3}  {template.id}  (terrain template: {template.terrain})")
    click.echo(
        f"wrote {out}: {counted(len(new), 'piece')} ({new.dictionary}); "
        f"print their tags with: referee markers --roster {out}"
    )
    if new.templates:
        click.echo(f"print the terrain templates with: referee markers terrain --roster {out}")


def _ask_pieces() -> list[PieceLine]:
    """Ask for pieces one at a time until an empty id."""
    from referee.markers.roster_init import PieceLine, parse_base

    click.echo(
        "Describe each piece (empty id to finish). Base: width across the front x depth "
        "front to back, inches."
    )
    pieces: list[PieceLine] = []
    while True:
        piece_id = click.prompt("piece id", default="", show_default=False).strip()
        if not piece_id:
            break
        side = click.prompt("  side", default=pieces[-1].side if pieces else None)
        kind = click.prompt("  kind (tank, infantry, gun...)")
        while True:
            try:
                base = parse_base(click.prompt("  base WIDTHxDEPTH", default="1x2"), "base")
                break
            except RosterError as error:
                click.echo(f"  {error}")
        height = click.prompt("  tag height above the table, inches", default=0.0, type=float)
        pieces.append(PieceLine(piece_id, side, kind, base, tag_height=max(height, 0.0)))
    return pieces


@roster.command()
@click.argument("source")
@click.option(
    "--roster",
    "roster_path",
    type=click.Path(dir_okay=False),
    help="Roster to update (created when missing).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    help="Where to write the roster.  [default: the --roster file]",
)
@click.option(
    "--frames",
    default=300,
    show_default=True,
    type=click.IntRange(1),
    help="Frames to read from a camera or video.",
)
def scan(source: str, roster_path: str | None, out: str | None, frames: int) -> None:
    """Read unit cards from SOURCE and add their pieces to a roster.

    SOURCE is an image, a folder of images, a video, or a camera index like 0.
    """
    from referee.markers.scan import describe, iter_images, merge, output_path
    from referee.markers.scan import scan as scan_cards

    target = output_path(roster_path, out)
    output_file(target, "--out" if out else "--roster")
    existing: Roster | None = None
    if roster_path is not None and Path(roster_path).exists():
        existing = load_roster(roster_path)
    from referee.runtime import progress

    images = progress(iter_images(source, frames), desc="scanning", unit="image")
    result = scan_cards(iter(images))
    for problem in result.problems:
        click.echo(f"skipped: {problem}", err=True)
    if not result.cards:
        seen = counted(result.images, "image")
        raise RosterError(
            f"{source}: no unit cards found in {seen}; hold each card flat, well lit and "
            "filling a good part of the picture, or print cards with `referee cards`"
        )
    base = existing or Roster(result.cards[0].dictionary)
    if existing is None:
        click.echo(f"starting a new roster ({base.dictionary})")
    updated, changes = merge(base, result.cards)
    # Never write a roster the other commands would refuse: read it back as they will.
    Roster.from_json(updated.to_json(), target)
    for change in changes:
        click.echo(describe(change))
    updated.save(target)
    counts = {a: sum(c.action == a for c in changes) for a in ("added", "updated", "unchanged")}
    click.echo(
        f"wrote {target}: {counted(len(updated), 'piece')} ("
        + ", ".join(f"{n} {a}" for a, n in counts.items() if n)
        + ")"
    )


@click.command()
@click.option("--page", type=PAGES, default="letter", show_default=True)
@click.option(
    "--square",
    help="Square side (e.g. 30mm). With --out: print the board at that size. Without --out: "
    "you measured the printed square; print the spec to calibrate with.",
)
@click.option(
    "--board",
    "board_spec",
    help="Board to print, e.g. charuco:5x7:0.03m:0.021m:DICT_6X6_250.  "
    "[default: 5x7 DICT_6X6_250 filling the page]",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    help="PDF to write.  [default: board-<page>.pdf; nothing when only --square is given]",
)
def board(page: str, square: str | None, board_spec: str | None, out: str | None) -> None:
    """Print a ChArUco calibration board, its spec in text and in a QR code.

    If the printer scaled the page, measure one square with a ruler and run
    `referee board --square 29.5mm` (same --page or --board as printed): it
    prints the corrected spec to give `referee calibrate --board`.
    """
    from referee.markers.board_sheet import board_sheet, default_board

    page = page.lower()
    if out is not None or square is None:
        output_file(f"board-{page}.pdf" if out is None else out, "--out", (".pdf",), "board.pdf")
    try:
        spec = BoardSpec.parse(board_spec) if board_spec else default_board(page)
        if square is not None:
            spec = spec.with_square(parse_length(square))
    except ValueError as error:
        option = "--square" if square is not None and board_spec is None else "--board"
        raise RefereeError(f"{option}: {error}") from None
    if square is not None and out is None:
        click.echo(f"a board printed with {spec.square_m * 1000:g} mm squares is:")
        click.echo(spec.to_string())
        click.echo(f"calibrate with: referee calibrate SOURCE --board {spec.to_string()}")
        click.echo("(add --out FILE.pdf to print a board at this size instead)")
        return
    target = f"board-{page}.pdf" if out is None else out
    sheet = board_sheet(spec, page)
    write_pdf([sheet.page], target, sheet.title)
    click.echo(f"wrote {target}: {spec.to_string()}")
    click.echo(
        f"print at 100% on {page} and check that a square measures {spec.square_m * 1000:g} mm"
    )


@markers.command("terrain")
@click.option(
    "--kind",
    help="Terrain kind of a new template: woods, building, hill, road, river, or any scene "
    "terrain kind.",
)
@click.option(
    "--size",
    "size_text",
    help="Length x width of a new template in inches, e.g. 8x6 (a road or river section: "
    "length x width).",
)
@click.option(
    "--outline",
    "outline_path",
    type=click.Path(dir_okay=False),
    help="JSON file with the template's outline: [[x, y], ...] inches around its tag (or "
    '{"outline": [...]}); give --kind too.',
)
@click.option(
    "--roster",
    "roster_path",
    type=click.Path(dir_okay=False),
    help="Print every terrain template of this roster, as its entries say.",
)
@click.option("--id", "template_id", help="Id of a new template.  [default: KIND1]")
@click.option(
    "--tag",
    "first_tag",
    type=int,
    default=60,
    show_default=True,
    help="Tag id of a new template (a second tag, on a long one, gets the next id).",
)
@click.option(
    "--tag-size",
    help=f"Side of each tag's black square.  [default: {DEFAULT_TAG_SIZE_IN:g}in, or the "
    "roster entry's tag_size]",
)
@click.option(
    "--dictionary",
    help=f"Tag dictionary.  [default: {DEFAULT_DICTIONARY}, or the roster's]",
)
@click.option("--page", type=PAGES, default="letter", show_default=True)
@click.option(
    "--out",
    default="terrain.pdf",
    show_default=True,
    type=click.Path(dir_okay=False),
    help="PDF to write.",
)
@click.option(
    "--roster-out",
    type=click.Path(dir_okay=False),
    help="Add the new template's entry to this roster file (made if missing) instead of "
    "only printing it.",
)
@gathered("shape", Shape, {"kind": "kind", "size_text": "size", "outline_path": "outline"})
@gathered("printing", Printing, {"page": "page", "out": "out"})
def terrain(
    shape: Shape,
    roster_path: str | None,
    template_id: str | None,
    first_tag: int,
    tag_size: str | None,
    dictionary: str | None,
    printing: Printing,
    roster_out: str | None,
) -> None:
    """Print paper terrain templates at exact size, with their tags on them.

    From a roster (--roster: every template it lists) or a new one: --kind and
    --size (a wood's wavy edge, a hill's contour, a building's footprint, a road
    or river section) or --kind and --outline FILE. A new template's roster entry
    is printed to paste into the roster's "terrain" list, or added to
    --roster-out. Templates bigger than the page are split over sheets that
    overlap by half an inch. Print at 100% and check the scale bars.
    """
    kind, size_text, outline_path = shape.kind, shape.size, shape.outline
    page, out = printing.page, printing.out
    assert out is not None  # --out has a default
    import json

    from referee.markers.terrain_sheet import check_template_size, terrain_sheet

    output_file(out, "--out", (".pdf",), "terrain.pdf")
    if roster_out is not None:
        output_file(roster_out, "--roster-out", (".json",), "roster.json")
    default_size = _tag_size(tag_size)
    new_options = {
        "--kind": kind,
        "--size": size_text,
        "--outline": outline_path,
        "--id": template_id,
        "--roster-out": roster_out,
    }
    added: TerrainTemplate | None = None
    target: Roster | None = None
    if roster_path is not None:
        given = [name for name, value in new_options.items() if value is not None]
        if given:
            raise RefereeError(
                f"{given[0]} is for a new template; --roster prints the roster's own templates"
            )
        roster = load_roster(roster_path)
        if dictionary is not None and _dictionary(dictionary) != roster.dictionary:
            raise RefereeError(
                f"--dictionary {dictionary} differs from the roster's {roster.dictionary}; "
                "leave --dictionary out to use the roster's"
            )
        if not roster.templates:
            raise RosterError(f"{roster_path}: the roster has no terrain templates")
        for template in roster.templates:
            check_template_size(template, roster_path)
        templates = roster.templates
        name = roster.dictionary
    else:
        name = _dictionary(dictionary or DEFAULT_DICTIONARY)
        added = _new_template(
            kind, size_text, outline_path, template_id, first_tag, tag_size, default_size, name
        )
        templates = (added,)
        if roster_out is not None:
            target = _roster_with(roster_out, added, name)
    sheet = terrain_sheet(templates, name, page.lower(), default_size)
    for size in sorted({t.tag_size or default_size for t in templates}):
        message = size_warning(size, name)
        if message is not None:
            warn(message)
    if target is not None and roster_out is not None:
        target.save(roster_out)
    write_pdf(sheet.pages, out, sheet.title)
    tiled = [o for o in sheet.outlines if o.tiles > 1]
    pages = len(sheet.pages)
    click.echo(
        f"wrote {out}: {counted(len(templates), 'terrain template')} "
        f"({', '.join(t.id for t in templates)}) on {counted(pages, page.lower() + ' page')}; "
        "print at 100% and check the scale bars"
    )
    for o in tiled:
        click.echo(f"{o.template} is split over {o.tiles} sheets: glue them at the dashed lines")
    if added is not None:
        entry = json.dumps(added.to_json(), separators=(", ", ": "))
        if roster_out is not None:
            click.echo(f"added {added.id} to {roster_out}: {entry}")
        else:
            click.echo(f'roster entry (paste it into your roster\'s "terrain" list):\n{entry}')


def _tag_size(text: str | None) -> float:
    if text is None:
        return DEFAULT_TAG_SIZE_IN
    try:
        return parse_size(text)
    except RefereeError as error:
        raise RefereeError(str(error).replace("--size:", "--tag-size:", 1)) from None


def _new_template(
    kind: str | None,
    size_text: str | None,
    outline_path: str | None,
    template_id: str | None,
    first_tag: int,
    tag_size: str | None,
    default_size: float,
    dictionary: str,
) -> TerrainTemplate:
    """The template --kind with --size or --outline describe, checked as a roster entry is."""
    from referee.errors import read_json_file
    from referee.geometry import unknown_terrain_kind
    from referee.markers.roster import Roster
    from referee.markers.terrain_sheet import (
        MAX_TEMPLATE_IN,
        check_template_size,
        shaped_outline,
        tag_places,
    )
    from referee.tags.layout import TagLayout, marker_bits

    if kind is None:
        raise RefereeError(
            "give --roster ROSTER, or --kind with --size (e.g. --kind woods --size 8x6) or "
            "with --outline FILE"
        )
    if (size_text is None) == (outline_path is None):
        raise RefereeError("give --size or --outline for the new template (one of them)")
    problem = unknown_terrain_kind(kind.lower()[:40])
    if problem is not None:
        raise RefereeError(f"--kind: {problem}")
    outer = TagLayout(default_size, marker_bits(dictionary)).outer
    raw: object = None
    if size_text is not None:
        length, width = _pair(size_text, "--size", "8x6")
        if not (0 < length <= MAX_TEMPLATE_IN and 0 < width <= MAX_TEMPLATE_IN):
            raise RefereeError(
                f"--size: {size_text!r} must be two positive lengths up to "
                f"{MAX_TEMPLATE_IN:g}in (print a longer road or river as sections)"
            )
        if min(length, width) < outer + 0.2:
            raise RefereeError(
                f"--size: {size_text!r} is too small for a {default_size:g}in tag (its white "
                f"square is {outer:.2f}in); make the template at least {outer + 0.2:.2f}in wide"
            )
        outline: object = [list(p) for p in shaped_outline(kind.lower(), length, width)]
        places = tag_places(length, width, outer)
    else:
        assert outline_path is not None
        raw = read_json_file(outline_path, "outline file", RosterError)
        outline = raw.get("outline") if isinstance(raw, dict) else raw
        if not isinstance(outline, list):
            raise RosterError(
                f"{outline_path}: an outline file holds [[x, y], ...] or "
                '{"outline": [[x, y], ...]} (inches around the tag)'
            )
        places = ((0.0, 0.0),)
    entry: dict[str, object] = {
        "id": template_id or f"{kind.lower()}1",
        "terrain": kind,
        "outline": outline,
        "tags": [{"tag": first_tag + i, "at": list(p), "heading": 0} for i, p in enumerate(places)],
    }
    if tag_size is not None:
        entry["tag_size"] = default_size
    source = outline_path or "new template"
    try:
        (template,) = Roster.from_json(
            {"dictionary": dictionary, "pieces": [], "terrain": [entry]}, source
        ).templates
    except RosterError as error:
        # Name the place in the file the user wrote (the outline), not in a roster.
        where = "$" if outline_path is None or isinstance(raw, list) else "$.outline"
        where = "--size" if outline_path is None else where
        text = str(error).replace("$.terrain[0].outline", where)
        text = re.sub(r"\$\.terrain\[0\]\.tags\[\d+\]\.tag", "--tag", text)
        text = text.replace(f"{source}: $.terrain[0].", f"{source}: ")
        for field, option in (("id", "--id"), ("terrain", "--kind"), ("tag_size", "--tag-size")):
            text = text.replace(f"{source}: {field}: ", f"{source}: {option}: ")
        raise RosterError(text.removeprefix("new template: ")) from None
    for t in template.tags:
        check_piece_tag(dictionary, t.tag)
    # Before any layout: an 800 x 600 in outline was 11,000 sheets, 55 s and a 28 MB PDF.
    check_template_size(template, outline_path or "--size")
    return template


def _roster_with(path: str, template: TerrainTemplate, dictionary: str) -> Roster:
    """The roster at ``path`` (a new one if there is none) with ``template`` added; refused
    (nothing written) when its id or tags are taken there."""
    from referee.markers.roster import Roster

    if not Path(path).exists():
        return Roster(dictionary, templates=(template,))
    old = load_roster(path)
    if old.dictionary != dictionary:
        raise RosterError(
            f"{path}: the roster's dictionary is {old.dictionary}; give --dictionary "
            f"{old.dictionary}"
        )
    data = old.to_json()
    data["terrain"] = [*data.get("terrain", []), template.to_json()]
    return Roster.from_json(data, path)
