"""The battle report as one self-contained HTML file: inline CSS and inline SVG pictures.

Nothing in it refers outside the file (no scripts, fonts, stylesheets or images to
fetch), so it opens the same offline, mailed or on a club's shared drive. Every move and
every dispute is one element with a ``data-seq`` (its event number in the log): ``li.move``
and ``li.dispute``, so a reader (or a test) can count them against ``referee log export``.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from html import escape
from typing import Any

from referee.picture import to_svg
from referee.report.draw import (
    MARK_COLOURS,
    MARK_WORDS,
    VERDICT_WORDS,
    distance_text,
    turn_picture,
    verdict_mark,
)
from referee.report.model import BattleReport, Dispute, MoveEntry, Turn

STYLE = """
body{font-family:sans-serif;background:#181a1b;color:#f0f0f0;margin:0 auto;max-width:1000px;
padding:1em 1.5em;line-height:1.4}
h1,h2,h3{color:#ffd24a;font-weight:600}h2{border-bottom:1px solid #444;padding-bottom:.2em}
table.facts td{padding:.1em .8em .1em 0;vertical-align:top}table.facts td:first-child{color:#a8b0b4}
figure{margin:.5em 0}figure svg{width:100%;height:auto;display:block}
figcaption{color:#a8b0b4;font-size:.9em}
ul.moves,ul.disputes,ul.fixes,ul.casualties{padding-left:1.2em}
li{margin:.25em 0}.mark{display:inline-block;min-width:1em;height:1em;border-radius:.2em;
vertical-align:middle;margin-right:.4em}.why{color:#a8b0b4;font-size:.92em;margin:.1em 0 .1em 1.5em}
.evidence{display:flex;flex-wrap:wrap;gap:.5em;margin:.3em 0 .3em 1.5em}
.evidence figure{margin:0}.evidence img{max-width:320px;max-height:240px;display:block}
.none{color:#a8b0b4}.seq{color:#a8b0b4;font-variant-numeric:tabular-nums}
"""


def _t(seconds: float) -> str:
    """``1:02:03.4`` / ``2:03.4``: game time as players read a clock."""
    whole = max(seconds, 0.0)
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{int(h)}:{int(m):02d}:{s:04.1f}" if h else f"{int(m)}:{s:04.1f}"


def _pose(pose: Mapping[str, float] | None) -> str:
    if pose is None:
        return "(unknown)"
    return f"({pose['x']:.2f}, {pose['y']:.2f}) facing {pose['heading']:.0f}"


def svg_inline(svg: str, key: str) -> str:
    """A standalone SVG made fit to sit inline among others: its element ids (the clip
    paths ``table`` and ``cloth``) prefixed with ``key``, so each picture clips by its own,
    and no namespace address (inline SVG in HTML needs none; the file names no URL).

    >>> svg_inline('<clipPath id="table"/><g clip-path="url(#table)">', "t3")
    '<clipPath id="t3-table"/><g clip-path="url(#t3-table)">'
    """
    svg = svg.replace(' xmlns="http://www.w3.org/2000/svg"', "", 1)  # inline: HTML's own
    svg = re.sub(r'id="([\w-]+)"', lambda m: f'id="{key}-{m.group(1)}"', svg)
    return re.sub(r"url\(#([\w-]+)\)", lambda m: f"url(#{key}-{m.group(1)})", svg)


def _picture(svg: str, key: str, caption: str, turn: int) -> str:
    body = svg_inline(svg, key).replace(
        "<svg ", f'<svg class="table-picture" data-turn="{turn}" ', 1
    )
    return f"<figure>{body}<figcaption>{escape(caption)}</figcaption></figure>"


def _verdict_line(verdict: Mapping[str, Any]) -> str:
    mark = verdict_mark(verdict)
    word = VERDICT_WORDS[mark]
    summary = verdict.get("summary") or verdict.get("ask")
    colour = MARK_COLOURS[mark]
    raw = verdict.get("reasons")
    reasons = raw if isinstance(raw, list) else []
    why = "".join(f'<div class="why">{escape(str(r))}</div>' for r in reasons)
    return (
        f'<span class="mark" style="background:{colour}"></span>'
        f"{escape(str(verdict.get('ask')))}: <b>{word}</b> {escape(str(summary))}{why}"
    )


def _move(move: MoveEntry) -> str:
    colour = MARK_COLOURS.get(move.mark, MARK_COLOURS["none"])
    fixed = ""
    if move.corrected_by is not None:
        fixed = (
            f" <i>corrected by #{move.corrected_by}: "
            + (
                "did not happen"
                if move.mark == "void"
                else f"came to rest at {escape(_pose(move.end))} (the camera saw "
                f"{escape(_pose(move.logged_end))})"
            )
            + "</i>"
        )
    notes = "".join(f'<div class="why">{escape(n)}</div>' for n in move.notes)
    verdicts = "".join(f'<div class="why">{_verdict_line(v)}</div>' for v in move.verdicts)
    return (
        f'<li class="move" data-seq="{move.seq}" data-piece="{escape(move.piece)}" '
        f'data-verdict="{move.mark}" data-distance="{move.distance}">'
        f'<span class="mark" style="background:{colour}"></span>'
        f'<span class="seq">{_t(move.t)} #{move.seq}</span> <b>{escape(move.piece)}</b>'
        f" moved <b>{distance_text(move)}</b> from {escape(_pose(move.start))} to "
        f"{escape(_pose(move.logged_end))}: {MARK_WORDS.get(move.mark, move.mark)}{fixed}"
        f"{verdicts}{notes}</li>"
    )


def _dispute(d: Dispute) -> str:
    again = f" (asked again after correction #{d.after_correction})" if d.after_correction else ""
    turn = f"turn {d.turn}" if d.turn else "before the first move"
    return (
        f'<li class="dispute" data-seq="{d.seq}" data-ask="{escape(d.ask)}">'
        f'<span class="seq">{_t(d.t)} #{d.seq}, {turn}</span>{again} {_verdict_line(d.verdict)}'
        f"{_evidence(d)}</li>"
    )


EVIDENCE_CAPTIONS = {"camera": "what the camera saw", "top": "seen from above"}


def _evidence(d: Dispute) -> str:
    """The dispute's pictures inline as ``data:`` URIs (the file fetches nothing); each
    damaged one a note in its place."""
    figures = "".join(
        f'<figure><img class="evidence-picture" data-seq="{d.seq}" data-kind="{escape(p.kind)}" '
        f'alt="{escape(p.kind)} evidence of #{d.seq}" '
        f'src="data:image/jpeg;base64,{base64.b64encode(p.data).decode("ascii")}">'
        f"<figcaption>{escape(EVIDENCE_CAPTIONS.get(p.kind, p.kind))}</figcaption></figure>"
        for p in d.evidence
    )
    notes = "".join(
        f'<div class="why none evidence-note">{escape(n)}</div>' for n in d.evidence_notes
    )
    if not figures and not notes:
        return '<div class="why none">evidence: none stored with this ruling</div>'
    return (f'<div class="evidence">{figures}</div>' if figures else "") + notes


def _turn(turn: Turn) -> str:
    who = ", ".join(turn.sides) or "unknown side"
    head = (
        f'<section class="turn" data-turn="{turn.number}"><h2>Turn {turn.number}: {escape(who)}'
        f" ({_t(turn.start_t)} to {_t(turn.end_t)})</h2>"
    )
    svg = to_svg(turn_picture(turn.scene, turn.moves, turn.off))
    picture = _picture(
        svg, f"turn{turn.number}", f"The table after turn {turn.number}", turn.number
    )
    moves = "".join(_move(m) for m in turn.moves)
    off = "".join(
        f"<li>{escape(c.piece)} carried off ({escape(c.reason or 'no reason logged')})</li>"
        for c in turn.off
    )
    return head + picture + f'<ul class="moves">{moves}{off}</ul></section>'


def to_html(report: BattleReport) -> str:
    """The whole report as one HTML document."""
    sides = "".join(
        f"<tr><td>{escape(side or 'no side')}</td><td>{escape(', '.join(ids))}</td></tr>"
        for side, ids in report.sides
    )
    width, depth = report.table
    facts = [
        ("Game", report.game),
        ("Started", report.created),
        ("System", f"{report.title} ({report.ruleset})"),
        ("Table", f"{width:g} x {depth:g} in"),
        ("Length", f"{_t(report.duration)} of play, {report.events} events logged"),
        (
            "Counts",
            f"{len(report.moves)} moves in {len(report.turns)} turns, {len(report.disputes)} "
            f"disputes, {len(report.corrections)} corrections, {len(report.casualties)} "
            f"casualties, {len(report.arrivals)} reinforcements",
        ),
    ]
    rows = "".join(f"<tr><td>{k}</td><td>{escape(v)}</td></tr>" for k, v in facts)
    start_svg = to_svg(turn_picture(report.start, ()))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Battle report: {escape(report.game)}</title><style>{STYLE}</style></head><body>",
        f"<h1>Battle report: {escape(report.game)}</h1>",
        f'<table class="facts">{rows}</table>',
        f'<h3>Sides</h3><table class="facts">{sides}</table>',
        '<section class="turn" data-turn="0"><h2>The table at the start</h2>',
        _picture(start_svg, "start", "Before the first move", 0),
        "</section>",
    ]
    parts.extend(_turn(t) for t in report.turns)
    if not report.turns:
        parts.append('<p class="none">No moves logged.</p>')
    parts.append("<h2>Disputes</h2>")
    if report.disputes:
        parts.append('<ul class="disputes">' + "".join(_dispute(d) for d in report.disputes))
        parts.append("</ul>")
    else:
        parts.append('<p class="none">No questions asked.</p>')
    parts.append(_corrections(report))
    parts.append(_casualties(report))
    parts.append(_result(report))
    parts.append(
        f'<p class="none">A turn here is a burst of moves: a new one begins when another '
        f"side moves or after a pause of {report.pause:g} s or more between moves "
        "(<code>referee log report --pause</code>). Made by <code>referee log report</code> "
        "from the game log alone.</p></body></html>"
    )
    return "\n".join(parts) + "\n"


def _corrections(report: BattleReport) -> str:
    if not report.corrections:
        return '<h2>Corrections</h2><p class="none">No corrections.</p>'
    items = []
    for c in report.corrections:
        value = "did not happen" if c.void else f"came to rest at {_pose(c.to)}"
        if not c.void and c.to is None:
            value = "put back on the table"
        again = "".join(f'<div class="why">{_verdict_line(v)}</div>' for v in c.verdicts)
        items.append(
            f'<li class="correction" data-seq="{c.seq}" data-supersedes="{c.supersedes}">'
            f'<span class="seq">{_t(c.t)} #{c.seq}</span> supersedes {escape(c.superseded)}: '
            f"<b>{escape(value)}</b>"
            + (f" ({escape(c.reason)})" if c.reason else "")
            + f"{again}</li>"
        )
    return '<h2>Corrections</h2><ul class="fixes">' + "".join(items) + "</ul>"


def _casualties(report: BattleReport) -> str:
    out = ["<h2>Casualties and reinforcements</h2>"]
    if not report.casualties and not report.arrivals:
        out.append('<p class="none">None logged.</p>')
        return "".join(out)
    items = []
    for c in report.casualties:
        edge = f", off the {c.edge} edge" if c.edge else ""
        undone = f" <i>(back on the table from #{c.undone_by})</i>" if c.undone_by else ""
        items.append(
            f'<li class="casualty" data-seq="{c.seq}"><span class="seq">{_t(c.t)} #{c.seq}</span>'
            f" <b>{escape(c.piece)}</b> ({escape(c.side or '?')}) removed at "
            f"{escape(_pose(c.at))}{edge}: {escape(c.reason or 'no reason logged')}{undone}</li>"
        )
    for a in report.arrivals:
        verdict = f'<div class="why">{_verdict_line(a.verdict)}</div>' if a.verdict else ""
        items.append(
            f'<li class="arrival" data-seq="{a.seq}"><span class="seq">{_t(a.t)} #{a.seq}</span>'
            f" <b>{escape(a.piece)}</b> ({escape(a.side or '?')}) entered at "
            f"{escape(_pose(a.at))}{verdict}</li>"
        )
    out.append('<ul class="casualties">' + "".join(items) + "</ul>")
    return "".join(out)


def _result(report: BattleReport) -> str:
    if report.result is None:
        return f'<h2>Result</h2><p class="result none">{escape(report.result_note)}</p>'
    if report.result.source == "logged":
        where = f'<div class="why none">(logged at #{report.result.seq})</div>'
        line = _verdict_line(report.result.verdict)
        return f'<h2>Result</h2><div class="result">{line}{where}</div>'
    return (
        '<h2>Result</h2><div class="result"><p class="none">No result logged. The rules\' '
        "victory question, asked of the table at the last event:</p>"
        f"{_verdict_line(report.result.verdict)}</div>"
    )
