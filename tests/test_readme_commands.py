"""The README's first lines are the two commands a newcomer runs, and CI runs the second
one verbatim (so "the tests pass" in the README means what CI proved)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_the_readme_opens_with_two_commands_a_demo_and_the_tests() -> None:
    demo, tests = _readme_commands()
    assert demo.startswith("python3 -m venv .venv && ") and demo.endswith("referee demo")
    assert tests.startswith("python3 -m venv .venv && ") and tests.endswith(".venv/bin/pytest")


def test_ci_runs_the_readmes_test_command_verbatim() -> None:
    _, tests = _readme_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests in ci
