"""Process settings every ``referee`` command runs with.

The rules and vision stages work in numpy temporaries of a few megabytes. glibc's
allocator hands such blocks back to the kernel when they are freed (``mmap`` above a
threshold, heap trimming above another), so the next call takes every page afresh: a
page fault and a zeroed page each time. On a 400-piece table that was a third of the
all-pairs LOS time (``benchmarks/README.md``, "rules"). Keeping freed memory for reuse,
up to a bounded amount, removes it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20
"""Blocks below this come from the reusable heap (glibc's largest allowed value)."""
TRIM_THRESHOLD = 256 << 20
"""Free heap kept for reuse before any is returned to the kernel."""


@functools.cache
def keep_freed_memory() -> bool:
    """Ask glibc's allocator to keep freed blocks for reuse (once per process). False
    where the C library is not glibc: nothing is changed there."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(
        mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
