"""The `referee` command itself: help, and one-line errors with exit code 2."""

from __future__ import annotations

import inspect

import click
from click.testing import CliRunner

from referee.cli import COMMANDS, cli


def test_help_lists_every_command():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert name in result.output


def test_unknown_command_is_a_usage_error():
    result = CliRunner().invoke(cli, ["frobnicate"])
    assert result.exit_code == 2


def _commands(group: click.Group, prefix: str = "referee") -> list[tuple[str, click.Command]]:
    """Every command and subcommand (the top level loads its commands lazily)."""
    context = click.Context(group)
    found: list[tuple[str, click.Command]] = []
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None, name
        found.append((f"{prefix} {name}", command))
        if isinstance(command, click.Group):
            found += _commands(command, f"{prefix} {name}")
    return found


def test_no_command_function_takes_more_than_eight_parameters():
    """Options several commands share (or that belong together) arrive as one value
    (``referee.commands.gathered``), so a command reads as what it does."""
    wide = {
        name: len(inspect.signature(command.callback).parameters)
        for name, command in _commands(cli)
        if command.callback is not None
    }
    assert len(wide) >= len(COMMANDS)
    assert {n: k for n, k in wide.items() if k > 8} == {}
