"""The `referee` command itself: help, and one-line errors with exit code 2."""

from __future__ import annotations

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
