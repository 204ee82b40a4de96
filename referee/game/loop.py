"""The frame loop: a session driven over a frame source, frame by frame.

Every command (``track``, ``run``, ``demo``) and the live table behind
``serve`` run a game with :func:`drive`, so a frame is judged, logged and
published the same way wherever it came from.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path

from referee.game.session import Session, SessionUpdate
from referee.vision.sources import FrameSource


def warn(message: str) -> None:
    """One ``referee: warning:`` line on stderr, above a progress bar if one is drawn."""
    from tqdm import tqdm

    tqdm.write(f"referee: warning: {message}", file=sys.stderr)


def drive(
    session: Session,
    source: FrameSource,
    progress: bool,
    limit: int | None = None,
    on_update: Callable[[SessionUpdate], None] | None = None,
    stop: threading.Event | None = None,
) -> int:
    """Run the session over a source with a progress bar; returns frames processed.

    A source that ends short of the frames its header promises is warned about, unless
    ``stop`` is set (the source was stopped on purpose: the live table shutting down)."""
    from referee.runtime import progress as bar_of

    total = source.frame_count
    if total is not None and session.resume_after >= 0:
        total = max(total - session.resume_after - 1, 0)
    if limit is not None and total is not None:
        total = min(total, limit)
    count = 0
    # Several cameras are named each by its file name: "video-1.mp4 + video-2.mp4".
    desc = " + ".join(Path(s.name).name for s in getattr(source, "sources", (source,)))
    # A bar on a terminal; piped, one line when the source is done (no \r fragments).
    with bar_of(total=total, unit="frame", enabled=progress, desc=desc) as bar:
        for update in session.run(source):
            if on_update is not None:
                on_update(update)
            count += 1
            bar.update(1)
            if limit is not None and count >= limit:
                return count
    promised = source.frame_count
    stopped = stop is not None and stop.is_set()
    if promised is not None and not stopped and session.resume_after + 1 + count < promised * 0.98:
        warn(
            f"{source.name}: the video ended after {session.resume_after + 1 + count} of the "
            f"{promised} frames its header promises (a truncated file?); what was seen is kept"
        )
    return count
