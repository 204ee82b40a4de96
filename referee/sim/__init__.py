"""The scene simulator: camera footage of a scripted game with exact ground truth.

- :mod:`referee.sim.warp`: draw flat textures (tags, boards, cloth) into a
  distorted camera image by inverse mapping (``RayMap``, ``PlanePose``,
  ``draw_plane``, ``draw_board``).
- :mod:`referee.sim.render`: ``TableRenderer`` (cloth, terrain, anchors,
  tagged pieces at their roster height, hands) and per-tag ``TagTruth``.
- :mod:`referee.sim.imaging`: ``Imager`` for defocus, light falloff, noise.
- :mod:`referee.sim.scenario`: the ``*.scenario.json`` format.
- :mod:`referee.sim.video`: ``simulate`` writes footage and truth files
  (``referee simulate``).
- :mod:`referee.sim.measure`: an unbiased tag-corner measurement for checks.
- :mod:`referee.sim.random_game`: seeded random games for ``simulate --random``
  (``random_scenario``: overhead, oblique webcam, two cameras, 4k).
- :mod:`referee.sim.tables`: seeded random tables of pieces and terrain for the
  rules benchmark and property tests (``random_table``).
"""
