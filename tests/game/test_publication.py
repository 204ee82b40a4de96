"""Publication: updates reach every subscriber in order, with the session's lock released."""

from __future__ import annotations

import threading

from referee.events import GameEvent
from referee.game.publication import Publication
from referee.game.updates import SessionUpdate
from referee.rules import Verdict


def update(seq: int) -> SessionUpdate:
    return SessionUpdate((GameEvent(seq, 0.0, "flag", {"message": str(seq)}),))


def test_updates_reach_subscribers_after_the_change_with_the_lock_released():
    lock = threading.RLock()
    publication = Publication(lock)
    heard: list[tuple[int, bool]] = []

    def subscriber(u: SessionUpdate) -> None:
        # Another thread can take the lock only if this one does not hold it.
        free: list[bool] = []

        def try_lock() -> None:
            got = lock.acquire(timeout=5)
            free.append(got)
            if got:
                lock.release()

        t = threading.Thread(target=try_lock)
        t.start()
        t.join()
        heard.append((u.events[0].seq, free[0]))

    publication.subscribe(subscriber)
    with publication.changing():
        publication.publish(update(1))
        with publication.changing():  # nested: delivered when the outer change ends
            publication.publish(update(2))
        assert heard == []
    assert heard == [(1, True), (2, True)]


def test_an_unsubscribed_subscriber_hears_nothing_more():
    publication = Publication(threading.RLock())
    heard: list[int] = []
    stop = publication.subscribe(lambda u: heard.append(u.events[0].seq))
    with publication.changing():
        publication.publish(update(1))
    stop()
    stop()  # twice is harmless
    with publication.changing():
        publication.publish(update(2))
    assert heard == [1]


def test_verdicts_made_are_the_changes_own_and_cleared_by_the_next_change():
    publication = Publication(threading.RLock())
    first = Verdict("range", True, ("in range",))
    second = Verdict("los", False, ("blocked",))
    with publication.changing():
        publication.made(None, first)
        kept = publication.made_so_far()
        publication.made(None, second)
        publication.undo(kept)  # a change undone takes its verdict back
        assert publication.verdicts_made(()) == (first,)
    with publication.changing():
        publication.made(None, second)
    with publication.changing():  # a new change starts with none
        assert publication.verdicts_made(()) == ()


def test_many_threads_publishing_at_once_are_heard_once_each_in_queue_order():
    """Stress: the outbox is shared by the frame loop and every web request thread."""
    lock = threading.RLock()
    publication = Publication(lock)
    heard: list[int] = []
    queued: list[int] = []
    publication.subscribe(lambda u: heard.append(u.events[0].seq))
    counter = iter(range(1, 10_000))

    def worker() -> None:
        for _ in range(200):
            with publication.changing():
                seq = next(counter)
                queued.append(seq)
                publication.publish(update(seq))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(heard) == 1600
    assert heard == queued  # in the order queued under the lock, none twice
