"""``referee check SCENE.json [--json]``: answer every question in a scene file."""

from __future__ import annotations

import json
from pathlib import Path

import click

from referee.errors import MAX_DEPTH, SceneError, json_depth, parse_json
from referee.rules.registry import ruleset_for
from referee.rules.values import Verdict
from referee.scene import load_scene

EXAMPLE = Path(__file__).resolve().parent.parent / "data" / "examples" / "skirmish.json"


def describe(verdict: Verdict) -> str:
    """One readable line per verdict, e.g. ``range t34 -> sq1: 4.50in, in range (limit 12")``."""
    return verdict.summary or f"{verdict.ask}: {verdict.ok}"


@click.command()
@click.argument("scene", type=click.Path(dir_okay=False, path_type=Path), required=False)
@click.option("--json", "as_json", is_flag=True, help='Print {"verdicts": [...]} as JSON.')
@click.option("--why/--no-why", default=True, help="Print the reasons under each verdict.")
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="NAME=VALUE",
    help="Override a ruleset setting, e.g. --set follow_distance=centre (JSON values).",
)
@click.option("--picture", metavar="OUT.png|OUT.svg", help="Also draw the table and verdicts.")
def check(
    scene: Path | None, as_json: bool, why: bool, overrides: tuple[str, ...], picture: str | None
) -> None:
    """Answer every query of SCENE (a scene file) in order.

    Without SCENE, uses the bundled example skirmish. Exit code 0 when the file
    was read and answered (whatever the verdicts), 2 for a bad file.
    """
    path = scene if scene is not None else EXAMPLE
    loaded = load_scene(path)
    settings = {}
    for item in overrides:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise SceneError(f"--set {item!r}: write NAME=VALUE, e.g. follow_distance=centre")
        try:
            settings[name.strip()] = parse_json(value, f"--set {name.strip()}", SceneError)
        except SceneError:
            if json_depth(value) > MAX_DEPTH:
                raise
            settings[name.strip()] = value  # not JSON: the word itself (follow_distance=centre)
    try:
        ruleset = ruleset_for(loaded, **settings)
    except SceneError:
        raise
    except (TypeError, ValueError) as error:
        raise SceneError(f"--set: {error}") from None
    verdicts = ruleset.answer_all(loaded, str(path))
    if picture is not None:
        from referee.picture import draw, save

        save(draw(loaded, [v.to_json() for v in verdicts]), picture)
    if as_json:
        click.echo(json.dumps({"verdicts": [v.to_json() for v in verdicts]}, indent=2))
        return
    if not verdicts:
        click.echo(f"{path}: no queries to answer")
    for verdict in verdicts:
        mark = {True: "ok", False: "NO", None: "??"}[verdict.ok]
        click.echo(f"[{mark}] {describe(verdict)}")
        if why:
            for reason in verdict.reasons:
                click.echo(f"       - {reason}")
