"""LAN discovery: the announcement codec, the table of hosts heard, and real
datagrams, on loopback only (nothing here sends to a broadcast address of a real
interface or to any address outside 127.0.0.0/8)."""

from __future__ import annotations

import argparse
import asyncio
import socket
import struct
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_spite.commands.lan import join_lines
from p2p_spite.contracts.errors import UserError
from p2p_spite.net.discovery import (
    MAGIC,
    MAX_DATAGRAM,
    MAX_HOSTS,
    Announcement,
    Announcer,
    DiscoveryError,
    HeardHost,
    HostTable,
    announce_target,
    decode,
    encode,
    listen,
)
from p2p_spite.net.localaddr import dial_form, lan_addresses
from tests.support.net import finish_all, read_code, reader, spawn, wait_listening

TIMEOUT = 60


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


# -- the codec ------------------------------------------------------------------


def test_an_announcement_round_trips_and_never_carries_a_code() -> None:
    for ann in (Announcement("Ann", 4747, True), Announcement("Zoë ♠", 1, False)):
        data = encode(ann)
        assert decode(data) == ann and len(data) <= MAX_DATAGRAM
    # a name too long is cut, to fit the limit, at a character
    long = decode(encode(Announcement("é" * 500, 5000, True)))
    assert long.name == "é" * 60 and long.port == 5000
    # escape codes and newlines never go out
    assert decode(encode(Announcement("a\x1b[2J\nb", 9, False))).name == "a [2J b"


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"GET / HTTP/1.1\r\n\r\n",
        b"p2pspite",
        encode(Announcement("Ann", 4747, True)) + b"x",  # the length does not match
        encode(Announcement("Ann", 4747, True))[:-1],
        b"p2pspite\x02\x00\x12\x8b\x03Ann",  # a version we do not know
        b"p2pspite\x01\x00\x00\x00\x03Ann",  # port 0
        b"p2pspite\x01\x00\x12\x8b\x02\xff\xfe",  # not UTF-8
        b"p2pspite\x01\x00\x12\x8b\x03A\x07n",  # an unprintable name
        b"p2pspite\x01\x00\x12\x8b\x00" + b"a" * 4000,  # oversize
    ],
)
def test_hostile_datagrams_are_refused(data: bytes) -> None:
    with pytest.raises(DiscoveryError):
        decode(data)


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=300) | st.binary(max_size=40).map(lambda b: b"p2pspite\x01" + b))
def test_any_bytes_decode_or_are_refused(data: bytes) -> None:
    try:
        ann = decode(data)
    except DiscoveryError:
        return
    assert ann.name.isprintable() and 0 < ann.port < 65536 and len(data) <= MAX_DATAGRAM


# -- the table --------------------------------------------------------------------


def test_the_table_is_bounded_under_a_flood_and_forgets_silent_hosts() -> None:
    table = HostTable()
    assert table.datagram(encode(Announcement("Ann", 4747, True)), "127.0.0.1", 0.0) is not None
    for i in range(10_000):
        flood = encode(Announcement(f"x{i}", 1 + i % 60_000, False))
        table.datagram(flood, f"127.0.{i // 250}.{i % 250}", 0.5)
        table.datagram(b"junk %d" % i, "127.0.0.9", 0.5)
    hosts = table.hosts(1.0)
    assert len(hosts) == MAX_HOSTS
    assert any(h.name == "Ann" for h in hosts)  # the first heard is not pushed out by the flood
    assert table.dropped == 10_000 + 10_000 - (MAX_HOSTS - 1)
    # re-announcing refreshes; silence forgets, and room is made again
    table.datagram(encode(Announcement("Ann", 4747, True)), "127.0.0.1", 4.0)
    assert [h.name for h in table.hosts(6.0)] == ["Ann"]
    assert table.hosts(9.5) == []
    assert table.datagram(encode(Announcement("Bob", 1, False)), "127.0.0.2", 10.0) is not None


