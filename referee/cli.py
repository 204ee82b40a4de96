"""The ``referee`` command.

Subcommands live beside the stage they drive (``referee/<area>/cli.py``) and
are imported only when called, so ``referee check`` never pays for OpenCV.
Any :class:`~referee.errors.RefereeError` becomes one line on stderr and exit
code 2; Ctrl-C exits 130.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from referee import __version__
from referee.errors import RefereeError
from referee.runtime import keep_freed_memory, relay_interrupts, tell_when_compiling

#: command name -> "module:attribute" of its click command.
COMMANDS: dict[str, str] = {
    "check": "referee.rules.cli:check",
    "rulesets": "referee.rules.cli:rulesets",
    "markers": "referee.markers.cli:markers",
    "cards": "referee.markers.cli:cards",
    "roster": "referee.markers.cli:roster",
    "board": "referee.markers.cli:board",
    "calibrate": "referee.calibration.cli:calibrate",
    "simulate": "referee.sim.cli:simulate",
    "track": "referee.game.cli:track",
    "run": "referee.game.cli:run",
    "log": "referee.store.cli:log",
    "club": "referee.club.cli:club",
    "detect": "referee.vision.cli:detect",
    "demo": "referee.game.cli:demo",
    "serve": "referee.web.cli:serve",
}


#: Longest error line printed: a value quoted from a huge file must not flood the terminal.
MAX_MESSAGE = 1000


def readable(message: str) -> str:
    """One line of at most :data:`MAX_MESSAGE` characters, keeping its start and its end.

    Its start names the file and JSON path, its end says what to do.

    >>> len(readable("a: " + "x" * 5000 + "; do this"))
    1000
    >>> readable("a: " + "x" * 5000 + "; do this").endswith("; do this")
    True
    """
    message = " ".join(message.splitlines())
    if len(message) <= MAX_MESSAGE:
        return message
    cut = " [...] "
    head = (MAX_MESSAGE - len(cut)) * 2 // 3
    tail = MAX_MESSAGE - len(cut) - head
    return message[:head] + cut + message[-tail:]


class LazyGroup(click.Group):
    """A group whose commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        command = getattr(importlib.import_module(module_name), attr)
        assert isinstance(command, click.Command), target
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except RefereeError as error:
            click.echo(f"referee: error: {readable(str(error))}", err=True)
            ctx.exit(2)
        except click.UsageError as error:
            # click's three-line usage block becomes the promised single line.
            where = error.ctx.command_path if error.ctx is not None else "referee"
            problem = error.format_message().rstrip(".")
            click.echo(f"referee: error: {readable(problem)}; see '{where} --help'", err=True)
            ctx.exit(2)
        except KeyboardInterrupt:
            # Ctrl-C is the user's choice, not a failure of ours: the shell's 130, no traceback.
            # Every output is written beside its target and renamed, so none is half written.
            click.echo("referee: interrupted", err=True)
            ctx.exit(130)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="referee")
def cli() -> None:
    """Settle wargames measurements with a camera over the table."""


def main(argv: list[str] | None = None) -> None:
    keep_freed_memory()
    relay_interrupts()
    tell_when_compiling()
    cli.main(args=argv if argv is not None else sys.argv[1:], prog_name="referee")
