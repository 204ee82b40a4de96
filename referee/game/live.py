"""The live table: one session fed by a frame thread, for the dashboard to read and wait on.

:class:`LiveTable` owns the :class:`~referee.game.Session` a dashboard
shows. A background thread drives the session over the frame source with
:func:`referee.game.drive` (the loop every command uses); the session's
subscriber only appends the update's events and bumps a version under a
condition variable, so the frame thread never waits for a browser. Each
browser's event stream waits on that condition and builds its message from
the newest state, so a slow client skips frames instead of queueing them,
and what one frame shows (its message, its pictures) is built once however
many browsers watch.

Locks (DESIGN.md, "Threads"): ``LiveTable._cond`` is a leaf: held only over
the live table's own fields, never while calling the session, the log or a
browser. The session calls its subscriber with no session lock held, so the
order is simply: the session's lock (and the game log's inside it), or the
live table's, never one inside the other.

With no source the bundled sample footage plays in a loop: each pass is a
new game in the log (``NAME``, ``NAME-2``...) that keeps the terrain drawn
so far.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from referee.calibration.profile import CalibrationProfile
from referee.errors import RefereeError
from referee.events import GameEvent
from referee.game.loop import drive, warn
from referee.game.pacing import Footage, Paced
from referee.game.session import Session, SessionUpdate
from referee.game.sources import (
    FootageFolder,
    open_camera_source,
    read_footage,
    repo_footage,
    source_key,
)
from referee.game.views import CameraHealth, CameraSeen, camera_health, frame_json
from referee.markers.roster import Roster
from referee.scene import Scene
from referee.store import GameLog
from referee.tags.anchors import AnchorTag
from referee.vision.pipeline import FrameResult, Pipeline
from referee.vision.sources import FrameSource, MultiSource, VideoFileSource
from referee.vision.topdown import TableMaps, jpeg, scaled, table_maps, top_down, top_down_mosaic

FPS_WINDOW = 2.0
"""Seconds of frames the frame rate is averaged over."""
CAMERA_WIDTH = 960
"""Pixels across of the camera picture sent to browsers (the tags are outlined on top)."""
CAMERA_RATE = 8.0
"""Most camera pictures encoded a second (the map gets every frame; the picture is context)."""
TOP_DOWN_PPI = 20.0
"""Pixels per inch of the rectified top-down picture the terrain is drawn over."""


@dataclass(frozen=True)
class LiveView:
    """What a frame's message needs from the live table beside the frame result."""

    roster: Roster
    anchors: tuple[AnchorTag, ...]
    fps: float
    seq: int


