"""The live pipeline: frames -> detections -> poses -> (fusion) -> tracks and events.

:class:`Pipeline` wires the stages for one roster and one or more cameras, each
with its own calibration profile. ``process(frame)`` returns an immutable
:class:`FrameResult`; ``run(source)`` yields one per frame and hands each to
every subscriber, so the tracks writer, the rules service, the annotated video,
the game log and the dashboard all consume the same stream without reaching
into the stages.

Each camera (:class:`CameraStage`) has its own detector, pose estimator and
bump watch: when its anchors sit more than a pixel or two away from where its
profile puts them for a few checks in a row, the camera was bumped, its table
pose is re-solved from the anchors (the lens stays) and a ``camera_moved``
event says so. Once per registration the table plane is also refined from the
flat tags it sees held still (anchors fixed, bases and templates free; :mod:`plane`), and
a refinement of 0.02 in or more is said as a ``table_refined`` flag. Piece poses
are in table inches, so every camera's land in the same frame; with several cameras
they are fused per id (:mod:`fusion`) before the ONE tracker, so a piece seen twice
is one piece and a piece carried across the seam is one move. One camera is the same
wiring with one stage.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from referee.calibration.camera import TablePose
from referee.calibration.profile import CalibrationProfile
from referee.errors import ProfileError, RefereeError
from referee.markers.roster import Roster
from referee.tags.anchors import AnchorTag
from referee.tags.detect import Detections, DetectorSettings, TagDetector
from referee.vision.fusion import Dropped, FusionSettings, fuse
from referee.vision.plane import PlaneRefiner
from referee.vision.pose import FramePoses, PiecePose, PoseEstimator
from referee.vision.sources import Frame
from referee.vision.track import Event, FlagEvent, Tracker, TrackerSettings, TrackerState


@dataclass(frozen=True)
class CameraView:
    """What one camera saw in one tick: for the annotated video and the health panel."""

    camera: int
    """Camera number, from 0 in the order the sources were given."""
    name: str
    frame: int
    """The camera's own frame number."""
    t: float
    detections: Detections
    profile: CalibrationProfile
    """This camera's profile in force (re-registered after a bump)."""
    pieces: tuple[PiecePose, ...]
    """This camera's piece (and template) poses, before fusion."""
    unknown_tags: tuple[int, ...] = ()
    image: NDArray[np.uint8] | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class FrameResult:
    """Everything the pipeline knows after one frame (one tick of every camera)."""

    frame: int
    t: float
    detections: Detections
    """The first camera's detections (empty when it had no frame this tick)."""
    tracks: TrackerState
    events: tuple[Event, ...]
    """New events this frame: the tracker's and the pipeline's (camera moved)."""
    profile: CalibrationProfile
    """The first camera's profile in force for this frame (re-registered after a bump)."""
    image: NDArray[np.uint8] | None = field(default=None, repr=False, compare=False)
    """The first camera's frame (read-only), for consumers that draw on it; never serialised."""
    unknown_tags: tuple[int, ...] = ()
    """Detected ids that are neither pieces nor anchors (every camera's), sorted."""
    views: tuple[CameraView, ...] = field(default=(), repr=False, compare=False)
    """Each camera that had a frame this tick (one for one camera), in camera order."""
    dropped: tuple[Dropped, ...] = ()
    """Views fusion left out this tick (a camera disagreeing with the others)."""
    profiles: tuple[CalibrationProfile, ...] = field(default=(), repr=False, compare=False)
    """Every camera's profile in force, in camera order (a camera without a frame this tick
    too): the annotated video and the health panel show each camera, not only those seen."""
    cameras: tuple[str, ...] = ()
    """Every camera's source name, in camera order."""

    def to_json(self) -> dict[str, Any]:
        """One line of the tracks file (DESIGN.md contract)."""
        return self.tracks.to_json()


Subscriber = Callable[[FrameResult], None]


def check_profile_fits(profile: CalibrationProfile, image_size: tuple[int, int], name: str) -> None:
    """A profile made for another resolution cannot map this source's pixels."""
    if tuple(profile.intrinsics.image_size) != tuple(image_size):
        pw, ph = profile.intrinsics.image_size
        raise ProfileError(
            f"{name}: frames are {image_size[0]}x{image_size[1]} but the calibration profile "
            f"is for {pw}x{ph} images; calibrate this camera at this resolution"
        )


