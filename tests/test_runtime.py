"""The process settings every `referee` command runs with."""

from __future__ import annotations

import ctypes.util
import subprocess
import sys

import pytest

GLIBC = sys.platform.startswith("linux") and ctypes.util.find_library("c") is not None

# A fresh interpreter: the setting is process-wide and this suite's own allocations
# must not decide the count. Prints the page faults of re-making 4 MB temporaries, a few
# alive at once, as the LOS stages do: glibc returns the freed heap top to the kernel.
_PROBE = """
import resource, sys
import numpy as np
if sys.argv[1] == "keep":
    from referee.runtime import keep_freed_memory
    assert keep_freed_memory()
def work():
    a = np.ones(1 << 19)  # 4 MB, above glibc's default mmap threshold
    b = a * 2
    c = a + b
    return float(c.sum())
work()
f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    work()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
"""


def _faults(mode: str) -> int:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, mode], capture_output=True, text=True, check=True
    )
    return int(out.stdout)


@pytest.mark.skipif(not GLIBC, reason="the setting is glibc's")
def test_freed_temporaries_are_reused_not_faulted_in_again() -> None:
    assert _faults("default") >= 20 * 1000  # freed blocks faulted in afresh
    assert _faults("keep") < 100


def test_main_applies_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    import referee.cli as cli

    called = []
    monkeypatch.setattr(cli, "keep_freed_memory", lambda: called.append(True))
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--version"])
    assert exit_.value.code == 0 and called == [True]
