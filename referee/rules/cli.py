"""The rules' commands: ``referee check SCENE.json [--json]`` answers every question in a
scene file; ``referee rulesets [NAME] [--json]`` lists every game system the referee
serves (for each: its name and aliases, what a scene file's ``"ruleset"``, the
dashboard and ``referee check`` accept; the questions it answers, the piece kinds it
knows, its own piece fields, and every convention with its default and how to switch
it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from referee.errors import MAX_DEPTH, RefereeError, SceneError, json_depth, parse_json
from referee.rules import registry
from referee.rules.base import Ruleset
from referee.rules.registry import find_ruleset_class, ruleset_for
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


def describe_ruleset(cls: type[Ruleset]) -> dict[str, Any]:
    """What ``referee rulesets --json`` prints for one system."""
    return {
        "name": cls.name,
        "title": cls.title,
        "aliases": list(cls.aliases),
        "source": cls.source,
        "questions": list(cls.questions()),
        "kinds": sorted(cls.kinds),
        "piece_fields": [
            {"name": f.name, "type": f.type, "default": f.default, "doc": f.doc}
            for f in cls.piece_fields
        ],
        "conventions": [
            {"setting": name, "default": _plain(default), "doc": doc}
            for name, default, doc in cls.conventions()
        ],
    }


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


@click.command()
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def rulesets(name: str | None, as_json: bool) -> None:
    """List every game system (or only NAME): aliases, questions, kinds, conventions.

    Switch a convention in a scene file with "settings": {"NAME": VALUE} or on
    the command line with referee check --set NAME=VALUE.
    """
    if name is not None:
        try:
            classes = [find_ruleset_class(name)]
        except ValueError as error:
            raise RefereeError(f"rulesets: {error}") from None
    else:
        classes = list(registry.rulesets())
    data = [describe_ruleset(cls) for cls in classes]
    if as_json:
        click.echo(json.dumps({"rulesets": data}, indent=2))
        return
    for entry in data:
        click.echo(f"{entry['name']}: {entry['title']}")
        click.echo(f"  aliases: {', '.join(entry['aliases']) or '-'}")
        click.echo(f"  questions: {', '.join(entry['questions'])}")
        click.echo(f"  piece kinds: {', '.join(entry['kinds']) or 'any'}")
        if entry["piece_fields"]:
            fields = ", ".join(
                f"{f['name']} ({f['type']}, default {json.dumps(f['default'])})"
                for f in entry["piece_fields"]
            )
            click.echo(f"  piece fields: {fields}")
        click.echo('  conventions (switch: "settings": {...} or --set NAME=VALUE):')
        for conv in entry["conventions"]:
            doc = f": {conv['doc']}" if conv["doc"] else ""
            click.echo(f"    {conv['setting']} = {json.dumps(conv['default'])}{doc}")
        click.echo("")
