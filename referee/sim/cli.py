"""``referee simulate``: render a scenario script into footage with exact ground truth."""

from __future__ import annotations

from pathlib import Path

import click

from referee.outputs import output_folder
from referee.sim.scenario import load_scenario
from referee.sim.video import simulate as run_simulation


@click.command()
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory for video.mp4, calibration.mp4, roster/scene/camera JSON and truth files.",
)
@click.option(
    "--no-video",
    is_flag=True,
    help="Write only the JSON files (roster, scene, camera, truth): seconds instead of minutes.",
)
@click.option("--no-calibration", is_flag=True, help="Skip the calibration clip.")
@click.option(
    "--frames",
    "max_frames",
    type=click.IntRange(min=1),
    default=None,
    help="Render only the first N frames of each video (truth still covers the whole game).",
)
@click.option(
    "--images",
    is_flag=True,
    help="Write folders of JPEG frames (video/, calibration/) instead of mp4 files.",
)
@click.option(
    "--jpeg-quality",
    type=click.IntRange(1, 100),
    default=92,
    show_default=True,
    help="JPEG quality for --images.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def simulate(
    scenario: Path,
    out: Path,
    no_video: bool,
    no_calibration: bool,
    max_frames: int | None,
    images: bool,
    jpeg_quality: int,
    quiet: bool,
) -> None:
    """Render SCENARIO (a *.scenario.json script) as a camera over the table would film it.

    Writes the game video, a calibration clip, roster.json, scene.json (start
    positions), camera.json (the true profile), truth.jsonl (every piece's true
    pose and tag corners per frame) and truth-moves.json. Deterministic.

    \b
    Example:
      referee simulate sample_footage/skirmish.scenario.json --out sample_footage/skirmish
    """
    output_folder(out, "--out")
    loaded = load_scenario(scenario)
    result = run_simulation(
        loaded,
        out,
        video=not no_video,
        calibration=not no_calibration,
        max_frames=max_frames,
        progress=not quiet,
        jpeg_quality=jpeg_quality if images else None,
    )
    click.echo(
        f"wrote {', '.join(result.files)} to {result.out_dir} "
        f"({loaded.frame_count} frames of truth, {result.frames} video frames, "
        f"{result.calibration_frames} calibration frames)"
    )
