"""The compiled loops as the maps call them: numba's machine code, or, while another
process compiles them for this machine, their pure-Python twins.

numba compiles a loop on its first call after installing (about 15 s for the shared LOS
map, half a minute for Papercraft's line search) and holds the GIL while it does, so a
dashboard that has just started would freeze on its first tap, and every other request
with it (issue 42). ``serve`` therefore compiles the loops in a separate process
(:mod:`referee.game.warm`) and, until that process is done, answers with the twins: the
same functions' own Python code, each calling its module's other twins, so the same
arithmetic in the same order on the same float64 values (slower, but a tap on a club
table is well under a second). Every other command compiles in place, as before: a
process uses the twins only after :func:`use_twins`.

Every call of a compiled loop from outside its module goes through :func:`loops`;
no compiled loop calls another module's (numba's cache checks only a function's own
file), so a module's twins are complete on their own.
"""

from __future__ import annotations

import functools
import importlib
import threading
import types
from collections.abc import Callable
from typing import Any

import numpy as np

MODULES = ("base_gaps", "clear_search", "clear_shields", "contacts", "grid_lines")
"""The modules of compiled loops under :mod:`referee.maps`."""

_LOCK = threading.Lock()
_TWINS: set[str] = set()
"""Empty: compiled loops; else the reason the twins are used (a warm-up running)."""


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array``. numba compiles a loop again for each mix of read-only
    and writeable arguments (a kept index array such as
    :func:`referee.maps.pairwise.upper_pairs`' is read-only, a computed one is not), and
    the second compile of the line search costs 13 s on a fresh install; so the maps pass
    the index arrays a loop only reads as read-only views, always."""
    view = array.view()
    view.flags.writeable = False
    return view


def use_twins(reason: str) -> None:
    """From now on answer with the pure-Python twins, until :func:`use_compiled`."""
    with _LOCK:
        _TWINS.add(reason)


def use_compiled(reason: str) -> None:
    """``reason`` for the twins is over (the warm-up process compiled the loops); with no
    other reason left, calls go to the compiled loops again."""
    with _LOCK:
        _TWINS.discard(reason)


def compiled() -> bool:
    """Whether calls go to the compiled loops now."""
    with _LOCK:
        return not _TWINS


def loops(module: str, *names: str) -> tuple[Callable[..., Any], ...]:
    """The loops ``names`` of ``referee.maps.<module>``, compiled or their twins."""
    if compiled():
        found = importlib.import_module(f"referee.maps.{module}")
        return tuple(getattr(found, name) for name in names)
    twins = _twins(module)
    return tuple(_quiet(twins[name]) for name in names)


def loop(module: str, name: str) -> Callable[..., Any]:
    """One loop of ``referee.maps.<module>``, compiled or its twin."""
    return loops(module, name)[0]


def _quiet(twin: Callable[..., Any]) -> Callable[..., Any]:
    """``twin`` with numpy's float warnings off: the loops are compiled with numba's numpy
    error model (a division by zero is an infinity, silently), so their twins are too."""

    @functools.wraps(twin)
    def run(*args: Any, **kwargs: Any) -> Any:
        with np.errstate(all="ignore"):
            return twin(*args, **kwargs)

    return run


@functools.cache
def _twins(module: str) -> dict[str, Any]:
    """The module's namespace with each compiled loop replaced by its own Python code
    bound to that namespace, so a twin's calls reach the other twins, never numba."""
    if module not in MODULES:
        raise ValueError(f"{module} is not a module of compiled loops")
    found = importlib.import_module(f"referee.maps.{module}")
    space = dict(vars(found))
    for name, value in vars(found).items():
        # A compiled loop's own code, or a plain function of the module (which may call
        # the module's loops): both rebound, so nothing here reaches numba.
        python = getattr(value, "py_func", value)
        if isinstance(python, types.FunctionType) and python.__module__ == found.__name__:
            twin = types.FunctionType(
                python.__code__, space, python.__name__, python.__defaults__, python.__closure__
            )
            twin.__kwdefaults__ = python.__kwdefaults__
            twin.__doc__ = python.__doc__
            space[name] = twin
    return space
