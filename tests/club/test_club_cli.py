"""``referee club``: tables registered, listed and removed, a club exported, the server
started on loopback (both back-ends where a database is named)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.club.store import ClubStore

from .helpers import ROSTER, SCENE, events


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_table_add_prints_the_token_last_and_list_and_remove(club_url):
    added = invoke("club", "table", "add", "alpha", "--db", club_url)
    assert added.exit_code == 0, added.output
    token = added.stdout.strip().splitlines()[-1]
    with ClubStore(club_url) as store:
        assert store.table_for_token(token) == "alpha"
    invoke("club", "table", "add", "beta", "--db", club_url)
    listed = invoke("club", "table", "list", "--db", club_url)
    assert listed.exit_code == 0 and "2 table(s)" in listed.stdout
    assert listed.stdout.index("alpha") < listed.stdout.index("beta")
    again = invoke("club", "table", "add", "alpha", "--db", club_url)
    assert again.exit_code == 2 and "exists already" in again.stderr
    assert invoke("club", "table", "remove", "alpha", "--db", club_url).exit_code == 0
    gone = invoke("club", "table", "remove", "alpha", "--db", club_url)
    assert gone.exit_code == 2 and "no table 'alpha'" in gone.stderr


def _filled(url: str) -> None:
    with ClubStore(url) as store:
        for table, game, count in (("alpha", "a1", 5), ("beta", "b1", 3), ("alpha", "a2", 2)):
            if table not in {t.name for t in store.tables()}:
                store.add_table(table)
            store.open_game(table, game, "paper-tigers", SCENE, ROSTER)
            store.ingest(table, game, events(1, count))


def test_export_adds_table_and_game_to_the_readmes_format(club_url):
    _filled(club_url)
    result = invoke("club", "export", "--db", club_url, "--format", "jsonl")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(x["table"], x["game"], x["seq"]) for x in lines] == [
        *(("alpha", "a1", s) for s in range(1, 6)),
        *(("beta", "b1", s) for s in range(1, 4)),
        *(("alpha", "a2", s) for s in range(1, 3)),
    ]
    bare = {k: v for k, v in lines[0].items() if k not in ("table", "game")}
    assert bare == events(1, 1)[0].to_json()
    one = invoke("club", "export", "--db", club_url, "--table", "alpha", "--game", "a2")
    assert [json.loads(x)["seq"] for x in one.stdout.splitlines()] == [1, 2]
    only = invoke("club", "export", "--db", club_url, "--table", "beta", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(only.stdout)))
    assert [(r["table"], r["game"], r["seq"]) for r in rows] == [
        ("beta", "b1", str(s)) for s in (1, 2, 3)
    ]
    assert json.loads(rows[0]["data"])["piece"] == "t34a"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--table", "nobody"], "no table 'nobody'"),
        (["--game", "nope"], "no game 'nope'"),
        (["--table", "beta", "--game", "a1"], "no game 'a1' of table 'beta'"),
    ],
)
def test_export_of_what_is_not_there_is_one_line(club_url, options, message):
    _filled(club_url)
    result = invoke("club", "export", "--db", club_url, *options)
    assert result.exit_code == 2 and message in result.stderr


def test_export_to_a_file(tmp_path):
    url = f"sqlite:///{tmp_path / 'club.sqlite'}"
    _filled(url)
    out = tmp_path / "club.jsonl"
    result = invoke("club", "export", "--db", url, "--out", str(out))
    assert result.exit_code == 0 and len(out.read_text().splitlines()) == 10


def test_the_default_club_is_an_sqlite_file_in_the_data_folder(tmp_path):
    assert invoke("club", "table", "add", "alpha").exit_code == 0
    assert "alpha" in invoke("club", "table", "list").stdout


def test_serve_listens_on_loopback_and_serves_the_page(tmp_path):
    from .processes import ClubProcess

    club = ClubProcess(f"sqlite:///{tmp_path / 'club.sqlite'}").start()
    try:
        assert club.get("api/health")["ok"] is True
        assert club.url.startswith("http://127.0.0.1:")
    finally:
        club.stop()


def test_run_with_half_of_the_club_options_writes_nothing(tmp_path):
    db = tmp_path / "games.sqlite"
    result = invoke(
        "run",
        "--video",
        "x.mp4",
        "-c",
        "c.json",
        "-r",
        "r.json",
        "--db",
        str(db),
        "--club",
        "http://127.0.0.1:1/",
    )
    assert result.exit_code == 2 and "--club and --club-token go together" in result.stderr
    assert not db.exists()


def test_push_of_another_history_is_one_line_and_exit_2(tmp_path):
    """Issue 42: 'club push' said "the club has all 1 game(s)" of a game the club holds
    differently; now it says which event differs and exits 2."""
    from .helpers import running_club, table_log

    with ClubStore(f"sqlite:///{tmp_path / 'club.sqlite'}") as store:
        token = store.add_table("alpha")
        table_log(tmp_path / "first.sqlite", "g1", 8).close()
        table_log(tmp_path / "second.sqlite", "g1", 0).close()
        from .helpers import move

        second = table_log(tmp_path / "second.sqlite", "g1")
        second.append(second.game("g1"), [move(1, "pz1")])
        second.close()
        with running_club(store) as club:
            args = ["club", "push", "--club", club.url, "--club-token", token, "--wait", "1"]
            first = invoke(*args, "--db", str(tmp_path / "first.sqlite"))
            assert first.exit_code == 0 and "the club has all 1 game(s)" in first.stdout
            refused = invoke(*args, "--db", str(tmp_path / "second.sqlite"))
        assert refused.exit_code == 2, refused.output
        assert "the club has all" not in refused.stdout
        (line,) = [x for x in refused.stderr.splitlines() if x.startswith("referee: error:")]
        assert "different event #1" in line and "two histories" in line
        assert store.game("g1").last_seq == 8