def test_where_a_host_announces() -> None:
    assert announce_target("127.0.0.1") == ("127.0.0.1", "127.255.255.255")
    assert announce_target("127.0.0.2") == ("127.0.0.2", "127.255.255.255")
    assert announce_target("") == ("0.0.0.0", "255.255.255.255")  # the real LAN: never in a test
    assert announce_target("192.168.1.20") == ("192.168.1.20", "255.255.255.255")
    assert announce_target("::1") is None and announce_target("[2001:db8::1]") is None


# -- real datagrams on loopback ---------------------------------------------------


@pytest.mark.slow
def test_a_listener_hears_a_loopback_announcer_and_shrugs_off_hostile_datagrams() -> None:
    port = free_udp_port()
    table = HostTable()

    async def run() -> None:
        source, destination = announce_target("127.0.0.1") or ("", "")
        ann = Announcer(Announcement("Ann", 4321, True), source, destination, port)
        listening = asyncio.create_task(listen(2.5, port, table))
        await asyncio.sleep(0.2)
        ann.start()
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.setblocking(False)
            for i in range(3000):
                for junk in (b"\x00" * 60_000, b"p2pspite" + bytes([i % 256]) * 50, b""):
                    try:
                        s.sendto(junk, ("127.0.0.1", port))
                    except BlockingIOError:
                        await asyncio.sleep(0.001)
                if i % 100 == 0:
                    await asyncio.sleep(0)
        try:
            hosts = await asyncio.wait_for(listening, 10)
        finally:
            ann.stop()
        heard = [(h.name, h.address, h.port, h.code_needed) for h in hosts]
        assert heard == [("Ann", "127.0.0.1", 4321, True)]

    asyncio.run(asyncio.wait_for(run(), 20))
    assert table.dropped > 10  # the junk did arrive (the kernel drops much of a flood itself)


def test_lan_addresses_never_give_a_wildcard_or_loopback() -> None:
    assert lan_addresses("127.0.0.1") == ["127.0.0.1"]
    assert lan_addresses("[::1]") == ["::1"]
    for a in lan_addresses(""):
        assert a not in ("0.0.0.0", "::") and not a.startswith("127.") and a != "::1"
    assert dial_form("192.168.1.20", 4747, 4747) == "192.168.1.20"
    assert dial_form("192.168.1.20", 5000, 4747) == "192.168.1.20:5000"
    assert dial_form("2001:db8::5", 4747, 4747) == "[2001:db8::5]"
    assert join_lines("127.0.0.1", 4747, "K7QP-3MXD", False) == [
        "the other player types: p2p-spite join 127.0.0.1 --code K7QP-3MXD"
    ]
    assert join_lines("127.0.0.1", 5000, None, False) == [
        "the other player types: p2p-spite join 127.0.0.1:5000 --no-code"
    ]


# -- the commands, real processes bound to 127.0.0.1 --------------------------------


def _host(tmp: Path, env: dict[str, str], *extra: str) -> subprocess.Popen[str]:
    return spawn(["host", "--bind", "127.0.0.1", "--port", "0", "--bot", "easy", *extra], tmp, env)


