"""The process settings every `referee` command runs with."""

from __future__ import annotations

import ctypes.util
import subprocess
import sys
from typing import Any

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


def test_main_applies_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    import referee.cli as cli

    called = []
    monkeypatch.setattr(cli, "keep_freed_memory", lambda: called.append("memory"))
    monkeypatch.setattr(cli, "relay_interrupts", lambda: called.append("ctrl-c"))
    monkeypatch.setattr(cli, "tell_when_compiling", lambda: called.append("compiling"))
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--version"])
    assert exit_.value.code == 0 and called == ["memory", "ctrl-c", "compiling"]


def test_compiling_loops_is_said_once_per_module(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from numba import njit

    from referee import runtime

    monkeypatch.setattr(runtime, "_COMPILING", runtime._Compiling())
    named: dict[str, Any] = {"__name__": "loops_under_test"}
    unnamed: dict[str, Any] = {"__name__": "other_loops"}
    source = "def double(x):\n    return 2 * x\ndef triple(x):\n    return 3 * x\n"
    exec(source, named)
    exec(source, unnamed)
    runtime.compiled_loops("loops_under_test", "the test's loops")
    double, triple = njit(named["double"]), njit(named["triple"])
    assert double(2) == 4
    assert capsys.readouterr().err == ""  # a library's use: silent
    runtime.tell_when_compiling()  # as every command does
    assert njit(unnamed["double"])(2) == 4
    assert capsys.readouterr().err == ""  # not a module of named loops
    assert triple(2) == 6
    assert capsys.readouterr().err == (
        "referee: compiling the test's loops for this machine, once after installing"
        " (up to half a minute)\n"
    )
    assert double(2.5) == 5.0  # compiled again, for floats: said once is enough
    assert capsys.readouterr().err == ""


# A module whose loading is interrupted: it sends this process SIGINT, then goes on
# loading for a while, as numpy's compiled modules do when first used (an interrupt
# raised inside them was lost: the command ran on to the end).
_SLOW_MODULE = """
import os, signal, time
os.kill(os.getpid(), signal.SIGINT)
start = time.monotonic()
while time.monotonic() - start < 0.3:
    pass
LOADED = True
"""

_IMPORT_PROBE = """
import signal, sys, time
# Python's own Ctrl-C, as a terminal gives it: a test run in a background job (CI's
# shell with '&') inherits SIGINT ignored, where the relay rightly stays off.
signal.signal(signal.SIGINT, signal.default_int_handler)
from referee.runtime import relay_interrupts
assert relay_interrupts()
sys.path.insert(0, sys.argv[1])
try:
    import slow_module
    start = time.monotonic()
    while time.monotonic() - start < 10:
        pass
    print("not interrupted")
except KeyboardInterrupt:
    loaded = "slow_module" in sys.modules
    print("interrupted after the import" if loaded else "interrupted inside it")
"""


def test_ctrl_c_during_an_import_lands_right_after_it(tmp_path) -> None:
    (tmp_path / "slow_module.py").write_text(_SLOW_MODULE)
    out = subprocess.run(
        [sys.executable, "-c", _IMPORT_PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.stdout.strip() == "interrupted after the import", out.stderr


def test_no_relay_off_the_main_thread_or_where_ctrl_c_is_ignored() -> None:
    import signal
    import threading

    from referee.runtime import relay_interrupts

    got = []
    thread = threading.Thread(target=lambda: got.append(relay_interrupts.__wrapped__()))
    thread.start()
    thread.join()
    assert got == [False]
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        assert relay_interrupts.__wrapped__() is False
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
    # another wakeup pipe (an event loop's) stays as it was
    import os

    read, write = os.pipe()
    os.set_blocking(write, False)
    previous = signal.set_wakeup_fd(write)
    try:
        assert relay_interrupts.__wrapped__() is False
        assert signal.set_wakeup_fd(write) == write
        assert signal.getsignal(signal.SIGINT) is before
    finally:
        signal.set_wakeup_fd(previous)
        os.close(read)
        os.close(write)


def test_shares_run_on_the_pool_in_order_and_may_share_out_their_own_work() -> None:
    """Results come back in the shares' order; a share that itself shares out work runs
    to the end even with every worker busy (it takes back what no worker started);
    a share's error reaches the caller."""
    import threading

    from referee.runtime import in_shares

    seen: set[str] = set()

    def leaf(k: int) -> int:
        seen.add(threading.current_thread().name)
        return k * k

    def branch(k: int) -> list[int]:
        return in_shares([lambda m=m: leaf(10 * k + m) for m in range(3)])

    got = in_shares([lambda k=k: branch(k) for k in range(4)])
    assert got == [[(10 * k + m) ** 2 for m in range(3)] for k in range(4)]
    assert threading.current_thread().name in seen
    assert in_shares([]) == [] and in_shares([lambda: 7]) == [7]

    def fails() -> int:
        raise ValueError("bad share")

    with pytest.raises(ValueError, match="bad share"):
        in_shares([lambda: 1, fails])


def test_strides_take_every_item_once() -> None:
    """``in_strides`` hands share ``k`` of ``n`` the items ``k, k + n, ...``: together
    they take every item once, on one share or several."""
    from referee.runtime import in_strides

    for shares in (1, 3):
        taken = [0] * 10

        def into(start: int, step: int, items: list[int]) -> None:
            for k in range(start, len(items), step):
                items[k] += 1

        in_strides(into, shares, taken)
        assert taken == [1] * 10
