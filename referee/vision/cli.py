"""``referee detect``: what the detector sees in an image, a folder, a video or a camera.

Every tag's id and sub-pixel corners, from the same
:class:`~referee.tags.detect.TagDetector` the pipeline uses (a full-frame
pass per image, nothing carried between images), printed as text or JSON and
optionally drawn on a copy of the picture. Corners are in OpenCV's order
(top-left, top-right, bottom-right, bottom-left; top = the printed "up") and
pixel convention (the centre of the top-left pixel is (0, 0)).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import cv2
import numpy as np
from numpy.typing import NDArray

from referee.errors import RefereeError, SourceError
from referee.media import quiet_libraries, read_image
from referee.outputs import IMAGE_SUFFIXES as WRITABLE_IMAGES
from referee.outputs import StagedFile, output_file, usable_path
from referee.tags.detect import Detections, TagDetector
from referee.tags.layout import DEFAULT_DICTIONARY, canonical_dictionary
from referee.vision.sources import IMAGE_SUFFIXES, ImageFolderSource, open_source


@dataclass(frozen=True)
class Seen:
    """One image looked at: where it came from and the tags found in it."""

    path: str
    """The image file, or the video/camera name for a frame of one."""
    frame: int | None
    """Frame number within a video or camera; None for an image file."""
    detections: Detections

    def to_json(self, with_path: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if with_path:
            data["path"] = self.path
            if self.frame is not None:
                data["frame"] = self.frame
        data["tags"] = [
            {"id": int(tag), "corners_px": [[round(float(v), 3) for v in xy] for xy in quad]}
            for tag, quad in zip(self.detections.ids, self.detections.corners_px, strict=True)
        ]
        return data


def is_single_image(source: str) -> bool:
    """True when ``source`` names one image file (one result, printed without its path)."""
    path = usable_path(source, "SOURCE")
    return path.suffix.lower() in IMAGE_SUFFIXES and path.is_file()


def iter_source(
    source: str, max_frames: int | None = None
) -> Iterator[tuple[str, int | None, NDArray[Any]]]:
    """(path, frame, image) for an image file, a folder, a video, a stream or a camera index."""
    if is_single_image(source):
        yield source, None, read_image(source)
        return
    with open_source(source) as frames:
        for frame in frames:
            if max_frames is not None and frame.index >= max_frames:
                return
            if isinstance(frames, ImageFolderSource):
                yield str(frames.files[frame.index]), None, frame.image
            else:
                yield frames.name, frame.index, frame.image


def detect_source(
    source: str, dictionary: str = DEFAULT_DICTIONARY, max_frames: int | None = None
) -> Iterator[tuple[Seen, NDArray[Any]]]:
    """Each image of ``source`` with the tags found in it by a full-frame pass."""
    detector = TagDetector(dictionary)
    for path, frame, image in iter_source(source, max_frames):
        yield Seen(path, frame, detector.detect_full(image)), image


def draw_tags(image: NDArray[Any], detections: Detections) -> NDArray[np.uint8]:
    """A copy of ``image`` with each tag outlined at its sub-pixel corners, front and id marked."""
    canvas: NDArray[Any] = np.array(image, dtype=np.uint8, copy=True)
    if canvas.ndim == 2:
        canvas = cv2.cvtColor(canvas, cv2.COLOR_GRAY2BGR)
    thickness = max(1, canvas.shape[1] // 960)
    for tag, quad in zip(detections.ids, detections.corners_px, strict=True):
        # shift=4: 1/16 px precision, in OpenCV's pixel-centre convention like the corners.
        pts = np.round(quad * 16).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(canvas, [pts], True, (0, 220, 0), thickness, cv2.LINE_AA, shift=4)
        # The top edge (corner 0 -> 1) is the tag's front: mark it apart.
        cv2.line(canvas, tuple(pts[0, 0]), tuple(pts[1, 0]), (0, 0, 255), thickness, cv2.LINE_AA, 4)
        cv2.circle(canvas, tuple(pts[0, 0]), 3 * 16, (0, 0, 255), thickness, cv2.LINE_AA, 4)
        x, y = quad.mean(axis=0)
        label = str(int(tag))
        scale = 0.5 * thickness
        (w, h), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
        org = (int(x - w / 2), int(y + h / 2))
        cv2.putText(
            canvas,
            label,
            org,
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            (0, 0, 0),
            3 * thickness,
            cv2.LINE_AA,
        )
        cv2.putText(
            canvas,
            label,
            org,
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            (0, 255, 255),
            thickness,
            cv2.LINE_AA,
        )
    return np.asarray(canvas, dtype=np.uint8)


def picture_path(out: Path, count: int, seen: Seen, single: bool) -> Path:
    """``out`` itself for one image; otherwise ``out``'s stem numbered per image or frame."""
    if single:
        return out
    number = seen.frame if seen.frame is not None else count
    return out.with_name(f"{out.stem}-{number:04d}{out.suffix}")


