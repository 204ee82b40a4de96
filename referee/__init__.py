"""Table referee: a camera over a wargames table that settles disputed measurements."""

from __future__ import annotations

__version__ = "0.1.0"