def _run(tmp: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    proc = spawn(list(args), tmp, env)
    ((rc, out, err),) = finish_all([proc], TIMEOUT)
    return subprocess.CompletedProcess(args, rc, out, err)


@pytest.mark.slow
def test_hosts_lists_a_loopback_host_and_join_with_no_address_plays_it(tmp_path: Path) -> None:
    env = {"P2P_SPITE_DISCOVERY_PORT": str(free_udp_port())}
    none = _run(tmp_path, env, "hosts", "--wait", "1.2")
    assert none.returncode == 1 and "no p2p-spite host heard" in none.stdout
    lonely = _run(tmp_path, env, "join", "--bot", "easy", "--wait", "1.2")
    assert lonely.returncode == 1 and lonely.stderr.count("\n") == 1, lonely.stderr
    assert "no p2p-spite host found on the local network" in lonely.stderr

    host = _host(tmp_path, env, "--name", "Ann", "--record", "h.json", "--games", "2")
    try:
        port, _ = wait_listening(host)
        code = read_code(host)
        reader(host).wait(rf"^the other player types: p2p-spite join 127\.0\.0\.1:{port} --code {code}$")
        reader(host).wait(r"^announced on this machine only")
        listed = _run(tmp_path, env, "hosts", "--wait", "2.0")
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.split() == ["Ann", f"127.0.0.1:{port}", "code", "needed"]
        assert code not in listed.stdout
        # a headless joiner without the code is told what to add
        nocode = _run(tmp_path, env, "join", "--bot", "easy", "--wait", "2.0")
        assert nocode.returncode == 2 and "Ann needs a join code: add --code" in nocode.stderr
        join = spawn(["join", "--bot", "easy", "--name", "Bob", "--code", code, "--record", "j.json",
                      "--wait", "2.0"], tmp_path, env)  # fmt: skip
        (jrc, jout, jerr), (hrc, _hout, herr) = finish_all([join, host], TIMEOUT)
    finally:
        if host.poll() is None:
            host.kill()
    assert (jrc, hrc) == (0, 0), (jerr, herr)
    assert f"found Ann at 127.0.0.1:{port}" in jout and "final scores: Ann" in jout
    assert (tmp_path / "h.json").read_bytes() == (tmp_path / "j.json").read_bytes()


@pytest.mark.slow
def test_join_with_no_address_and_two_hosts_lists_them_and_asks_for_one(tmp_path: Path) -> None:
    env = {"P2P_SPITE_DISCOVERY_PORT": str(free_udp_port())}
    hosts = [_host(tmp_path, env, "--no-code", "--name", n, "--record", f"{n}.json") for n in ("Ann", "Cy")]
    try:
        ports = [wait_listening(h)[0] for h in hosts]
        r = _run(tmp_path, env, "join", "--bot", "easy", "--wait", "2.0")
        assert r.returncode == 1, r.stderr
        assert "2 hosts found: choose one" in r.stderr
        lines = [x.split() for x in r.stdout.splitlines() if "127.0.0.1:" in x]
        assert lines == [
            ["Ann", f"127.0.0.1:{ports[0]}", "no", "code"],
            ["Cy", f"127.0.0.1:{ports[1]}", "no", "code"],
        ]
        # --no-announce: not heard
        quiet = _host(tmp_path, env, "--no-code", "--no-announce", "--name", "Dee")
        try:
            wait_listening(quiet)
            listed = _run(tmp_path, env, "hosts", "--wait", "2.0")
            assert "Dee" not in listed.stdout and "Ann" in listed.stdout
        finally:
            quiet.kill()
            quiet.wait(TIMEOUT)
    finally:
        for h in hosts:
            h.kill()
            h.wait(TIMEOUT)


def test_a_person_joining_with_no_address_is_asked_which_host_and_for_the_code(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    from p2p_spite.commands import lan

    heard = [HeardHost("127.0.0.1", 5000, "Ann", True, 0.0), HeardHost("127.0.0.2", 4747, "Cy", False, 0.0)]
    monkeypatch.setattr(lan, "_look", lambda seconds, port: heard)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    answers = iter(["3", "x", "1", " k7qp-3mxd "])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    args = argparse.Namespace(
        command="join", bot=None, wait=1.0, discovery_port=None, code=None, no_code=False, resume=None
    )
    assert lan.choose_host(args) == ("127.0.0.1", 5000)
    assert args.code == "k7qp-3mxd"
    out = capsys.readouterr().out
    assert "1) Ann  127.0.0.1:5000  code needed" in out and "2) Cy   127.0.0.2:4747  no code" in out
    assert "found Ann at 127.0.0.1:5000" in out


def test_a_crowd_of_fake_hosts_from_one_address_takes_only_its_share() -> None:
    """Issue 27: 40 fake hosts from one address, refreshed every 50 ms, filled the whole
    table; each sender now holds at most PER_SENDER hosts, and hosts heard are kept."""
    from p2p_spite.net.discovery import PER_SENDER

    table = HostTable()
    t = 0.0
    for _ in range(100):  # 5 s of the crowd
        for i in range(40):
            table.datagram(encode(Announcement(f"fake{i}", 1000 + i, False)), "127.0.0.2", t)
        if t >= 1.0 and int(t * 20) % 20 == 0:  # the real host, once a second from 1 s on
            table.datagram(encode(Announcement("Ann", 4747, True)), "127.0.0.1", t)
        t += 0.05
    hosts = table.hosts(t)
    assert [h.name for h in hosts if h.address == "127.0.0.1"] == ["Ann"]
    assert len([h for h in hosts if h.address == "127.0.0.2"]) == PER_SENDER
    # the crowd's first hosts hold their places; a sender's silent host makes room again
    assert {h.name for h in hosts if h.address == "127.0.0.2"} == {f"fake{i}" for i in range(PER_SENDER)}
    table.datagram(encode(Announcement("Bob", 5000, False)), "127.0.0.1", t + 6.0)
    assert [h.name for h in table.hosts(t + 6.0)] == ["Bob"]


# -- the private deck in announcements, the join line and `hosts` --------------------


def test_an_announcement_says_a_private_deck_in_a_flag_old_listeners_ignore() -> None:
    for code_needed in (True, False):
        ann = Announcement("Ann", 4747, code_needed, private=True)
        data = encode(ann)
        assert decode(data) == ann and len(data) <= MAX_DATAGRAM
        assert data[len(b"p2pspite") + 1] == (0x01 if code_needed else 0) | 0x02  # flag bit 1
    # the longest name still fits the limit: the flag costs no byte
    assert len(encode(Announcement("é" * 500, 5000, True, private=True))) == MAX_DATAGRAM
    # a host from before the flag: no private deck
    assert decode(b"p2pspite\x01\x01\x12\x8b\x03Ann") == Announcement("Ann", 4747, True, private=False)
    # a listener that knows only bit 0 (as every older one) reads a private host's datagram as before
    data = encode(Announcement("Ann", 4747, True, private=True))
    assert data[: len(MAGIC)] == MAGIC and _OLD_HEAD.unpack_from(data, len(MAGIC)) == (1, 0x03, 4747, 3)
    # bits nobody knows yet are ignored in turn, not taken as a malformed datagram
    assert decode(b"p2pspite\x01\xf9\x12\x8b\x03Ann") == Announcement("Ann", 4747, True, private=False)


_OLD_HEAD = struct.Struct("!BBHB")  # version, flags, port, name length: docs/spec.md section 5


def test_the_table_keeps_what_a_host_says_of_its_deck() -> None:
    table = HostTable()
    table.datagram(encode(Announcement("Ann", 4747, True, private=True)), "127.0.0.1", 0.0)
    table.datagram(encode(Announcement("Bob", 4747, False)), "127.0.0.2", 0.0)
    assert [(h.name, h.private) for h in table.hosts(1.0)] == [("Ann", True), ("Bob", False)]


def test_the_join_line_of_a_private_host_insists_on_the_private_deck() -> None:
    assert join_lines("127.0.0.1", 4747, "K7QP-3MXD", False, private=True) == [
        "the other player types: p2p-spite join 127.0.0.1 --code K7QP-3MXD --private"
    ]
    assert join_lines("127.0.0.1", 4747, None, True, private=True) == [
        "the other player types: p2p-spite join 127.0.0.1 --resume THEIR-RECORD --private"
    ]


def _listed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], heard: list[HeardHost]
) -> list[str]:
    """What ``hosts`` prints when it hears ``heard``."""
    from p2p_spite.commands import lan

    monkeypatch.setattr(lan, "_look", lambda seconds, port: heard)
    assert lan.run_hosts(1.0, None) == 0
    return capsys.readouterr().out.splitlines()


