"""Publication: the session's updates handed to its subscribers, in order, with no lock held.

A :class:`Publication` takes no lock of its own: it runs under the lock of the session
that owns it (passed in), so the session's lock order stays the one documented there:
that lock is held while a change is made and its updates queued, and released before any
subscriber is called (a subscriber may take its own lock or call back into the session).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from referee.game.updates import Ruling, SessionUpdate, Subscriber
from referee.rules import Verdict


class Publication:
    """Subscribers, the updates queued for them, and the verdicts of the change in progress."""

    def __init__(self, lock: threading.RLock) -> None:
        self._lock = lock
        """The owning session's lock (re-entrant): every field below is guarded by it."""
        self._subscribers: list[Subscriber] = []
        self._outbox: deque[SessionUpdate] = deque()
        """Updates logged but not yet handed to the subscribers, oldest first."""
        self._fresh: list[tuple[int | None, Verdict]] = []
        """Verdicts made by the change in progress (what they judge, the verdict): the
        update carries these values, not their logged JSON read back."""
        self._delivering = False
        self._depth = 0
        """How deep this thread is in :meth:`changing` (the lock is re-entrant)."""

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Call ``subscriber`` with every update published from now; returns an unsubscribe."""
        with self._lock:
            self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            with self._lock:
                if subscriber in self._subscribers:
                    self._subscribers.remove(subscriber)

        return unsubscribe

    def made(self, about: int | None, verdict: Verdict) -> None:
        """A verdict of the change in progress (``about`` the event it judges, if any)."""
        self._fresh.append((about, verdict))

    def made_so_far(self) -> list[tuple[int | None, Verdict]]:
        """The change's verdicts so far (a change undone puts them back with :meth:`undo`)."""
        return list(self._fresh)

    def undo(self, fresh: Sequence[tuple[int | None, Verdict]]) -> None:
        self._fresh = list(fresh)

    def verdicts_made(self, rulings: Sequence[Ruling]) -> tuple[Verdict, ...]:
        """This change's verdicts: the rulings' first, then the others in event order."""
        judged = {r.seq for r in rulings}
        others = [v for about, v in self._fresh if about is None or about not in judged]
        self._fresh.clear()
        return (*(v for r in rulings for v in r.verdicts), *others)

    def publish(self, update: SessionUpdate) -> None:
        """Queue ``update`` for the subscribers (with the lock held; see :meth:`deliver`)."""
        self._outbox.append(update)

    @contextmanager
    def changing(self) -> Iterator[None]:
        """Hold the lock for a change, then hand its updates to the subscribers with the lock
        released (a subscriber may take its own lock or call back into the session)."""
        with self._lock:
            if self._depth == 0:
                self._fresh.clear()
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            outermost = self._depth == 0
        if outermost:
            self.deliver()

    def deliver(self) -> None:
        """Call the subscribers with every queued update, in sequence order, holding no lock.

        One thread delivers at a time (whichever finds the queue unattended); another
        thread's updates queued meanwhile are delivered by it, so order is kept without
        holding the lock across a subscriber.
        """
        with self._lock:
            if self._delivering:
                return
            self._delivering = True
        try:
            while True:
                with self._lock:
                    if not self._outbox:
                        self._delivering = False
                        return
                    update = self._outbox.popleft()
                    subscribers = tuple(self._subscribers)
                for subscriber in subscribers:
                    subscriber(update)
        except BaseException:
            with self._lock:
                self._delivering = False
            raise


__all__ = ["Publication"]
