"""Club server benchmarks: a real PostgreSQL 15 (default durability: fsync and
synchronous_commit on) and a real ``referee club serve`` process, on this machine.

Run: .venv/bin/python benchmarks/bench_club.py   (about 3 minutes; needs PostgreSQL's
initdb, and Debian's chromium for the page)

1. Live: 20 tables play at once at a real game's rate (a settled move and its verdict
   every 2 s per table, plus flags and answers: ~2 events/s a table), each a local
   SQLite game log with a ClubSender thread, as ``referee run --club`` runs it. A
   reader polls the club's API; the latency of an event is from its table's local
   commit to the club's API first returning it. Median and p95 over every event.
2. Burst: then every table has a backlog (a table that was offline, 5,000 events
   each, 100,000 in all) and all 20 send at once (``referee club push``'s code, one
   thread each, batches of 500): durable events per second ingested, from the first
   request to the club holding the last event (every batch one committed transaction).
3. Page: a club of 10 tables with a game of 300 events each; headless Chromium loads
   the club page; time to first paint (``first-contentful-paint``), median of 7 loads.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from club.helpers import ROSTER, SCENE, events, move, verdict  # noqa: E402
from club.postgres import PostgresServer, postgres_missing  # noqa: E402
from club.processes import ClubProcess, add_table  # noqa: E402

from referee.club.sender import ClubSender, push  # noqa: E402
from referee.store import GameLog  # noqa: E402

TABLES = 20
LIVE_SECONDS = 30.0
EVENTS_EVERY = 0.5  # seconds between a table's events while it plays (~2 a second)
BACKLOG = 5_000
PAGE_TABLES = 10
PAGE_EVENTS = 300


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def live(club: ClubProcess, folder: Path, tokens: dict[str, str]) -> dict[str, float]:
    committed: dict[tuple[str, int], float] = {}
    seen: dict[tuple[str, int], float] = {}
    stop = threading.Event()
    logs = {}
    for name in tokens:
        log = GameLog(folder / f"{name}.sqlite", durable=True)
        log.create_game(f"{name}-game", "paper-tigers", SCENE, roster=ROSTER)
        logs[name] = log
    senders = {
        name: ClubSender(folder / f"{name}.sqlite", f"{name}-game", club.url, tokens[name]).start()
        for name in tokens
    }

    def table(name: str, offset: float) -> None:
        log = logs[name]
        time.sleep(offset)
        seq = 0
        while not stop.is_set():
            seq += 1
            event = move(seq, x=5 + seq * 0.01) if seq % 2 else verdict(seq, True, seq - 1)
            log.append(log.game(f"{name}-game"), [event])
            committed[(name, seq)] = time.time()
            senders[name].notify()
            stop.wait(EVENTS_EVERY)

    def reader() -> None:
        after = dict.fromkeys(tokens, 0)
        while not stop.is_set() or any(
            after[n] < max((s for (m, s) in committed if m == n), default=0) for n in tokens
        ):
            for name in tokens:
                try:
                    answer = _get(f"{club.url}api/games/{name}-game/events?after={after[name]}")
                except urllib.error.HTTPError:  # not registered by its sender yet
                    continue
                now = time.time()
                for line in answer["events"]:
                    seen[(name, line["seq"])] = now
                    after[name] = line["seq"]
            time.sleep(0.02)

    threads = [
        threading.Thread(target=table, args=(n, i * EVENTS_EVERY / TABLES))
        for i, n in enumerate(tokens)
    ]
    read = threading.Thread(target=reader)
    for t in threads:
        t.start()
    read.start()
    time.sleep(LIVE_SECONDS)
    stop.set()
    for t in threads:
        t.join()
    read.join(60)
    for sender in senders.values():
        sender.stop()
    for log in logs.values():
        log.close()
    latencies = sorted(seen[k] - committed[k] for k in committed if k in seen)
    missing = len(committed) - len(latencies)
    return {
        "events": len(committed),
        "missing": missing,
        "median_s": statistics.median(latencies),
        "p95_s": latencies[int(0.95 * (len(latencies) - 1))],
        "max_s": latencies[-1],
    }


def burst(club: ClubProcess, folder: Path, tokens: dict[str, str]) -> dict[str, float]:
    for name in tokens:
        with GameLog(folder / f"{name}-burst.sqlite") as log:
            info = log.create_game(f"{name}-burst", "paper-tigers", SCENE, roster=ROSTER)
            for start in range(1, BACKLOG + 1, 500):
                log.append(info, events(start, min(start + 499, BACKLOG)))
    errors: list[BaseException] = []

    def send(name: str) -> None:
        try:
            push(folder / f"{name}-burst.sqlite", club.url, tokens[name], say=lambda _: None)
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=send, args=(n,)) for n in tokens]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    assert not errors, errors
    held = sum(_get(f"{club.url}api/games/{n}-burst")["last_seq"] for n in tokens)
    assert held == TABLES * BACKLOG, held
    return {"events": held, "seconds": elapsed, "events_per_s": held / elapsed}


FCP = (
    "() => new Promise(done => { const seen = () => {"
    " const e = performance.getEntriesByName('first-contentful-paint')[0];"
    " const n = performance.getEntriesByType('navigation')[0];"
    " if (e) done([e.startTime, n.responseStart - n.requestStart]);"
    " else setTimeout(seen, 20); }; seen(); })"
)


def _paints(browser, url: str, loads: int = 7) -> tuple[list[float], list[float]]:
    paints, waits = [], []
    for _ in range(loads):
        context = browser.new_context()
        tab = context.new_page()
        tab.goto(url)
        fcp, wait = tab.evaluate(FCP)
        paints.append(float(fcp))
        waits.append(float(wait))
        context.close()
    return paints, waits


def page(club_db: str, empty_db: str) -> dict[str, float] | str:
    """First paint of the 10-table page, and of an empty club's page on the same browser
    and server (the machine's own floor: what the 10 tables add is the difference)."""
    from web.browser import chromium, chromium_missing

    from referee.club.store import ClubStore

    if chromium_missing() is not None:
        return f"skipped: {chromium_missing()}"
    with ClubStore(club_db) as store:
        for i in range(PAGE_TABLES):
            name = f"page{i:02d}"
            store.add_table(name)
            store.open_game(name, f"{name}-game", "paper-tigers", SCENE, ROSTER)
            store.ingest(name, f"{name}-game", events(1, PAGE_EVENTS))
    full, empty = ClubProcess(club_db).start(), ClubProcess(empty_db).start()
    try:
        with chromium() as browser:
            _paints(browser, full.url, 2)  # warm both servers and the browser
            _paints(browser, empty.url, 2)
            paints, waits, base, base_waits = [], [], [], []
            for _ in range(4):  # interleaved: the machine's load hits both alike
                p, w = _paints(browser, full.url, 2)
                paints += p
                waits += w
                p, w = _paints(browser, empty.url, 2)
                base += p
                base_waits += w
    finally:
        full.stop()
        empty.stop()
    return {
        "fcp_median_ms": statistics.median(paints),
        "fcp_max_ms": max(paints),
        "server_median_ms": statistics.median(waits),
        "empty_club_fcp_median_ms": statistics.median(base),
        "empty_club_server_median_ms": statistics.median(base_waits),
        "loads": len(paints),
    }


def main() -> None:
    missing = postgres_missing()
    if missing is not None:
        sys.exit(f"bench_club: {missing}")
    server = PostgresServer()
    server.start()
    folder = Path(tempfile.mkdtemp(prefix="bench-club-"))
    try:
        db = server.new_database("bench")
        if os.environ.get("BENCH_CLUB_ONLY") == "page":
            results = {"page": page(server.new_database("p"), server.new_database("e"))}
            print(json.dumps(results, indent=1))
            return
        club = ClubProcess(db).start()
        try:
            tokens = {f"table{i:02d}": add_table(db, f"table{i:02d}") for i in range(TABLES)}
            results = {
                "nproc": os.cpu_count(),
                "live": live(club, folder, tokens),
                "burst": burst(club, folder, tokens),
            }
        finally:
            club.stop()
        results["page"] = page(server.new_database("bench_page"), server.new_database("empty"))
        results["load_average"] = os.getloadavg()[0]
    finally:
        server.destroy()
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
