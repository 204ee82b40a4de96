"""What the command modules share: options several commands take, gathered into one value.

A group of options (where the game is logged, the club, the cameras) is declared once,
as a decorator that adds its click options and hands the command one frozen value in
their place, so no command function takes a dozen loose parameters and a new option of
the group reaches every command that takes the group.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def gathered(into: str, make: Callable[..., Any], names: dict[str, str]) -> Callable[[F], F]:
    """A command decorator: the click parameters ``names`` (parameter -> field of ``make``)
    arrive as one keyword ``into`` = ``make(field=value, ...)``. Apply it before (below)
    the click options it gathers, so click still sees each option.

    >>> import dataclasses
    >>> @dataclasses.dataclass(frozen=True)
    ... class Where:
    ...     host: str
    ...     port: int
    >>> @gathered("where", Where, {"host": "host", "port": "port"})
    ... def serve(where, speed):
    ...     return where, speed
    >>> serve(host="0.0.0.0", port=8000, speed=1.0)
    (Where(host='0.0.0.0', port=8000), 1.0)
    """

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def with_value(*args: Any, **kwargs: Any) -> Any:
            kwargs[into] = make(**{field: kwargs.pop(name) for name, field in names.items()})
            return command(*args, **kwargs)

        return with_value  # type: ignore[return-value]  # the same call, one value for many

    return decorate