def _args(command: str) -> argparse.Namespace:
    """``command`` (join or watch) with no address, the code given, the bot playing."""
    return argparse.Namespace(
        command=command, bot="easy", wait=1.0, discovery_port=None, code="k7qp-3mxd", no_code=False,
        resume=None, private=False,
    )  # fmt: skip


def test_hosts_and_join_say_which_host_is_private_and_join_insists_on_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from p2p_spite.commands import lan

    heard = [
        HeardHost("127.0.0.1", 5000, "Ann", True, 0.0, private=True),
        HeardHost("127.0.0.2", 4747, "Cy", False, 0.0),
    ]
    assert _listed(monkeypatch, capsys, heard) == [
        "Ann  127.0.0.1:5000  code needed  private deck",
        "Cy   127.0.0.2:4747  no code",
    ]
    monkeypatch.setattr(lan, "_look", lambda seconds, port: heard[:1])
    args = _args("join")
    assert lan.choose_host(args) == ("127.0.0.1", 5000)
    assert args.private is True  # as if --private was typed: a host that is not private is refused
    assert "found Ann at 127.0.0.1:5000: a private deck" in capsys.readouterr().out


@pytest.mark.slow
def test_a_private_host_says_so_in_its_join_line_and_announcement_and_hosts_lists_it(
    tmp_path: Path,
) -> None:
    env = {"P2P_SPITE_DISCOVERY_PORT": str(free_udp_port())}
    host = _host(tmp_path, env, "--private", "--name", "Ann", "--record", "h.json", "--games", "1")
    try:
        port, _ = wait_listening(host)
        code = read_code(host)
        reader(host).wait(
            rf"^the other player types: p2p-spite join 127\.0\.0\.1:{port} --code {code} --private$"
        )
        listed = _run(tmp_path, env, "hosts", "--wait", "2.0")
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.split() == ["Ann", f"127.0.0.1:{port}", "code", "needed", "private", "deck"]
        # join with no address: found, said, and played with the private deck
        join = spawn(["join", "--bot", "easy", "--code", code, "--record", "j.json", "--wait", "2.0"],
                     tmp_path, env)  # fmt: skip
        (jrc, jout, jerr), (hrc, hout, herr) = finish_all([join, host], TIMEOUT)
    finally:
        if host.poll() is None:
            host.kill()
    assert (jrc, hrc) == (0, 0), (jerr, herr)
    assert f"found Ann at 127.0.0.1:{port}: a private deck" in jout
    assert "private deck: no one sees a hidden card" in jout and "; private deck" in hout


