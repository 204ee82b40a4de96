"""Process settings every ``referee`` command runs with: freed memory kept for reuse,
a Ctrl-C that always stops the command, the cores compiled work is shared among, and a
word on stderr while compiled loops compile.

The rules and vision stages work in numpy temporaries of a few megabytes. glibc's
allocator hands such blocks back to the kernel when they are freed (``mmap`` above a
threshold, heap trimming above another), so the next call takes every page afresh: a
page fault and a zeroed page each time. On a 400-piece table that was a third of the
all-pairs LOS time (``benchmarks/README.md``, "rules"). Keeping freed memory for reuse,
up to a bounded amount, removes it.

The all-pairs maps' compiled loops release the GIL, so their biggest stages share their
work among the cores in threads (:func:`in_shares`): Papercraft's shields and pairs,
Divisional's sides, the base-edge distance table's rows.
"""

from __future__ import annotations

import concurrent.futures
import ctypes
import functools
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, TextIO, TypeVar

T = TypeVar("T")

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20
"""Blocks below this come from the reusable heap (glibc's largest allowed value)."""
TRIM_THRESHOLD = 256 << 20
"""Free heap kept for reuse before any is returned to the kernel."""


CORES = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else range(os.cpu_count() or 1)
"""The cores this process may run on: compiled stages that release the GIL share their
work among them (:func:`in_shares`)."""


@functools.cache
def _worker_pool() -> concurrent.futures.ThreadPoolExecutor:
    """The threads that take the other shares of such work, made on first use: the
    calling thread always takes a share itself, so one fewer than the cores."""
    workers = max(len(CORES) - 1, 1)
    return concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="referee-share")


def in_shares(shares: Sequence[Callable[[], T]]) -> list[T]:
    """Each of ``shares`` run, the first in this thread and the others on the
    :func:`_worker_pool`, their results in order. A share the pool has not started by
    the time this thread is done with its own runs here too, so a share may share out
    its own work in turn (a side's map, that map's distance table) without waiting on a
    queue that only it could empty."""
    jobs = [_worker_pool().submit(share) for share in shares[1:]]
    results = [shares[0]()] if shares else []
    for job, share in zip(jobs, shares[1:], strict=True):
        results.append(share() if job.cancel() else job.result())
    return results


def in_strides(into: Callable[..., object], shares: int, *args: object) -> None:
    """``into(k, shares, *args)`` for each share ``k`` (a compiled loop taking every
    ``shares``-th item from item ``k``), side by side by :func:`in_shares`; in this
    thread alone for one share."""
    if shares < 2:
        into(0, 1, *args)
    else:
        in_shares([functools.partial(into, k, shares, *args) for k in range(shares)])


@dataclass
class _Compiling:
    """What the user is told of compiled loops being compiled: whether to say so (the
    command line's choice, not a library's), each module's loops by name, and the
    modules already announced in this process."""

    tell: bool = False
    names: dict[str, str] = field(default_factory=dict)
    told: set[str] = field(default_factory=set)
    depth: int = 0


_COMPILING = _Compiling()


def compiled_loops(module: str, what: str) -> None:
    """Called by each module of compiled loops (numba) as it loads: ``what`` names its
    loops to the user when they compile (:func:`tell_when_compiling`)."""
    _COMPILING.names[module] = what
    if _COMPILING.tell:
        _listen_for_compiling()


def tell_when_compiling() -> None:
    """Say on stderr when a module's loops start compiling: the first use after
    installing compiles them for this machine, up to half a minute of silence otherwise
    (then they load from numba's cache in under a second, and nothing is said)."""
    _COMPILING.tell = True
    if _COMPILING.names:
        _listen_for_compiling()


@functools.cache
def _listen_for_compiling() -> None:
    # numba is imported only once a module of compiled loops has loaded it.
    from numba.core import event

    class Notice(event.Listener):
        """numba's compile events, nested as a loop compiles the helpers it calls: the
        outermost of a named module's first is announced."""

        def on_start(self, ev: event.Event) -> None:
            _COMPILING.depth += 1
            module = ev.data["dispatcher"].py_func.__module__
            what = _COMPILING.names.get(module)
            first = what is not None and module not in _COMPILING.told
            if _COMPILING.tell and _COMPILING.depth == 1 and first:
                _COMPILING.told.add(module)
                print(
                    f"referee: compiling {what} for this machine, once after installing"
                    " (up to half a minute)",
                    file=sys.stderr,
                    flush=True,
                )

        def on_end(self, ev: event.Event) -> None:
            _COMPILING.depth -= 1

    event.register("numba:compile", Notice())


@functools.cache
def keep_freed_memory() -> bool:
    """Ask glibc's allocator to keep freed blocks for reuse (once per process). False
    where the C library is not glibc: nothing is changed there."""
    try:  # the C library already loaded: no search for it (that runs a subprocess)
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(
        mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )


