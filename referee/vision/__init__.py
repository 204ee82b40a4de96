"""Live vision: frames -> tag detections -> piece poses in inches -> tracks and move events.

- :mod:`referee.vision.sources`: ``open_source(spec)`` -> camera, video, image folder or stream,
  yielding immutable ``Frame(index, t, image)``.
- Tag detection (``Detections``, ``TagDetector``) and the edge-fitted corners it shares with
  the calibration's table fit live one layer down, in :mod:`referee.tags`.
- :mod:`referee.vision.pose`: ``PoseEstimator`` -> ``PiecePose`` in table inches.
- :mod:`referee.vision.track`: ``Tracker`` -> ``TrackerState``, ``MoveEvent``, ``FlagEvent``,
  ``RemovedEvent`` (a casualty), ``EnteredEvent`` (a reinforcement).
- :mod:`referee.vision.pipeline`: ``Pipeline.run(frames, subscribers)`` yields ``FrameResult``.
- :mod:`referee.vision.annotate`: ``Annotator`` writes the annotated video.

Nothing is imported here, so ``import referee.vision`` stays cheap.
"""