class CameraStage:
    """One camera's detector, pose estimator and bump watch."""

    def __init__(
        self,
        camera: int,
        profile: CalibrationProfile,
        roster: Roster,
        detector: DetectorSettings | None = None,
        bump_checks: int = 3,
        source_name: str = "<source>",
    ) -> None:
        self.camera = camera
        self.initial_profile = profile
        self.roster = roster
        self.detector = TagDetector(roster.dictionary, detector)
        self.bump_checks = bump_checks
        self.source_name = source_name
        self.anchors: tuple[AnchorTag, ...] = roster.anchors or profile.anchors
        self.plane = PlaneRefiner(roster, self.anchors, None)
        self.reset()

    def reset(self) -> None:
        self.profile = self.initial_profile
        self.poses = PoseEstimator(self.profile, self.roster)
        self.detector.reset()
        self.plane.reset()
        self._off_count = 0
        self._size_checked = False

    def use_roster(self, roster: Roster) -> None:
        self.roster = roster
        self.poses = PoseEstimator(self.profile, roster)

    def process(self, frame: Frame, label: str = "") -> tuple[CameraView, list[Event]]:
        """Detect and place this camera's tags; ``label`` names the camera in its events."""
        if not self._size_checked:
            height, width = frame.image.shape[:2]
            check_profile_fits(self.profile, (width, height), self.source_name)
            self._size_checked = True
        detections = self.detector.detect(frame.image)
        events = self._refine_plane(frame, detections, label)
        poses = self.poses.estimate(detections)
        events += self._watch_anchors(frame, poses.anchors, label)
        view = CameraView(
            self.camera,
            self.source_name,
            frame.index,
            frame.t,
            detections,
            self.profile,
            poses.pieces,
            poses.unknown,
            frame.image,
        )
        return view, events

    def sees_any(self, points: Sequence[tuple[float, float]]) -> bool:
        """Whether any table point (inches) falls inside this camera's picture."""
        from referee.calibration.camera import project, table_xyz

        profile = self.profile
        pixels = project(profile.intrinsics, profile.table_pose, table_xyz(list(points), 0.0))
        width, height = profile.intrinsics.image_size
        inside = (
            (pixels[:, 0] >= 0)
            & (pixels[:, 0] < width)
            & (pixels[:, 1] >= 0)
            & (pixels[:, 1] < height)
        )
        return bool(np.any(inside & np.all(np.isfinite(pixels), axis=1)))

    def _refine_plane(self, frame: Frame, detections: Detections, label: str) -> list[Event]:
        """The table plane refined from the flat tags held still (:mod:`plane`), once per
        registration: this frame's poses are already placed on the refined plane."""
        refined = self.plane.observe(self.profile, detections)
        if refined is None:
            return []
        self.profile = self.profile.with_pose(refined.pose)
        self.poses = self.poses.with_profile(self.profile)
        if refined.shift_in < self.plane.settings.report_shift_in:
            return []
        return [
            FlagEvent(
                "table_refined",
                f"{label}table plane refined from {refined.flat_tags} flat tags and "
                f"{refined.anchors} anchors held still (points moved up to "
                f"{refined.shift_in:.3f} in; fit {refined.rms_px:.2f} px RMS)",
                frame.index,
                frame.t,
                camera=self.camera,
            )
        ]

    def _watch_anchors(self, frame: Frame, anchors: Detections, label: str) -> list[Event]:
        if not self.anchors or len(anchors) < 2:
            return []
        from referee.calibration.register import camera_moved, reregister

        if not camera_moved(self.profile, anchors.ids, anchors.corners_px, self.anchors):
            self._off_count = 0
            return []
        self._off_count += 1
        if self._off_count < self.bump_checks:
            return []
        self._off_count = 0
        try:
            pose = reregister(self.profile, anchors.ids, anchors.corners_px, self.anchors)
        except RefereeError as error:
            return [
                FlagEvent(
                    "camera_moved",
                    f"{label}the camera moved but could not be re-registered: {error}",
                    frame.index,
                    frame.t,
                    camera=self.camera,
                )
            ]
        self.profile = self.profile.with_pose(pose)
        self.poses = self.poses.with_profile(self.profile)
        self.detector.request_full_pass()
        self.plane.reset()  # the new pose is refined again from the tags held still
        return [
            FlagEvent(
                "camera_moved",
                f"{label}the camera moved; re-registered the table from {len(anchors)} anchor tags",
                frame.index,
                frame.t,
                camera=self.camera,
            )
        ]


