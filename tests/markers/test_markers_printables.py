"""The committed printables are exactly what their documented commands produce."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import cli

ROOT = Path(__file__).resolve().parents[2]


def _documented_commands() -> list[tuple[list[str], str]]:
    """(arguments, committed file) for each `referee ... --out FILE` line in the folder READMEs."""
    found = []
    for folder in ("markers", "calibration"):
        for line in (ROOT / folder / "README.md").read_text().splitlines():
            if line.startswith("referee ") and "--out " in line:
                args = shlex.split(line)[1:]
                found.append((args, args[args.index("--out") + 1]))
    return found


COMMANDS = _documented_commands()


def test_every_committed_pdf_has_a_documented_command():
    committed = {
        str(p.relative_to(ROOT))
        for folder in ("markers", "calibration")
        for p in (ROOT / folder).glob("*.pdf")
    }
    assert committed == {target for _, target in COMMANDS}
    assert len(committed) >= 4


@pytest.mark.parametrize(("args", "target"), COMMANDS, ids=[t for _, t in COMMANDS])
def test_committed_pdf_is_reproduced_byte_for_byte(tmp_path, args, target):
    out = tmp_path / Path(target).name
    args = [str(out) if a == target else a for a in args]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == (ROOT / target).read_bytes(), (
        f"{target} is out of date: run `referee {shlex.join(args[:-1])} {target}` "
        "from the repository root and commit it"
    )
