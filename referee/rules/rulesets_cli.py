"""``referee rulesets [NAME] [--json]``: every game system the referee serves.

For each system: its name and aliases (what a scene file's ``"ruleset"``, the
dashboard and ``referee check`` accept), the questions it answers, the piece
kinds it knows, its own piece fields, and every convention with its default
and how to switch it.
"""

from __future__ import annotations

import json
from typing import Any

import click

from referee.errors import RefereeError
from referee.rules.base import Ruleset
from referee.rules.registry import RULESETS, find_ruleset_class


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
        classes = list(RULESETS)
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
