"""Live vision: frames -> tag detections -> piece poses in inches -> tracks and move events.

- :mod:`referee.vision.sources`: ``open_source(spec)`` -> camera, video, image folder or stream,
  yielding immutable ``Frame(index, t, image)``.
- :mod:`referee.vision.detect`: ``Detections`` and ``TagDetector``.
- :mod:`referee.vision.corners`: ``refine_tag_corners``, the edge-fitted tag corners that
  detection and the calibration's table fit share.
- :mod:`referee.vision.pose`: ``PoseEstimator`` -> ``PiecePose`` in table inches.
- :mod:`referee.vision.track`: ``Tracker`` -> ``TrackerState``, ``MoveEvent``, ``FlagEvent``.
- :mod:`referee.vision.pipeline`: ``Pipeline.run(frames, subscribers)`` yields ``FrameResult``.
- :mod:`referee.vision.annotate`: ``Annotator`` writes the annotated video.

Nothing is imported here, so ``import referee.vision`` stays cheap.
"""