# -- a match under way, announced for watchers ------------------------------------------


def test_a_match_under_way_is_announced_in_a_flag_of_its_own() -> None:
    ann = Announcement("Ann", 4747, True, private=True, playing=True)
    data = encode(ann)
    assert decode(data) == ann and data[len(MAGIC) + 1] == 0x01 | 0x02 | 0x04
    assert decode(encode(Announcement("Ann", 4747, False))).playing is False
    table = HostTable()
    table.datagram(data, "127.0.0.1", 0.0)
    assert [h.playing for h in table.hosts(1.0)] == [True]


def test_join_passes_a_match_under_way_by_and_watch_finds_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from p2p_spite.commands import lan

    heard = [
        HeardHost("127.0.0.1", 5000, "Ann", True, 0.0, playing=True),
        HeardHost("127.0.0.2", 4747, "Cy", False, 0.0),
    ]
    assert _listed(monkeypatch, capsys, heard) == [
        "Ann  127.0.0.1:5000  code needed  playing",
        "Cy   127.0.0.2:4747  no code",
    ]
    assert lan.choose_host(_args("join")) == ("127.0.0.2", 4747)  # the only one waiting for a joiner
    monkeypatch.setattr(lan, "_look", lambda seconds, port: heard[:1])
    with pytest.raises(UserError, match="Ann is playing a match already: p2p-spite watch to watch it"):
        lan.choose_host(_args("join"))
    assert lan.choose_host(_args("watch")) == ("127.0.0.1", 5000)
