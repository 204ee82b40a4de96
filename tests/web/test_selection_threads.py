"""The shared selection under many threads at once (DESIGN.md, "Threads"): every change
counted once, the version only grows, and a reader never sees a piece with a stale version."""

from __future__ import annotations

import threading

from referee.web.selection import Selection


def test_many_writers_and_readers_see_one_consistent_selection():
    selection = Selection()
    changes = []
    seen = []
    pieces = ["t34a", "pz1", None, "gs1"]

    def write(k: int) -> None:
        made = sum(selection.put(pieces[(k + i) % len(pieces)]) for i in range(500))
        changes.append(made)

    def read() -> None:
        last = -1
        for _ in range(2000):
            version, piece = selection.get()
            assert version >= last and piece in pieces
            last = version
        seen.append(last)

    threads = [threading.Thread(target=write, args=(k,)) for k in range(4)]
    threads += [threading.Thread(target=read) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    version, _ = selection.get()
    assert version == sum(changes) and all(v <= version for v in seen)
