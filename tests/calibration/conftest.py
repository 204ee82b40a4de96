"""Fixtures: simulated calibration footage (rendered once per session) and the real photos."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from referee.calibration.calibrate import CalibrationRun, Frame, calibrate_frames
from referee.tags.board import BoardSpec

HERE = Path(__file__).resolve().parent
#: Copies of ../shared/real-images (Apache-2.0, see the README there) so CI needs no sibling.
REAL = HERE.parent / "data" / "calibration" / "real-images"
CHARUCO = REAL / "charuco-calibration"
REAL_SPEC = "charuco:5x7:0.04m:0.02m:DICT_6X6_250"
#: A board big enough to read from 49 in at 1280x720 (the tests' camera).
SIM_BOARD = BoardSpec.parse("charuco:5x7:1.5in:1.1in:DICT_5X5_100")


def _load_sim_views() -> ModuleType:
    spec = importlib.util.spec_from_file_location("calibration_sim_views", HERE / "sim_views.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def sim() -> ModuleType:
    return _load_sim_views()


@pytest.fixture(scope="session")
def sim_rig(sim: ModuleType):  # type: ignore[no-untyped-def]
    return sim.rig(1280, 720)


@pytest.fixture(scope="session")
def held_frames(sim: ModuleType, sim_rig) -> list[Frame]:  # type: ignore[no-untyped-def]
    poses = sim.held_board_poses(sim_rig, 12, board=SIM_BOARD)
    return [
        Frame(f"held{i:02d}", sim.render_held(sim_rig, *p, board=SIM_BOARD))
        for i, p in enumerate(poses)
    ]


@pytest.fixture(scope="session")
def sim_run(sim: ModuleType, sim_rig, held_frames: list[Frame]) -> CalibrationRun:  # type: ignore[no-untyped-def]
    table_view = Frame("table", sim.render_table(sim_rig, board=SIM_BOARD))
    return calibrate_frames([*held_frames, table_view], spec=SIM_BOARD, table=sim.TABLE)
