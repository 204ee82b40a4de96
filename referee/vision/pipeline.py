"""The live pipeline: frames -> detections -> poses -> tracks and events.

:class:`Pipeline` wires the stages for one calibration profile and roster.
``process(frame)`` returns an immutable :class:`FrameResult`; ``run(source)``
yields one per frame and hands each to every subscriber, so the tracks
writer, the rules service, the annotated video, the game log and the
dashboard all consume the same stream without reaching into the stages.

The pipeline also watches the table's corner anchors: when they sit more
than a pixel or two away from where the profile puts them for a few checks
in a row, the camera was bumped, the table pose is re-solved from the
anchors (the lens stays) and a ``camera_moved`` event says so. Piece tracks
are in table inches, so they survive the bump unchanged.
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
from referee.vision.pose import PiecePose, PoseEstimator
from referee.vision.sources import Frame
from referee.vision.track import Event, FlagEvent, Tracker, TrackerSettings, TrackerState


@dataclass(frozen=True)
class FrameResult:
    """Everything the pipeline knows after one frame."""

    frame: int
    t: float
    detections: Detections
    tracks: TrackerState
    events: tuple[Event, ...]
    """New events this frame: the tracker's and the pipeline's (camera moved)."""
    profile: CalibrationProfile
    """The profile in force for this frame (re-registered after a bump)."""
    image: NDArray[np.uint8] | None = field(default=None, repr=False, compare=False)
    """The frame itself (read-only), for consumers that draw on it; never serialised."""
    unknown_tags: tuple[int, ...] = ()
    """Detected ids that are neither pieces nor anchors (the pose stage's split), sorted."""

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


class Pipeline:
    """Detector + pose + tracker (+ bump watch) for one camera profile and roster."""

    def __init__(
        self,
        profile: CalibrationProfile,
        roster: Roster,
        detector: DetectorSettings | None = None,
        tracker: TrackerSettings | None = None,
        bump_checks: int = 3,
        source_name: str = "<source>",
    ) -> None:
        self.initial_profile = profile
        self.roster = roster
        self.detector = TagDetector(roster.dictionary, detector)
        self.tracker = Tracker(roster, tracker)
        self.bump_checks = bump_checks
        self.source_name = source_name
        self.anchors: tuple[AnchorTag, ...] = roster.anchors or profile.anchors
        self.reset()

    def reset(self) -> None:
        """Back to the state before the first frame (original profile, no tracks)."""
        self.profile = self.initial_profile
        self.poses = PoseEstimator(self.profile, self.roster)
        self.detector.reset()
        self.tracker.reset()
        self._off_count = 0
        self._size_checked = False

    def resume(self, resting: Mapping[str, PiecePose], table_pose: TablePose | None = None) -> None:
        """Go on from where a logged game stopped: the pieces at rest at ``resting`` (tracked
        from there, unseen until the camera finds them) and, after a logged camera move, the
        table at ``table_pose`` (the lens stays the profile's). Forgets every track first."""
        if table_pose is not None:
            self.initial_profile = self.initial_profile.with_pose(table_pose)
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
        self.poses = PoseEstimator(self.profile, roster)
        self.tracker.use_roster(roster)

    def process(self, frame: Frame) -> FrameResult:
        if not self._size_checked:
            height, width = frame.image.shape[:2]
            check_profile_fits(self.profile, (width, height), self.source_name)
            self._size_checked = True
        detections = self.detector.detect(frame.image)
        poses = self.poses.estimate(detections)
        extra = self._watch_anchors(frame, poses.anchors)
        state = self.tracker.update(frame.index, frame.t, poses)
        return FrameResult(
            frame.index,
            frame.t,
            detections,
            state,
            (*extra, *state.events),
            self.profile,
            frame.image,
            poses.unknown,
        )

    def _watch_anchors(self, frame: Frame, anchors: Detections) -> list[Event]:
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
                    f"the camera moved but could not be re-registered: {error}",
                    frame.index,
                    frame.t,
                )
            ]
        self.profile = self.profile.with_pose(pose)
        self.poses = self.poses.with_profile(self.profile)
        self.detector.request_full_pass()
        return [
            FlagEvent(
                "camera_moved",
                f"the camera moved; re-registered the table from {len(anchors)} anchor tags",
                frame.index,
                frame.t,
            )
        ]

    def run(
        self, frames: Iterable[Frame], subscribers: Sequence[Subscriber] = ()
    ) -> Iterator[FrameResult]:
        """Process every frame, call each subscriber with the result, then yield it."""
        for frame in frames:
            result = self.process(frame)
            for subscriber in subscribers:
                subscriber(result)
            yield result
