"""The full verdict JSON of a large random question set, to compare before and after an
engine change (issue 37: every answer the same). Run the same command on both trees and
compare the files byte for byte:

    PYTHONHASHSEED=0 .venv/bin/python benchmarks/dump_verdicts.py OUT.json

Every system with random tables (``SYSTEM_KINDS``), three tables each (no doubt, doubt,
bases apart): the all-pairs map (distances and LOS codes) and 120 random questions
(``range``, ``los``, ``targets`` and any other of the system's questions), answers and
refusals alike. ``PYTHONHASHSEED`` is fixed because a few refusals name a side taken from
a set.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

import numpy as np

from referee.errors import RefereeError
from referee.rules import ruleset_for
from referee.sim.tables import SYSTEM_KINDS, random_table

TABLES = ((14, 6, 0.0, False), (30, 12, 0.05, False), (24, 8, 0.1, True))
"""(pieces, terrain, doubt, apart) of each system's tables."""


def dump() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for system in SYSTEM_KINDS:
        rnd = random.Random(system)
        for t, (n, terrain, doubt, apart) in enumerate(TABLES):
            seed = rnd.randint(0, 999)
            scene = random_table(n, terrain, doubt, seed=seed, ruleset=system, apart=apart)
            rules = ruleset_for(scene)
            ids = [p.id for p in scene.pieces]
            asked = rules.questions()
            key = f"{system}/{t}"
            if hasattr(rules, "visibility"):
                vis = rules.visibility(scene)
                distance = np.round(vis.distance, 12).tolist()
                out[key + "/vis"] = [list(vis.ids), distance, vis.los.tolist()]
            answers = []
            mapped = [q for q in ("range", "los", "targets") if q in asked] or list(asked)
            for k in range(120):
                ask = rnd.choice(mapped) if k % 4 != 3 else rnd.choice(asked)
                query = {
                    "ask": ask,
                    "from": rnd.choice(ids),
                    "to": rnd.choice(ids),
                    "piece": rnd.choice(ids),
                }
                try:
                    answers.append([query, rules.answer(scene, query).to_json()])
                except RefereeError as error:
                    answers.append([query, f"refused: {error}"])
            out[key] = answers
    return out


if __name__ == "__main__":
    found = dump()
    with open(sys.argv[1], "w", encoding="utf-8") as file:
        json.dump(found, file, sort_keys=True, default=str)
    print(
        len(found), "entries,", sum(len(v) for k, v in found.items() if "/vis" not in k), "answers"
    )
