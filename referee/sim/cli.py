"""``referee simulate``: render a scenario script into footage with exact ground truth."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import click

from referee.commands import gathered
from referee.errors import write_json_atomic
from referee.outputs import output_folder
from referee.sim.random_game import DEFAULT_DURATION_S, MIN_DURATION_S, SETUPS, random_scenario
from referee.sim.scenario import load_scenario, parse_scenario
from referee.sim.video import fixed_precision
from referee.sim.video import simulate as run_simulation

#: The longest random game ``--duration`` asks for, seconds (rendering is ~1 s a frame set).
MAX_RANDOM_DURATION_S = 600.0


@dataclass(frozen=True)
class RandomGame:
    """``--random``, ``--setup``, ``--duration`` and ``--webcam``: a game drawn from a seed
    (``seed`` None: the game is a SCENARIO file, and the other three must not be given)."""

    seed: int | None
    setup: str | None
    duration: float | None
    webcam: bool | None


@dataclass(frozen=True)
class Rendering:
    """``--no-video``, ``--no-calibration``, ``--frames``, ``--images``, ``--jpeg-quality``
    and ``--quiet``: what is rendered, and how it is written."""

    no_video: bool
    no_calibration: bool
    max_frames: int | None
    images: bool
    jpeg_quality: int
    quiet: bool


@click.command()
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--random",
    "random_seed",
    type=click.IntRange(0, 2**31 - 1),
    default=None,
    metavar="SEED",
    help="Instead of SCENARIO: a random game drawn from SEED (same seed, same game).",
)
@click.option(
    "--setup",
    type=click.Choice(SETUPS),
    default=None,
    help="With --random: the cameras (overhead, oblique webcam, two-cameras, 4k).  "
    "[default: overhead]",
)
@click.option(
    "--duration",
    type=click.FloatRange(MIN_DURATION_S, MAX_RANDOM_DURATION_S),
    default=None,
    help=f"With --random: the game's length in seconds.  [default: {DEFAULT_DURATION_S:g}]",
)
@click.option(
    "--webcam/--no-webcam",
    default=None,
    help="With --random: a USB webcam's MJPEG, exposure hunting, flicker, rolling shutter "
    "and hand shadows (default: on for --setup oblique only).",
)
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
@gathered(
    "rendering",
    Rendering,
    {n: n for n in ("no_video", "no_calibration", "max_frames", "images", "jpeg_quality", "quiet")},
)
@gathered(
    "drawn_from",
    RandomGame,
    {"random_seed": "seed", "setup": "setup", "duration": "duration", "webcam": "webcam"},
)
def simulate(
    scenario: Path | None, drawn_from: RandomGame, out: Path, rendering: Rendering
) -> None:
    """Render SCENARIO (a *.scenario.json script) as a camera over the table would film it.

    Writes the game video, a calibration clip, roster.json, scene.json (start
    positions), camera.json (the true profile), truth.jsonl (every piece's true
    pose and tag corners per frame) and truth-moves.json. Deterministic.

    \b
    With --random SEED (and no SCENARIO) it draws a random game instead and
    also writes it as random.scenario.json (to re-render or edit), and
    truth-events.json (pieces carried off or brought on).

    \b
    Examples:
      referee simulate sample_footage/skirmish.scenario.json --out sample_footage/skirmish
      referee simulate --random 7 --setup oblique --out games/oblique-7
    """
    random_seed, setup, duration = drawn_from.seed, drawn_from.setup, drawn_from.duration
    if (scenario is None) == (random_seed is None):
        raise click.UsageError(
            "give a SCENARIO file or --random SEED (exactly one of them)"
            if scenario is None
            else f"give SCENARIO ({scenario}) or --random SEED, not both"
        )
    if random_seed is None:
        given = (("--setup", setup), ("--duration", duration), ("--webcam", drawn_from.webcam))
        for name, value in given:
            if value is not None:
                raise click.UsageError(f"{name} is for --random games; SCENARIO says its own")
    output_folder(out, "--out")
    drawn = None
    if random_seed is not None:
        drawn = random_scenario(
            random_seed,
            setup or "overhead",
            duration=DEFAULT_DURATION_S if duration is None else duration,
            webcam=drawn_from.webcam,
        )
        loaded = parse_scenario(drawn, f"--random {random_seed}")
    else:
        assert scenario is not None
        loaded = load_scenario(scenario)
    result = run_simulation(
        loaded,
        out,
        video=not rendering.no_video,
        calibration=not rendering.no_calibration,
        max_frames=rendering.max_frames,
        progress=not rendering.quiet,
        jpeg_quality=rendering.jpeg_quality if rendering.images else None,
        events=drawn is not None,
    )
    files = list(result.files)
    if drawn is not None:
        write_json_atomic(out / "random.scenario.json", fixed_precision(drawn))
        files.append("random.scenario.json")
    click.echo(
        f"wrote {', '.join(files)} to {result.out_dir} "
        f"({loaded.frame_count} frames of truth, {result.frames} video frames, "
        f"{result.calibration_frames} calibration frames)"
    )
