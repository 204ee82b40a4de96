"""Tags: the lowest layer every other stage builds on.

Tag dictionaries and the printed tag's layout (:mod:`.layout`), finding tags
in an image with sub-pixel corners (:mod:`.detect`, :mod:`.corners`), the
ChArUco board spec and length parsing (:mod:`.board`) and the corner anchor
type (:mod:`.anchors`). Printables (``referee.markers``), calibration and the
vision pipeline all import from here; nothing here imports them.
"""
