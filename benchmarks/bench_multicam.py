"""Two cameras in real time: the pipeline's CPU per tick against the decoders' CPU per tick.

Issue 32's goal: two 1080p streams at 12 fps processed in real time on 2 cores, i.e. the
pipeline (both cameras' detection and pose, fusion, one tracker) costs at most what
decoding the two streams costs. Both streams here are the bundled skirmish game
(1920x1080, 12 fps, 18 pieces and 4 anchors in view of each camera, pieces moving and
hands over them), one decoder each, matched into frame sets by time as the commands do
(:class:`MultiSource`), each camera with its own detector and profile.

CPU is ``time.process_time`` (every thread of the process, so OpenCV's and FFmpeg's own
threads count), measured around the decoding of each tick's two frames and around
``Pipeline.process`` of the frame set. Prints medians, totals and the ratio.

    .venv/bin/python benchmarks/bench_multicam.py [--ticks N] [--footage DIR]

``--footage DIR`` takes a two-camera footage folder instead (``video-1.mp4``,
``video-2.mp4``, ``camera-1.json``, ``camera-2.json``, ``roster.json``: the club sample).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from referee.calibration.profile import load_profile
from referee.markers.roster import load_roster
from referee.vision.pipeline import Pipeline
from referee.vision.sources import Frame, VideoFileSource, match_frames

FOOTAGE = Path(__file__).resolve().parents[1] / "sample_footage" / "skirmish"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ticks", type=int, default=1000)
    parser.add_argument("--footage", type=Path, default=None)
    args = parser.parse_args()
    if args.footage is None:
        profiles = [load_profile(FOOTAGE / "camera.json")] * 2
        roster = load_roster(FOOTAGE / "roster.json")
        sources = [VideoFileSource(FOOTAGE / "video.mp4") for _ in range(2)]
    else:
        profiles = [load_profile(args.footage / f"camera-{k}.json") for k in (1, 2)]
        roster = load_roster(args.footage / "roster.json")
        sources = [VideoFileSource(args.footage / f"video-{k}.mp4") for k in (1, 2)]
    pipeline = Pipeline(profiles, roster, source_name=("cam1", "cam2"))
    decode_cpu: list[float] = []
    pipeline_cpu: list[float] = []
    wall_start = time.perf_counter()

    # Decoding is timed inside each stream's iterator, frame by frame.
    def timed(source: VideoFileSource) -> object:
        iterator = iter(source)
        while True:
            start = time.process_time()
            frame = next(iterator, None)
            decode_cpu.append(time.process_time() - start)
            if frame is None:
                return
            yield frame

    ticks: list[Frame] = []
    for frame_set in match_frames([timed(s) for s in sources], 1.0 / sources[0].fps):  # type: ignore[list-item]
        start = time.process_time()
        result = pipeline.process(frame_set)
        pipeline_cpu.append(time.process_time() - start)
        ticks.append(frame_set)
        del result
        if len(ticks) >= args.ticks:
            break
    wall = time.perf_counter() - wall_start
    for source in sources:
        source.close()
    # Per tick: the decoders' CPU is the two frames decoded for it.
    per_tick_decode = [a + b for a, b in zip(decode_cpu[0::2], decode_cpu[1::2], strict=False)]
    per_tick_decode = per_tick_decode[: len(pipeline_cpu)]
    dec, pip = statistics.median(per_tick_decode), statistics.median(pipeline_cpu)
    print(f"nproc {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}, ticks {len(ticks)}")
    print("| figure | value |")
    print("|---|---|")
    print(f"| decoders' CPU per tick, 2 x 1080p, median (ms) | {dec * 1000:.1f} |")
    print(
        f"| pipeline's CPU per tick, 2 cameras + fusion + tracker, median (ms) | {pip * 1000:.1f} |"
    )
    print(f"| ratio pipeline / decoders, medians | {pip / dec:.2f} |")
    print(f"| ratio pipeline / decoders, totals | {sum(pipeline_cpu) / sum(per_tick_decode):.2f} |")
    mean_dec = statistics.mean(per_tick_decode) * 1000
    mean_pip = statistics.mean(pipeline_cpu) * 1000
    print(f"| means per tick, decoders / pipeline (ms) | {mean_dec:.1f} / {mean_pip:.1f} |")
    print(
        "| CPU per tick, both, median (ms; 12 fps on 2 cores allows 167) | "
        f"{(dec + pip) * 1000:.1f} |"
    )
    print(
        "| wall time per tick, whole run (ms; 12 fps needs <= 83) | "
        f"{wall / len(ticks) * 1000:.1f} |"
    )


if __name__ == "__main__":
    main()