def write_image(target: Path, image: NDArray[Any]) -> None:
    """Write ``image`` beside ``target`` and rename it into place: a failure keeps an earlier
    file, and OpenCV's own complaints never reach the terminal."""
    staged = StagedFile(target, "--picture")
    try:
        with quiet_libraries():
            written = cv2.imwrite(str(staged.path), image)
    except cv2.error:
        written = False
    if not written:
        staged.discard()
        raise RefereeError(f"--picture {target}: cannot write this image; choose another path")
    staged.commit()


def describe(seen: Seen) -> str:
    """Human-readable lines for one image: a heading, then one line per tag."""
    where = seen.path if seen.frame is None else f"{seen.path} frame {seen.frame}"
    n = len(seen.detections)
    lines = [f"{where}: {n} tag{'' if n == 1 else 's'}"]
    order = np.argsort(seen.detections.ids, kind="stable")
    for k in order:
        quad = seen.detections.corners_px[k]
        corners = " ".join(f"({x:.2f}, {y:.2f})" for x, y in quad)
        side = float(seen.detections.side_px[k])
        lines.append(f"  id {int(seen.detections.ids[k]):>4}  side {side:5.1f}px  {corners}")
    return "\n".join(lines)


@click.command()
@click.argument("source")
@click.option(
    "--dictionary",
    default=DEFAULT_DICTIONARY,
    show_default=True,
    help="Tag dictionary: OpenCV's name (AprilTag families too, e.g. DICT_APRILTAG_36H11) "
    "or a .yml file written by OpenCV's writeDictionary.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.option(
    "--picture",
    type=click.Path(dir_okay=False),
    help="Write the image with the tags drawn on it (several images: OUT-0001.png, ...).",
)
@click.option(
    "--frames",
    type=click.IntRange(min=1),
    help="Stop after this many frames of a video or camera.  [default: all; a camera runs "
    "until Ctrl-C]",
)
def detect(
    source: str, dictionary: str, as_json: bool, picture: str | None, frames: int | None
) -> None:
    """Show the tags the detector finds in SOURCE: an image, a folder, a video or a camera (0).

    Prints each tag's id and sub-pixel corners in OpenCV's order (top-left,
    top-right, bottom-right, bottom-left; top = the tag's printed front) and
    pixel convention (the top-left pixel's centre is (0, 0)). --json prints
    {"tags": [{"id": 3, "corners_px": [[x, y], ...]}]} for one image, and one
    such object per line, with its "path" (and "frame"), for several.
    """
    try:
        name = canonical_dictionary(dictionary)
    except ValueError as error:
        raise RefereeError(f"--dictionary: {error}") from None
    single = is_single_image(source)
    out = None
    if picture is not None:
        out = output_file(picture, "--picture", WRITABLE_IMAGES, "seen.png")
        if out.absolute() == Path(source).absolute():
            raise RefereeError(f"SOURCE and --picture both name {source}; give two files")
    count = 0
    try:
        for seen, image in detect_source(source, name, frames):
            count += 1
            if as_json:
                click.echo(json.dumps(seen.to_json(with_path=not single)))
            else:
                click.echo(describe(seen))
            if out is not None:
                target = picture_path(out, count, seen, single)
                write_image(output_file(target, "--picture"), draw_tags(image, seen.detections))
    except KeyboardInterrupt:
        pass
    if count == 0:
        raise SourceError(f"{source}: gave no images")