class LiveTable:
    """The session a dashboard shows, its frame thread, and what browsers wait on."""

    def __init__(
        self,
        pipeline: Pipeline,
        scene: Scene | None = None,
        ruleset: str | None = None,
        *,
        footage: Footage | None = None,
        log: GameLog | None = None,
        game: str | None = None,
        source_key: str | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.footage = footage
        self.log = log
        self.ruleset_name = ruleset
        self.source_key = source_key
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._version = 0
        self._events: list[GameEvent] = []
        self._frame_times: list[float] = []
        self._cache: dict[str, tuple[FrameResult, Any]] = {}
        self._unsubscribe: Callable[[], None] = lambda: None
        self.session: Session
        self._stepper: Iterator[SessionUpdate] | None = None
        self._camera: dict[int, tuple[float, int, bytes]] = {}
        """Per camera: when its picture was last encoded, the tick, the JPEG."""
        self._seen: list[CameraSeen] = [CameraSeen() for _ in pipeline.cameras]
        """Per camera: frames processed and its last view (its picture, its frame number)."""
        self._maps: dict[int, TableMaps] = {}
        """Per camera: its top-down remap tables, made again only when its profile changes."""
        self.error: str | None = None
        """Why the frame thread stopped, if it failed."""
        self.passes = 0
        self.frames = 0
        self.generation = 0
        """Counts the games this table has shown (a new pass of the sample is a new game)."""
        self.game_name = game
        self.session = self._open_session(scene, game)

    # -- the session ---------------------------------------------------------------------------

    def _open_session(self, scene: Scene | None, game: str | None) -> Session:
        """Start a game and make it the one shown. Nothing is called with ``_cond`` held:
        the session is subscribed and its history read first, then the switch is one
        assignment under the lock (DESIGN.md, "Threads")."""
        session = Session.start(
            self.pipeline, scene, self.ruleset_name, log=self.log, game=game, source=self.source_key
        )
        unsubscribe = session.subscribe(lambda update: self._on_update(session, update))
        history = self._history(session)
        with self._cond:
            old = self._unsubscribe
            self.session = session
            self.game_name = session.game.name if session.game is not None else game
            self._events = history
            self._unsubscribe = unsubscribe
            self.generation += 1
            self._version += 1
            self._cond.notify_all()
        old()
        return session

    def _history(self, session: Session) -> list[GameEvent]:
        if self.log is not None and session.game is not None:
            return self.log.events(self.log.game(session.game.name))
        return list(session.opening)

    def _on_update(self, session: Session, update: SessionUpdate) -> None:
        """The session's subscriber (frame thread or a request): record, bump, wake browsers.

        Called with no session lock held. An update of a game no longer shown (a request
        that reached the previous pass) is dropped, and an event already in the history
        read at the switch is not added twice."""
        with self._cond:
            if session is not self.session:
                return
            last = self._events[-1].seq if self._events else 0
            self._events.extend(e for e in update.events if e.seq > last)
            if update.result is not None:
                now = time.monotonic()
                self._frame_times.append(now)
                while self._frame_times and self._frame_times[0] < now - FPS_WINDOW:
                    self._frame_times.pop(0)
                self.frames += 1
                for v in update.result.views:  # a few references: no copying in the frame thread
                    if v.camera < len(self._seen):
                        self._seen[v.camera] = CameraSeen(self._seen[v.camera].frames + 1, v)
            self._version += 1
            self._cond.notify_all()

    # -- the frame thread ----------------------------------------------------------------------

    def start(self) -> None:
        """Run the frame loop in a background thread."""
        if self.footage is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="referee-frames", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Wake every waiting browser stream: something streams send beside the game changed
        (the selection shared across screens), so they send it now, not at the next frame."""
        with self._cond:
            self._version += 1
            self._cond.notify_all()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the frame loop and wake every waiting browser stream."""
        self._stop.set()
        with self._cond:
            self._version += 1
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
        self.session.close()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    @property
    def running(self) -> bool:
        """The frame thread is playing frames."""
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        assert self.footage is not None
        footage = self.footage
        try:
            while not self._stop.is_set():
                source = footage.open()
                if not footage.live:
                    source = Paced(source, footage.pace, self._stop)
                try:
                    drive(self.session, source, progress=False, stop=self._stop)
                finally:
                    source.close()
                self.passes += 1
                if not footage.loop or self._stop.is_set():
                    break
                self._next_pass()
        except RefereeError as error:
            self.error = str(error)
            warn(f"the frame loop stopped: {error}")
        except Exception as error:
            self.error = f"{type(error).__name__}: {error}"
            warn(f"the frame loop stopped: {self.error}")
        finally:
            self.session.close()
            with self._cond:
                self._version += 1
                self._cond.notify_all()

    def _next_pass(self) -> None:
        """The sample again: a new game on a fresh tracker, keeping the terrain drawn so far."""
        old = self.session
        old.close()
        scene = replace(old.initial_scene, terrain=old.scene.terrain)
        self.pipeline.reset()
        base = (old.game.name if old.game is not None else self.game_name) or "serve"
        base = base.rsplit("-pass", 1)[0]
        self._open_session(scene, f"{base}-pass{self.passes + 1}" if self.log else None)

    def step(self, frames: int) -> int:
        """Process up to ``frames`` frames in this thread (tests, benchmarks); returns how many."""
        assert self.footage is not None
        done = 0
        if self._stepper is None:
            self._stepper = iter(self.session.run(self.footage.open()))
        for _ in range(frames):
            if next(self._stepper, None) is None:
                break
            done += 1
        return done

    @property
    def view(self) -> LiveView:
        """What a frame message names beside the frame: roster, anchors, rate, last event."""
        session = self.session
        return LiveView(session.roster, self.pipeline.anchors, self.fps, session.last_seq)

    @property
    def calibration(self) -> CalibrationProfile:
        """The calibration profile the game started with (a bump re-registers from it)."""
        return self.pipeline.initial_profile

    @property
    def calibrations(self) -> tuple[CalibrationProfile, ...]:
        """Every camera's profile as the game started, in camera order."""
        return tuple(c.initial_profile for c in self.pipeline.cameras)

    @property
    def camera_names(self) -> tuple[str, ...]:
        return tuple(c.source_name for c in self.pipeline.cameras)

    def cameras(self) -> list[CameraHealth]:
        """Each camera's line of the health panel: frames, tags this tick, calibration, bumps,
        and whether it is live, dropped or ended while the others go on."""
        result = self.session.latest
        events, _ = self.events_since(0)
        count = len(self.pipeline.cameras)
        moved = [0] * count
        lost = [False] * count
        for event in events:
            if event.type != "camera":
                continue
            k = event.data.get("camera", 1) - 1  # none named (one camera, an old log): camera 1
            if not 0 <= k < count:
                continue
            kind = event.data.get("kind")
            moved[k] += kind == "moved"
            if kind in ("lost", "reopened"):
                lost[k] = kind == "lost"
        with self._cond:
            seen = list(self._seen)
        footage = self.footage
        return camera_health(
            result,
            seen,
            self.calibrations,
            self.camera_names,
            moved,
            lost,
            live_source=footage is not None and footage.live,
            finished=self.passes > 0 and not self.running,
        )

    # -- what browsers wait on -----------------------------------------------------------------

    @property
    def version(self) -> int:
        return self._version

    def wait(self, version: int, timeout: float) -> int:
        """Block until the version passes ``version`` (or ``timeout`` seconds); the new version."""
        with self._cond:
            self._cond.wait_for(lambda: self._version != version or self.stopped, timeout)
            return self._version

    def events_since(self, index: int) -> tuple[list[GameEvent], int]:
        """Events of this game after the first ``index``, and the new index."""
        with self._cond:
            return self._events[index:], len(self._events)

    @property
    def fps(self) -> float:
        with self._cond:
            times = self._frame_times
            if len(times) < 2:
                return 0.0
            return (len(times) - 1) / max(times[-1] - times[0], 1e-6)

    def _cached(self, key: str, result: FrameResult, build: Callable[[], Any]) -> Any:
        """``build()`` once per frame result for every browser asking for it."""
        with self._cond:
            hit = self._cache.get(key)
        if hit is not None and hit[0] is result:
            return hit[1]
        value = build()
        with self._cond:
            self._cache[key] = (result, value)
        return value

    def frame_message(self) -> dict[str, Any] | None:
        """The newest frame's pieces and tags, as the SSE ``frame`` message carries them."""
        result = self.session.latest
        if result is None:
            return None
        return self._cached("frame", result, lambda: frame_json(result, self.view))

    def frame_text(self) -> str | None:
        """:meth:`frame_message` as JSON text, built once per frame for every stream."""
        result = self.session.latest
        if result is None:
            return None
        return self._cached(
            "text", result, lambda: json.dumps(self.frame_message(), separators=(",", ":"))
        )

    def camera_jpeg(self, camera: int = 0) -> tuple[int, bytes] | None:
        """A recent picture of camera ``camera`` (from 0): (tick, JPEG), :data:`CAMERA_WIDTH`
        across. A camera without a frame this tick shows its last one (it dropped or ended).

        Encoded at most :data:`CAMERA_RATE` times a second per camera whatever the number
        of browsers asking, so watching costs the pipeline a bounded amount of work."""
        with self._cond:
            hit = self._camera.get(camera)
            seen = self._seen[camera] if camera < len(self._seen) else CameraSeen()
        if hit is not None and time.monotonic() - hit[0] < 1.0 / CAMERA_RATE:
            return hit[1], hit[2]
        result = self.session.latest
        if result is None:
            return None
        view = next((v for v in result.views if v.camera == camera), None) or seen.last
        image = view.image if view is not None else result.image if camera == 0 else None
        if image is None:
            return None
        if hit is not None and hit[1] == result.frame:
            return hit[1], hit[2]
        data = jpeg(scaled(image, CAMERA_WIDTH))
        with self._cond:
            self._camera[camera] = (time.monotonic(), result.frame, data)
        return result.frame, data

    def top_down_jpeg(self) -> bytes | None:
        """The newest camera pictures warped onto the table plane (north up), as JPEG; with
        several cameras one mosaic (each camera's last picture, where it sees the table)."""
        result = self.session.latest
        if result is None:
            return None
        if len(self.pipeline.cameras) == 1:
            image, profile = result.image, result.profile
            if image is None:
                return None
            return self._cached(
                "table", result, lambda: jpeg(top_down(image, profile, TOP_DOWN_PPI))
            )
        with self._cond:
            seen = list(self._seen)
        profiles = result.profiles
        cameras = [
            (s.last.image, profiles[k] if k < len(profiles) else s.last.profile, k)
            for k, s in enumerate(seen)
            if s.last is not None and s.last.image is not None
        ]
        if not cameras:
            return None

        def build() -> bytes:
            # The remap tables are the costly part: made once per camera and profile (a bump
            # makes a new profile), by the request thread, never the frame thread.
            pictures = []
            for image, profile, k in cameras:
                with self._cond:
                    maps = self._maps.get(k)
                if maps is None or maps.profile is not profile:
                    maps = table_maps(profile, profile.table, TOP_DOWN_PPI)
                    with self._cond:
                        self._maps[k] = maps
                pictures.append((image, maps))
            return jpeg(top_down_mosaic(pictures))

        return self._cached("table", result, build)


def sample_footage(footage: FootageFolder, pace: float = 1.0) -> Footage:
    """A footage folder's videos (one camera or several read together), looped."""
    videos = footage.videos

    def open_frames() -> FrameSource:
        opened = [VideoFileSource(v) for v in videos]
        return opened[0] if len(opened) == 1 else MultiSource(opened)

    name = " + ".join(str(v) for v in videos)
    return Footage(open_frames, name, loop=True, pace=pace)


def sample_live(
    pace: float = 1.0,
    log: GameLog | None = None,
    game: str | None = None,
    footage: FootageFolder | None = None,
) -> LiveTable:
    """A live table on a footage folder (the bundled sample without one: its
    ``sample_footage/skirmish``) with its cameras, roster and scene (looped, not started)."""
    folder = footage if footage is not None else read_footage(repo_footage())
    played = sample_footage(folder, pace)
    return LiveTable(
        Pipeline(folder.profiles, folder.roster, source_name=[str(v) for v in folder.videos]),
        folder.scene,
        footage=played,
        log=log,
        game=game,
        source_key=" + ".join(str(v.resolve()) for v in folder.videos),
    )


def source_live(
    spec: str | Sequence[str],
    pipeline: Pipeline,
    scene: Scene | None = None,
    ruleset: str | None = None,
    *,
    camera: bool = False,
    pace: float = 1.0,
    log: GameLog | None = None,
    game: str | None = None,
) -> LiveTable:
    """A live table on a camera or stream (``camera``: never paced or looped) or a recording
    played once at ``pace`` (not started; :func:`~referee.game.probe_source` checks the
    source first, before a game log is opened). Several ``spec`` are several cameras over
    one table, read together as frame sets."""
    holder: list[Session] = []
    specs = (spec,) if isinstance(spec, str) else tuple(spec)

    def open_frames() -> FrameSource:
        several = len(specs) > 1
        opened = [
            open_camera_source(s, holder, k if several else None)[0] for k, s in enumerate(specs)
        ]
        return opened[0] if len(opened) == 1 else MultiSource(opened)

    name = " + ".join(specs)
    key = " + ".join(source_key(s) for s in specs)
    footage = Footage(open_frames, name, loop=False, pace=pace, live=camera)
    live = LiveTable(pipeline, scene, ruleset, footage=footage, log=log, game=game, source_key=key)
    holder.append(live.session)
    return live
