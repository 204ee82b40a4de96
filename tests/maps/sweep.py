"""Sweeps over many random tables, split between the default run and the slow one."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest


def sweep(values: Iterable[Any], fast: int) -> list[Any]:
    """``values`` as pytest parameters: the first ``fast`` in the README's test command,
    the others marked ``slow`` (``.ci/run`` runs them after it), so no table is dropped
    and every kernel is still exercised by the default run."""
    return [
        value if k < fast else pytest.param(value, marks=pytest.mark.slow)
        for k, value in enumerate(values)
    ]
