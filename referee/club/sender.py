"""Sending a table's game log to the club: the local SQLite log is the outbox.

Nothing new is kept locally: the club's high-water mark per game (what it
answers when the game is registered, and after every batch) is the truth,
so a sender that restarts, a table that was offline, or a ``referee club
push`` afterwards just asks the club where it stands and sends what follows,
in order, in batches. The club skips seqs it holds, so a batch resent after
a lost answer is never stored twice.

What the club holds already is sent again once, first, for the club to compare
with its own (a few requests for a long game): a log whose events differ from
the club's under the same seqs (another history under the game's name) is
refused there, said once, and nothing more of that game is sent, rather than
told "the club has it all" or mixed into the club's history.

:class:`ClubSender` does it in a thread beside a running game (``referee
run``, ``demo``, ``serve`` with ``--club``); :func:`push` does it once, now
(``referee club push``).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from referee.errors import RefereeError
from referee.store import EvidenceError, GameInfo, GameLog, StoreError

BATCH = 500
"""Events per request (the club takes up to 1000)."""

POLL = 0.05
"""Seconds between looks at the local log while caught up."""

BACKOFF = (0.2, 5.0)
"""First and longest wait between attempts while the club is unreachable (doubling)."""


class ClubUnreachable(RefereeError):
    """No answer, a broken connection or a 5xx: worth trying again later."""


class ClubRefused(RefereeError):
    """An answer that retrying will not change (a bad token, another table's game...)."""

    def __init__(self, message: str, status: int = 0, differs: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.differs = differs
        """The first seq whose event the club holds differently (two histories of a game)."""


@dataclass(frozen=True)
class ClubAddress:
    scheme: str
    host: str
    port: int
    path: str

    @classmethod
    def parse(cls, url: str) -> ClubAddress:
        parts = urlsplit(url.strip())
        try:
            port = parts.port
        except ValueError:
            port = -1
        if parts.scheme not in ("http", "https") or not parts.hostname or port == -1:
            raise RefereeError(
                f"--club: {url[:80]!r} is not a club server's URL; give the http://HOST:PORT/ "
                "'referee club serve' prints"
            )
        default = 443 if parts.scheme == "https" else 80
        return cls(parts.scheme, parts.hostname, port or default, parts.path.rstrip("/"))


class ClubClient:
    """One keep-alive HTTP connection to the club's API, reopened after any failure."""

    def __init__(self, url: str, token: str, timeout: float = 15.0) -> None:
        if not token.strip() or not token.isascii() or not token.isprintable():
            raise RefereeError(
                "--club-token: give the token 'referee club table add NAME' printed for this table"
            )
        self.url = url
        self.address = ClubAddress.parse(url)
        self.token = token.strip()
        self.timeout = timeout
        self._con: http.client.HTTPConnection | None = None

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None

    def request(
        self, method: str, path: str, body: Any = None, *, raw: bytes | None = None
    ) -> tuple[int, Any]:
        """``(status, JSON answer)``; :class:`ClubUnreachable` when there is no answer.
        ``raw`` is a JPEG body (a picture) in place of JSON."""
        a = self.address
        if self._con is None:
            kind = (
                http.client.HTTPSConnection if a.scheme == "https" else http.client.HTTPConnection
            )
            self._con = kind(a.host, a.port, timeout=self.timeout)
        data = json.dumps(body, separators=(",", ":")).encode() if body is not None else raw
        kind_of = "image/jpeg" if raw is not None else "application/json"
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": kind_of}
        try:
            self._con.request(method, a.path + path, body=data, headers=headers)
            response = self._con.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException) as error:
            self.close()
            raise ClubUnreachable(f"{self.url}: no answer ({_why(error)})") from None
        try:
            answer = json.loads(raw) if raw else {}
        except ValueError:
            answer = {"error": raw[:200].decode("utf-8", "replace")}
        if response.status >= 500:
            self.close()
            raise ClubUnreachable(f"{self.url}: {_said(answer, response.status)}")
        return response.status, answer

    def register(self, game: GameInfo) -> int:
        """Register ``game`` (or find it) on the club: the club's high-water mark."""
        status, answer = self.request(
            "PUT",
            f"/api/games/{quote(game.name, safe='')}",
            {
                "ruleset": game.ruleset,
                "scene": game.scene,
                "roster": game.roster,
                "created": game.created,
            },
        )
        if status != 200:
            raise ClubRefused(f"{self.url}: game {game.name!r}: {_said(answer, status)}", status)
        return int(answer["last_seq"])

    def send(self, game: GameInfo, lines: list[dict[str, Any]]) -> tuple[bool, int]:
        """Send one batch: whether the club took it (it holds every line of it now), and its
        high-water mark after it (where to resend from when it did not)."""
        status, answer = self.request(
            "POST", f"/api/games/{quote(game.name, safe='')}/events", {"events": lines}
        )
        if status == 200:
            return True, int(answer["last_seq"])
        differs = answer.get("differs")
        if status == 409 and isinstance(differs, int) and not isinstance(differs, bool):
            raise ClubRefused(
                f"{self.url}: game {game.name!r}: the club holds a different event #{differs} "
                "under that name (two histories of one game, HTTP 409); nothing more of it is "
                "sent and the club keeps its own",
                status,
                differs,
            )
        if status == 409 and isinstance(answer.get("last_seq"), int):
            return False, int(answer["last_seq"])  # the club's truth: resend from there
        raise ClubRefused(f"{self.url}: game {game.name!r}: {_said(answer, status)}", status)

    def put_evidence(self, game: GameInfo, seq: int, kind: str, data: bytes) -> None:
        """Send one picture of event ``seq`` (the club holds the event already)."""
        path = f"/api/games/{quote(game.name, safe='')}/evidence/{seq}/{quote(kind, safe='')}.jpg"
        status, answer = self.request("PUT", path, raw=data)
        if status != 200:
            raise ClubRefused(
                f"{self.url}: game {game.name!r}: event #{seq}'s {kind} evidence: "
                f"{_said(answer, status)}",
                status,
            )

    def end(self, game: GameInfo) -> None:
        """Tell the club this table stopped sending ``game`` (the club page's "live" goes)."""
        status, answer = self.request("POST", f"/api/games/{quote(game.name, safe='')}/end", {})
        if status != 200:
            raise ClubRefused(f"{self.url}: game {game.name!r}: {_said(answer, status)}", status)

    def holds(self, game: GameInfo, lines: list[dict[str, Any]]) -> bool:
        """Whether the club holds exactly ``lines`` as ``game`` (whichever table sent it)."""
        held: list[dict[str, Any]] = []
        while True:
            after = held[-1]["seq"] if held else 0
            status, answer = self.request(
                "GET", f"/api/games/{quote(game.name, safe='')}/events?after={after}"
            )
            chunk = answer.get("events") if status == 200 else None
            if not isinstance(chunk, list):
                return False
            held += chunk
            if not chunk or len(held) >= len(lines):
                return held == lines


def _why(error: BaseException) -> str:
    if isinstance(error, socket.timeout):
        return "timed out"
    return getattr(error, "strerror", None) or str(error) or type(error).__name__


def _said(answer: Any, status: int) -> str:
    message = answer.get("error") if isinstance(answer, dict) else None
    return f"HTTP {status}: {message}" if message else f"HTTP {status}"


class Outbox:
    """One local game and where the club stands on it."""

    def __init__(self, log: GameLog, game: GameInfo, client: ClubClient) -> None:
        self.log = log
        self.game = game
        self.client = client
        self.acked: int | None = None
        """The last seq the club holds as this log does (None until asked; 0 until what
        the club held at registration is compared)."""
        self.held = 0
        """The club's high-water mark when the game was registered."""

    def owed(self) -> int:
        """Events the local log has that the club has not acknowledged (all before asking)."""
        info = self.log.game(self.game.name)
        return info.last_seq - (self.acked or 0)

    def step(self) -> int:
        """Send one batch of what the club lacks (or holds, not yet compared): how many
        events were sent (0: caught up)."""
        if self.acked is None:
            self.held = self.client.register(self.game)
            self.acked = 0
        events = self.log.events(self.game, after=self.acked, upto_seq=self.acked + BATCH)
        if not events:
            return 0
        took, last_seq = self.client.send(self.game, [e.to_json() for e in events])
        if not took:
            # A gap: the club holds less than it once said (restored from an older backup):
            # resend from where it stands.
            self.acked = min(self.acked, last_seq)
            return len(events)
        if last_seq < events[-1].seq:
            raise ClubRefused(
                f"{self.client.url}: game {self.game.name!r}: the club did not take events "
                f"after #{last_seq}"
            )
        # The batch's pictures before it counts as sent: a club unreachable meanwhile gets
        # the batch again (skipped as held) and its pictures (the same again is a no-op).
        self._send_evidence(events[0].seq, events[-1].seq)
        self.acked = events[-1].seq
        return len(events)

    def _send_evidence(self, first: int, last: int) -> None:
        """The pictures the log kept with events ``first..last``; a damaged or refused one is
        a note on stderr, never the game's stop."""
        for seq, kinds in self.log.evidence_index(self.game).items():
            if not first <= seq <= last:
                continue
            for kind, _size in kinds:
                try:
                    data = self.log.evidence(self.game, seq, kind)
                    if data is not None:
                        self.client.put_evidence(self.game, seq, kind, data)
                except (EvidenceError, ClubRefused) as error:
                    _stderr(f"club: {error}")


def _stderr(message: str) -> None:
    print(f"referee: {message}", file=sys.stderr, flush=True)


class ClubSender:
    """Sends a game's log to the club from a thread while the game is played.

    Says once when the club is unreachable (the game plays on and is logged
    locally) and once when it has caught up again; a refusal (a wrong token,
    another table's game) is said once and ends sending: the log keeps
    everything for a later ``referee club push``.
    """

    def __init__(
        self,
        db: str | os.PathLike[str],
        game: str,
        url: str,
        token: str,
        *,
        say: Callable[[str], None] = _stderr,
    ) -> None:
        self.db = Path(db)
        self.game = game
        self.client = ClubClient(url, token)
        self.say = say
        self.error: str | None = None
        self._outbox: Outbox | None = None
        self._stop = threading.Event()
        self._draining = threading.Event()
        self._wake = threading.Event()
        self._caught_up = threading.Event()
        self._thread = threading.Thread(target=self._run, name="club-sender", daemon=True)

    def start(self) -> ClubSender:
        self._thread.start()
        return self

    def notify(self) -> None:
        """New events were committed: look now rather than at the next poll."""
        self._wake.set()

    @property
    def acked(self) -> int | None:
        return self._outbox.acked if self._outbox is not None else None

    def wait_caught_up(self, timeout: float) -> bool:
        return self._caught_up.wait(timeout)

    def stop(self, timeout: float = 10.0) -> int | None:
        """Send what is left (for at most ``timeout`` seconds), then stop: events still owed
        (None when the club was never reached)."""
        self._draining.set()
        self._wake.set()
        self._thread.join(timeout)
        self._stop.set()
        self._wake.set()
        self._thread.join(5.0)
        outbox = self._outbox
        if self.error is None and self._caught_up.is_set() and outbox is not None:
            # The club answered a moment ago: tell it this table stopped sending. A club
            # that is away now is not waited for (it shows the game live a while longer).
            with contextlib.suppress(ClubUnreachable, ClubRefused):
                self.client.end(outbox.game)
        self.client.close()
        if outbox is None or outbox.acked is None:
            return None
        try:
            with GameLog(self.db, readonly=True) as log:
                return log.game(self.game).last_seq - outbox.acked
        except StoreError:
            return None

    def _run(self) -> None:
        log: GameLog | None = None
        delay = BACKOFF[0]
        away = False
        try:
            while not self._stop.is_set():
                try:
                    if log is None:
                        log = GameLog(self.db, readonly=True)
                    if self._outbox is None:
                        self._outbox = Outbox(log, log.game(self.game), self.client)
                    sent = self._outbox.step()
                except ClubUnreachable as error:
                    if not away:
                        self.say(f"club unreachable ({error}); playing on, logged locally")
                        away = True
                    self._stop.wait(delay)
                    delay = min(delay * 2, BACKOFF[1])
                    continue
                except (ClubRefused, StoreError) as error:
                    self.error = str(error)
                    self.say(f"club: {error}; not sending (the game is logged locally)")
                    return
                delay = BACKOFF[0]
                if sent:
                    self._caught_up.clear()
                    continue
                if not self._caught_up.is_set():
                    self._caught_up.set()
                    if away:
                        acked = self._outbox.acked
                        self.say(f"club caught up: it has game {self.game!r} to event #{acked}")
                        away = False
                if self._draining.is_set():
                    return
                self._wake.wait(POLL)
                self._wake.clear()
        finally:
            if log is not None:
                log.close()


@dataclass(frozen=True)
class ClubChoice:
    """``--club URL --club-token TOKEN`` as given, before :meth:`ClubTarget.from_options`
    checks them."""

    url: str | None = None
    token: str | None = None


def club_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--club URL --club-token TOKEN``: where a table sends its games, as one
    :class:`ClubChoice` value ``club_choice``."""
    import click

    from referee.commands import gathered

    names = {"club_url": "url", "club_token": "token"}
    command = gathered("club_choice", ClubChoice, names)(command)
    command = click.option(
        "--club-token", metavar="TOKEN", help="This table's token ('referee club table add')."
    )(command)
    return click.option(
        "--club", "club_url", metavar="URL", help="Club server to send the game to as it goes."
    )(command)


@dataclass(frozen=True)
class ClubTarget:
    """``--club URL --club-token TOKEN`` as given to ``run``, ``demo`` or ``serve``, checked."""

    url: str
    token: str

    @classmethod
    def from_options(cls, url: str | None, token: str | None, logged: bool) -> ClubTarget | None:
        """None without ``--club``; a one-line error for half of the pair or with --no-log.
        Checked before anything is opened or written."""
        if url is None and token is None:
            return None
        if url is None or token is None:
            raise RefereeError("--club and --club-token go together: give both or neither")
        if not logged:
            raise RefereeError("--club sends the game log to the club; it cannot go with --no-log")
        ClubClient(url, token)  # checks both
        return cls(url, token)

    def start(self, db: str | os.PathLike[str], game: str) -> ClubSender:
        sender = ClubSender(db, game, self.url, self.token).start()
        _stderr(f"sending game {game!r} to the club at {self.url}")
        return sender


def finish(sender: ClubSender | None, db: str | os.PathLike[str], timeout: float = 10.0) -> None:
    """Give the sender ``timeout`` seconds to send the rest; say what is still owed."""
    if sender is None:
        return
    owed = sender.stop(timeout)
    if sender.error is not None:
        # Refused (said when it happened): a push would be refused the same way.
        if owed:
            _stderr(f"club: {owed} event(s) of game {sender.game!r} not sent (refused above)")
        return
    if owed:
        _stderr(
            f"club: {owed} event(s) of game {sender.game!r} not sent yet; 'referee club push "
            f"--db {db} --club {sender.client.url} --club-token TOKEN' sends them"
        )
    elif owed is None and sender.error is None:
        _stderr(f"club: {sender.client.url} was not reached; 'referee club push' sends the game")


def push(
    db: str | os.PathLike[str],
    url: str,
    token: str,
    games: list[str] | None = None,
    wait: float = 30.0,
    say: Callable[[str], None] = _stderr,
) -> dict[str, int]:
    """Send every game (or ``games``) of the log at ``db`` until the club has all of it.

    Returns each game's last seq; keeps trying an unreachable club for ``wait``
    seconds, then raises with what is still owed.
    """
    client = ClubClient(url, token)
    done: dict[str, int] = {}
    try:
        with GameLog(db, readonly=True) as log:
            chosen = [log.game(name) for name in games] if games else log.games()
            if not chosen:
                raise RefereeError(f"{db}: no games in this log; nothing to send")
            for info in chosen:
                outbox = Outbox(log, info, client)
                deadline = time.monotonic() + wait
                delay = BACKOFF[0]
                while True:
                    try:
                        if outbox.step() == 0:
                            break
                        delay = BACKOFF[0]
                    except ClubRefused as error:
                        # Two tables that share one log file: the other table's game is at
                        # the club already, event for event; anything else is a refusal.
                        if error.status != 409 or error.differs is not None or games:
                            raise
                        lines = [e.to_json() for e in log.events(info)]
                        if not client.holds(info, lines):
                            raise
                        outbox.acked = info.last_seq
                        say(f"game {info.name!r} was sent by another table; the club has it all")
                        break
                    except ClubUnreachable as error:
                        if time.monotonic() + delay > deadline:
                            owed = outbox.owed()
                            raise ClubUnreachable(
                                f"{error}; {owed} event(s) of game {info.name!r} still owed, "
                                "run 'referee club push' again when the club is back"
                            ) from None
                        time.sleep(delay)
                        delay = min(delay * 2, BACKOFF[1])
                done[info.name] = info.last_seq if outbox.acked is None else outbox.acked
                if outbox.acked is not None and outbox.acked > outbox.held:
                    # This push stored events: it was the table sending, and now it stops.
                    with contextlib.suppress(ClubUnreachable, ClubRefused):
                        client.end(info)
                more = (
                    f", and #{done[info.name] + 1} to #{outbox.held} that this log does not hold"
                    if outbox.held > done[info.name]
                    else ""
                )
                say(f"game {info.name!r}: the club has events 1 to #{done[info.name]}{more}")
    finally:
        client.close()
    return done


__all__ = [
    "ClubClient",
    "ClubRefused",
    "ClubSender",
    "ClubTarget",
    "ClubUnreachable",
    "Outbox",
    "finish",
    "push",
]
