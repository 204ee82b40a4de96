"""The piece selected on the dashboard, shared with every screen (the projector page).

A page's selection was its own; the projector over the table draws the threat view of the
piece the dashboard has selected, so the dashboard posts it (``POST /api/selection``) and
every stream sends it (``selection`` events).
"""

from __future__ import annotations

import threading

from flask import current_app

EXTENSION = "referee.selection"


class Selection:
    """The selected piece (or None) and a count of changes, so a stream sends each once.

    Its lock is a leaf: held only to read or swap the value, never while calling anything."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._piece: str | None = None
        self._version = 0

    def get(self) -> tuple[int, str | None]:
        """(version, piece): the version grows by one at every change."""
        with self._lock:
            return self._version, self._piece

    def put(self, piece: str | None) -> bool:
        """Select ``piece`` (None: nothing); whether that changed the selection."""
        with self._lock:
            if piece == self._piece:
                return False
            self._piece = piece
            self._version += 1
            return True


def get_selection() -> Selection:
    """The app's selection (made with the app: one for every thread)."""
    found = current_app.extensions[EXTENSION]
    assert isinstance(found, Selection)
    return found


__all__ = ["Selection", "get_selection"]
