"""``referee serve --host 0.0.0.0`` prints (and QR-encodes) an address a tablet can reach:
the machine's LAN address, found from the routing table without sending anything."""

from __future__ import annotations

import ipaddress
import socket

from referee.web import cli


class FakeSocket:
    """Records what the probe does with its socket: it may connect, never send."""

    def __init__(self, source: str | None, log: list[str]) -> None:
        self.source, self.log = source, log

    def __enter__(self) -> FakeSocket:
        return self

    def __exit__(self, *exc: object) -> None:
        self.log.append("closed")

    def connect(self, address: tuple[str, int]) -> None:
        self.log.append(f"connect {address[0]}:{address[1]}")
        if self.source is None:
            raise OSError(101, "Network is unreachable")

    def getsockname(self) -> tuple[str, int]:
        return (self.source or "0.0.0.0", 40000)

    def __getattr__(self, name: str) -> object:  # send, sendto...: a packet would leave
        raise AssertionError(f"the probe used socket.{name}")


def test_the_lan_address_is_the_default_route_source_and_nothing_is_sent():
    log: list[str] = []
    assert cli.lan_address(lambda: FakeSocket("192.168.1.23", log)) == "192.168.1.23"
    assert log[0] == "connect 192.0.2.1:9"  # TEST-NET-1: documentation only, never routed
    assert ipaddress.ip_address("192.0.2.1") in ipaddress.ip_network("192.0.2.0/24")
    assert log[-1] == "closed"


def test_no_network_or_only_loopback_gives_no_address():
    log: list[str] = []
    assert cli.lan_address(lambda: FakeSocket(None, log)) is None
    assert cli.lan_address(lambda: FakeSocket("127.0.1.1", log)) is None
    assert log.count("closed") == 2


def test_this_machine_has_a_usable_address_or_none():
    found = cli.lan_address()
    if found is not None:
        address = ipaddress.ip_address(found)
        assert address.version == 4 and not address.is_loopback


def test_every_interface_prints_the_lan_address_not_the_hostname(monkeypatch):
    monkeypatch.setattr(cli, "lan_address", lambda: "10.1.2.3")
    assert cli._url_host("0.0.0.0") == "10.1.2.3"
    monkeypatch.setattr(cli, "lan_address", lambda: None)
    assert cli._url_host("0.0.0.0") == socket.gethostname()  # no network: the best left
    assert cli._url_host("192.168.0.5") == "192.168.0.5"  # an address given is printed as is
    assert cli._url_host("::1") == "[::1]"