class Pipeline:
    """Camera stages (detector + pose + bump watch each) + fusion + one tracker."""

    def __init__(
        self,
        profile: CalibrationProfile | Sequence[CalibrationProfile],
        roster: Roster,
        detector: DetectorSettings | None = None,
        tracker: TrackerSettings | None = None,
        bump_checks: int = 3,
        source_name: str | Sequence[str] = "<source>",
        fusion: FusionSettings | None = None,
    ) -> None:
        profiles = [profile] if isinstance(profile, CalibrationProfile) else list(profile)
        names = [source_name] if isinstance(source_name, str) else list(source_name)
        if not profiles or len(names) != len(profiles):
            raise RefereeError(
                f"{len(profiles)} calibration profiles for {len(names)} sources; give one each"
            )
        self.roster = roster
        self.cameras = [
            CameraStage(k, p, roster, detector, bump_checks, n)
            for k, (p, n) in enumerate(zip(profiles, names, strict=True))
        ]
        table = profiles[0].table
        # The table's size: the tracker tells a piece carried off an edge (a casualty).
        self.tracker = Tracker(roster, tracker, (table.width, table.depth))
        self.fusion = fusion or FusionSettings()
        self.bump_checks = bump_checks
        self.source_name = " + ".join(names)
        self.reset()

    @property
    def initial_profile(self) -> CalibrationProfile:
        """The first camera's profile as given (what a game log records)."""
        return self.cameras[0].initial_profile

    @property
    def profile(self) -> CalibrationProfile:
        """The first camera's profile in force."""
        return self.cameras[0].profile

    @property
    def profiles(self) -> tuple[CalibrationProfile, ...]:
        return tuple(c.profile for c in self.cameras)

    @property
    def anchors(self) -> tuple[AnchorTag, ...]:
        return self.cameras[0].anchors

    @property
    def poses(self) -> PoseEstimator:
        """The first camera's pose estimator (its noise model stands for every camera's)."""
        return self.cameras[0].poses

    @property
    def detector(self) -> TagDetector:
        return self.cameras[0].detector

    def reset(self) -> None:
        """Back to the state before the first frame (original profiles, no tracks)."""
        for camera in self.cameras:
            camera.reset()
        self.tracker.reset()

    def resume(
        self,
        resting: Mapping[str, PiecePose],
        table_pose: TablePose | Mapping[int, TablePose] | None = None,
    ) -> None:
        """Go on from where a logged game stopped: the pieces at rest at ``resting`` (tracked
        from there, unseen until the camera finds them) and, after logged camera moves, each
        moved camera's table where its last move put it: ``table_pose`` is a pose per camera
        number (from 0), or one pose for the first camera (the lens stays the profile's).
        A camera number this pipeline does not have is ignored. Forgets every track first."""
        poses = {0: table_pose} if isinstance(table_pose, TablePose) else dict(table_pose or {})
        for k, pose in poses.items():
            if 0 <= k < len(self.cameras):
                stage = self.cameras[k]
                stage.initial_profile = stage.initial_profile.with_pose(pose)
        self.reset()
        self.tracker.restore(dict(resting))

    def use_roster(self, roster: Roster) -> None:
        """Go on with an edited roster (a piece added, retagged or removed mid-game).

        Tracks of pieces still in it are kept; the dictionary cannot change.
        """
        if roster.dictionary != self.roster.dictionary:
            raise RefereeError(
                f"the roster's dictionary is {self.roster.dictionary}; an edit cannot change it"
            )
        self.roster = roster
        for camera in self.cameras:
            camera.use_roster(roster)
        self.tracker.use_roster(roster)

    def process(self, frame: Frame) -> FrameResult:
        several = len(self.cameras) > 1
        if several and len(frame.views) != len(self.cameras):
            raise RefereeError(
                f"a frame set of {len(frame.views) or 1} camera(s) for {len(self.cameras)} "
                "calibration profiles"
            )
        parts = frame.views if several else (frame,)
        views: list[CameraView] = []
        extra: list[Event] = []
        for camera, part in zip(self.cameras, parts, strict=True):
            if part is None:
                continue  # no frame from this camera this tick: it contributes nothing
            label = f"{camera.source_name}: " if several else ""
            view, events = camera.process(part, label)
            views.append(view)
            extra.extend(events)
        # One view is passed as it is (the single-camera path, unchanged); several are fused.
        fused = fuse([v.pieces for v in views], self.fusion) if len(views) > 1 else None
        pieces = fused.pieces if fused is not None else views[0].pieces if views else ()
        unknown = tuple(sorted({tag for v in views for tag in v.unknown_tags}))
        poses = FramePoses(pieces, Detections.empty(), unknown)
        state = self.tracker.update(frame.index, frame.t, poses)
        if several:
            self._hint_handover(state, views)
        first = views[0] if views and views[0].camera == 0 else None
        return FrameResult(
            frame.index,
            frame.t,
            first.detections if first is not None else Detections.empty(),
            state,
            (*extra, *state.events),
            self.cameras[0].profile,
            first.image if first is not None else None,
            unknown,
            tuple(views),
            # Fusion numbers the views it was given; the result names the cameras.
            tuple(
                Dropped(views[d.camera].camera, d.id, d.distance, d.heading_off)
                for d in (fused.dropped if fused is not None else ())
            ),
            self.profiles,
            tuple(c.source_name for c in self.cameras),
        )

    def _hint_handover(self, state: TrackerState, views: Sequence[CameraView]) -> None:
        """A moving piece inside a camera's view that this camera did not see is about to
        enter it: that camera's detector searches its whole picture next tick instead of
        only around its last tags, so the piece is picked up at the seam at once, not at the
        camera's next scheduled full pass (up to ``full_every`` ticks later)."""
        moving = [p.pose for p in state.pieces if p.state == "moving"]
        if not moving:
            return
        seen = {v.camera: {p.id for p in v.pieces} for v in views}
        for camera in self.cameras:
            missed = [p for p in moving if p.id not in seen.get(camera.camera, ())]
            if missed and camera.sees_any([(p.x, p.y) for p in missed]):
                camera.detector.request_full_pass()

    def run(
        self, frames: Iterable[Frame], subscribers: Sequence[Subscriber] = ()
    ) -> Iterator[FrameResult]:
        """Process every frame, call each subscriber with the result, then yield it."""
        for frame in frames:
            result = self.process(frame)
            for subscriber in subscribers:
                subscriber(result)
            yield result