@dataclass
class _Interrupts:
    """A Ctrl-C held back until the main thread is out of an import."""

    deferred: bool = False


_INTERRUPTS = _Interrupts()


_DECIDING = threading.RLock()
"""Held while the handler decides and while the relay resends: no second interrupt."""


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    with _DECIDING:
        _INTERRUPTS.deferred = _importing(frame)
    if _INTERRUPTS.deferred:
        return  # the relay sends it again in a moment
    raise KeyboardInterrupt


def _importing(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


@functools.cache
def relay_interrupts() -> bool:
    """Make sure a Ctrl-C stops the command, even one pressed while a module loads.

    A KeyboardInterrupt raised inside an import can vanish: numpy loads ``numpy.random``
    on first use, and an interrupt raised while its compiled modules initialise is lost,
    so the command ran on to the end (or died of the signal after it). So a Ctrl-C that
    lands in an import is held back; every signal also writes its number to a wakeup
    pipe, and a relay thread sends the held one again to the main thread until it lands
    outside any import. Called once, from the main thread; False (nothing changed)
    elsewhere, where SIGINT is not Python's default (a background job ignores it), or
    where another wakeup pipe is in place."""
    if not hasattr(signal, "pthread_kill"):  # Windows: no signals to threads, no pipes
        return False
    if threading.current_thread() is not threading.main_thread():
        return False
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return False
    read, write = os.pipe()
    os.set_blocking(write, False)
    theirs = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    if theirs != -1:
        signal.set_wakeup_fd(theirs)  # someone else's pipe: put it back, change nothing
        os.close(read)
        os.close(write)
        return False
    signal.signal(signal.SIGINT, _on_sigint)
    main = threading.main_thread().ident
    assert main is not None
    relay = threading.Thread(target=_relay, args=(read, main), name="referee-ctrl-c", daemon=True)
    relay.start()
    return True


def _relay(read: int, main: int) -> None:
    while data := os.read(read, 64):
        if signal.SIGINT not in data:
            continue
        time.sleep(0.02)
        while signal.getsignal(signal.SIGINT) is _on_sigint:
            with _DECIDING:
                if not _INTERRUPTS.deferred:
                    break
                signal.pthread_kill(main, signal.SIGINT)
            time.sleep(0.02)


class StageLines:
    """What a progress bar becomes when stderr is not a terminal (a pipe, a log file, CI):
    one plain line per stage as it ends, never the ``\\r`` redraws a bar is made of.

    Takes the part of tqdm's interface the commands use, so a command holds either."""

    def __init__(
        self,
        iterable: Iterable[Any] | None = None,
        total: int | None = None,
        desc: str = "",
        unit: str = "it",
        file: TextIO | None = None,
    ) -> None:
        self.iterable = iterable
        self.total = total
        self.desc = desc
        self.unit = unit.strip()
        self.n = 0
        self.postfix = ""
        self.file = file
        self._closed = False

    def __iter__(self) -> Iterator[Any]:
        assert self.iterable is not None
        try:
            for item in self.iterable:
                yield item
                self.n += 1
        finally:
            self.close()

    def __enter__(self) -> StageLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def update(self, n: int = 1) -> None:
        self.n += n

    def set_description(self, desc: str, refresh: bool = True) -> None:
        if desc != self.desc:
            self._say()
            self.desc, self.n, self.postfix = desc, 0, ""

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        self.postfix = text

    def write(self, text: str, file: TextIO | None = None) -> None:
        print(text, file=file or self.file or sys.stderr, flush=True)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._say()

    def _say(self) -> None:
        if not self.n and not self.postfix:
            return  # a stage that did nothing is not worth a line
        of = f"/{self.total}" if self.total is not None else ""
        postfix = f" ({self.postfix})" if self.postfix else ""
        # "287/287 frames", "1 image": the unit is given singular, as tqdm takes it.
        count = self.n if self.total is None else self.total
        unit = f"{self.unit}s" if self.unit and count != 1 else self.unit
        line = f"{self.desc or 'progress'}: {self.n}{of} {unit}{postfix}".rstrip()
        print(line, file=self.file or sys.stderr, flush=True)


def progress(
    iterable: Iterable[Any] | None = None,
    *,
    total: int | None = None,
    desc: str = "",
    unit: str = "it",
    enabled: bool = True,
    file: TextIO | None = None,
) -> Any:
    """A tqdm progress bar on a terminal; on a pipe or file, :class:`StageLines` (one line
    per stage); with ``enabled`` False, a silent one. Either is used the same way."""
    from tqdm import tqdm

    stream = file or sys.stderr
    if not enabled:
        return tqdm(iterable, total=total, disable=True)
    if not _is_terminal(stream):
        return StageLines(iterable, total, desc, unit, stream)
    return tqdm(iterable, total=total, desc=desc, unit=unit, file=stream, leave=False)


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
