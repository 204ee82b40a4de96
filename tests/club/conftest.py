"""Fixtures of the club's tests: one real PostgreSQL server for the session, and a club
database URL parametrized over both back-ends, so every store and API test runs on
PostgreSQL and on SQLite with the same code."""

from __future__ import annotations

import itertools

import pytest

from .postgres import PostgresServer, postgres_missing

_databases = itertools.count(1)


@pytest.fixture(scope="session")
def pg_server():
    """A PostgreSQL server on a free loopback port, stopped and removed after the session."""
    missing = postgres_missing()
    if missing is not None:
        pytest.skip(missing)
    server = PostgresServer()
    server.start()
    yield server
    server.destroy()


def new_club_url(request, tmp_path) -> str:
    """An empty club database: a new SQLite file, or a new database on the session's server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'club.sqlite'}"
    server = request.getfixturevalue("pg_server")
    return server.new_database(f"club{next(_databases)}")


@pytest.fixture(
    params=[
        "sqlite",
        # The server and its pages speak to the store alone, which tests/club/test_club_store.py
        # runs on both back-ends in the README's command; CI runs these on PostgreSQL too.
        pytest.param("postgresql", marks=pytest.mark.slow(reason="the store tests cover it")),
    ]
)
def club_url(request, tmp_path):
    """An empty club database for the server's tests (PostgreSQL under ``-m slow``)."""
    return new_club_url(request, tmp_path)
