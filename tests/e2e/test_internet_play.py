"""Internet play between real processes: ``host --internet`` and ``join CODE`` through the
real magic-wormhole mailbox server and transit relay (started on 127.0.0.1 by the
fixtures), with a tap (tests/support/proxy.py) between the peers and the relay.

The host is told the relay at the tap's address, and the joiner uses the relay the
host names in its sealed hints: so every byte either side sends through the relay
passes the tap.  No test contacts the public servers: the mailbox and the relay are
always given.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.net import CLI, finish_all, reader, spawn
from tests.support.proxy import FaultProxy, Plan
from tests.support.wormhole_servers import WormholeServer, mailbox_server, relay_server  # noqa: F401

SEED = bytes(range(32))
HOST_NAME = "alice-the-host"
JOIN_NAME = "bob-the-joiner"
CODE_LINE = r"the other player types: p2p-spite join (\d+-[a-z]+-[a-z]+)$"
MATCH_TIME = 600.0  # seconds a whole match may take on a loaded machine (a private one is slow)
# what the game protocol's bytes would show in clear: message types, the app's name
PROTOCOL_WORDS = (b"p2p-spite", b"hello", b"commit", b"reveal", b"setup", b"move", b"sync")
WRONG_CODE_LINE = (
    "p2p-spite: the code is wrong, or the other player typed another one: ask the host for a new code\n"
)


def _servers(mailbox: WormholeServer, relay_port: int) -> list[str]:
    return ["--mailbox", mailbox.url, "--relay", f"127.0.0.1:{relay_port}", "--relay-only"]


def _host(tmp: Path, servers: list[str], *extra: str) -> tuple[subprocess.Popen[str], str]:
    host = spawn(
        ["host", "--internet", "--bot", "easy", "--games", "1", "--name", HOST_NAME,
         "--record", str(tmp / "host.json"), *servers, *extra],
        tmp,
    )  # fmt: skip
    code = reader(host).wait(CODE_LINE, 60).group(1)
    return host, code


def _join(tmp: Path, servers: list[str], code: str, *extra: str) -> subprocess.Popen[str]:
    return spawn(
        ["join", code, "--bot", "easy", "--name", JOIN_NAME, "--record", str(tmp / "join.json"),
         *servers, *extra],
        tmp,
    )  # fmt: skip


def wrong_code(code: str) -> str:
    """Another code of the same nameplate: each word the next one of its list."""
    from p2p_spite.tunnel.wordlist import EVEN, ODD

    nameplate, first, second = code.split("-")
    return "-".join((nameplate, ODD[(ODD.index(first) + 1) % 256], EVEN[(EVEN.index(second) + 1) % 256]))


def _replay_ok(tmp: Path, record: Path) -> None:
    check = subprocess.run(
        [*CLI, "replay", "--check", str(record)], cwd=tmp, capture_output=True, text=True, timeout=300
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.startswith("ok:")


def _whole_match(
    tmp: Path, mailbox: WormholeServer, relay: WormholeServer, plan: Plan, *extra: str
) -> tuple[FaultProxy, str, str]:
    """A whole match through the tap: both records identical and replayable; the tap, and
    both sides' output."""
    with FaultProxy(relay.port, plan, capture=True) as tap:
        servers = _servers(mailbox, tap.port)
        host, code = _host(tmp, servers, *extra)
        join = _join(tmp, servers, code, *(e for e in extra if e == "--private"))
        (hrc, hout, herr), (jrc, jout, jerr) = finish_all([host, join], MATCH_TIME)
    assert (hrc, jrc) == (0, 0), hout + herr + jout + jerr
    relay_line = f"connected through the relay 127.0.0.1:{tap.port}"
    assert relay_line in hout.splitlines() and relay_line in jout.splitlines()
    assert f"{JOIN_NAME} joined" in hout and f"joined {HOST_NAME}'s match" in jout
    assert (tmp / "host.json").read_bytes() == (tmp / "join.json").read_bytes()
    _replay_ok(tmp, tmp / "host.json")
    return tap, hout, jout


def _no_plaintext(wire: bytes, *secrets: bytes) -> None:
    assert len(wire) > 5000  # a whole match went through (the tap saw it) ...
    assert b"please relay " in wire  # ... and it shows what is in clear: the relay's line
    for s in (HOST_NAME.encode(), JOIN_NAME.encode(), *PROTOCOL_WORDS, *secrets):
        assert s not in wire, s


@pytest.mark.slow
def test_a_seeded_match_through_the_relay_shows_nothing_to_the_tap(
    tmp_path: Path,
    mailbox_server: WormholeServer,  # noqa: F811
    relay_server: WormholeServer,  # noqa: F811
) -> None:
    tap, _hout, jout = _whole_match(tmp_path, mailbox_server, relay_server, Plan(), "--seed", SEED.hex())
    assert SEED.hex() in jout  # the joiner was told the seed (inside the channel)
    assert tap.wire is not None
    _no_plaintext(bytes(tap.wire), SEED, SEED.hex().encode())


@pytest.mark.slow
def test_a_private_match_through_the_relay(
    tmp_path: Path,
    mailbox_server: WormholeServer,  # noqa: F811
    relay_server: WormholeServer,  # noqa: F811
) -> None:
    tap, hout, jout = _whole_match(tmp_path, mailbox_server, relay_server, Plan(), "--private")
    assert "private deck" in hout and "private deck" in jout
    assert tap.wire is not None
    _no_plaintext(bytes(tap.wire), b"deck")


@pytest.mark.slow
def test_the_relay_connection_cut_mid_game_comes_back(
    tmp_path: Path,
    mailbox_server: WormholeServer,  # noqa: F811
    relay_server: WormholeServer,  # noqa: F811
) -> None:
    """The first relayed connection is cut after 6000 bytes (the game under way): the
    relay drops its partner, both sides come back through the relay under the same key
    (fresh channel nonces) and finish the match."""
    tap, _h, _j = _whole_match(tmp_path, mailbox_server, relay_server, Plan(cuts=[6000]))
    assert tap.stats.cuts == 1
    assert tap.stats.connections >= 4  # both sides' first connections, then both again


@pytest.mark.slow
def test_a_byte_changed_on_the_relay_mid_game_is_a_dropped_connection(
    tmp_path: Path,
    mailbox_server: WormholeServer,  # noqa: F811
    relay_server: WormholeServer,  # noqa: F811
) -> None:
    """An on-path forger changes one byte of the first relayed connection, after 6000
    bytes: the frame does not open, that side drops the connection (a forgery is never
    taken as a message), both come back under the same key and finish the match."""
    tap, _h, _j = _whole_match(tmp_path, mailbox_server, relay_server, Plan(flips=[6000]))
    assert tap.stats.flips == 1
    assert tap.stats.connections >= 4  # both sides' first connections, then both again


def test_a_wrong_code_fails_on_both_sides_and_the_code_is_spent(
    tmp_path: Path,
    mailbox_server: WormholeServer,  # noqa: F811
    relay_server: WormholeServer,  # noqa: F811
) -> None:
    servers = _servers(mailbox_server, relay_server.port)
    host, code = _host(tmp_path, servers)
    join = _join(tmp_path, servers, wrong_code(code))
    (hrc, hout, herr), (jrc, jout, jerr) = finish_all([host, join], 120)
    assert (hrc, herr) == (1, WRONG_CODE_LINE), hout + herr
    assert (jrc, jerr) == (1, WRONG_CODE_LINE), jout + jerr
    again = _join(tmp_path, servers, code)  # the right code, now: spent
    ((arc, aout, aerr),) = finish_all([again], 120)
    assert arc == 1, aout + aerr
    assert aerr == f"p2p-spite: nobody is hosting with the code {code} " + (
        "(is it typed right? is the host still waiting?)\n"
    )


def test_what_looks_like_a_code_but_is_none_is_told(tmp_path: Path) -> None:
    proc = spawn(["join", "1-foo-bar", "--mailbox", "ws://127.0.0.1:9/v1"], tmp_path)
    ((rc, _out, err),) = finish_all([proc], 60)
    assert rc == 1
    assert err == 'p2p-spite: "1-foo-bar" is not a code: a number and two words, like 7-crossover-clockwork\n'


@pytest.mark.parametrize(
    ("args", "options"),
    [
        (["host", "--internet", "--code", "K7QP-3MXD", "--port", "4747"], "--code, --port"),
        (["join", "7-crossover-clockwork", "--no-code"], "--no-code"),
    ],
)
def test_lan_options_are_refused_in_internet_play(tmp_path: Path, args: list[str], options: str) -> None:
    """(Before any server is asked: the mailbox given is nobody.)"""
    proc = spawn([*args, "--mailbox", "ws://127.0.0.1:9/v1"], tmp_path)
    ((rc, _out, err),) = finish_all([proc], 60)
    assert (rc, err) == (
        2,
        f"p2p-spite: {options}: not for internet play (the code is all the two players need)\n",
    )


def test_a_relay_nobody_answers_at_is_told_on_both_sides(
    tmp_path: Path,
    mailbox_server: WormholeServer,  # noqa: F811
) -> None:
    from tests.support.wormhole_servers import closed_port

    port = closed_port()
    servers = _servers(mailbox_server, port)
    host, code = _host(tmp_path, servers)
    join = _join(tmp_path, servers, code)
    (hrc, hout, herr), (jrc, jout, jerr) = finish_all([host, join], 120)
    line = f"p2p-spite: cannot reach the relay 127.0.0.1:{port}: "
    assert hrc == 1 and herr.startswith(line) and herr.count("\n") == 1, hout + herr
    assert jrc == 1 and jerr.startswith(line) and jerr.count("\n") == 1, jout + jerr


@pytest.mark.slow
def test_an_internet_match_stopped_is_resumed_with_a_fresh_code(
    tmp_path: Path,
    mailbox_server: WormholeServer,  # noqa: F811
    relay_server: WormholeServer,  # noqa: F811
) -> None:
    """Both programs stopped (SIGTERM) in the second of three games; the host runs
    ``host --internet --resume`` (a new code), the joiner ``join CODE --resume``: the
    match goes on from where it was and both records end identical."""
    import signal

    servers = _servers(mailbox_server, relay_server.port)
    host, code = _host(tmp_path, [*servers, "--games", "3"])
    join = _join(tmp_path, servers, code)
    reader(join).wait(r"^game 2 started", MATCH_TIME)
    for p in (host, join):
        p.send_signal(signal.SIGTERM)
    (hrc, hout, herr), (jrc, jout, jerr) = finish_all([host, join], 120)
    assert (hrc, jrc) == (143, 143), hout + herr + jout + jerr
    host2 = spawn(
        ["host", "--internet", "--bot", "easy", "--resume", str(tmp_path / "host.json"), *servers], tmp_path
    )
    code2 = reader(host2).wait(CODE_LINE, 60).group(1)
    assert code2 != code
    join2 = spawn(
        ["join", code2, "--bot", "easy", "--resume", str(tmp_path / "join.json"), *servers], tmp_path
    )
    (hrc, hout, herr), (jrc, jout, jerr) = finish_all([host2, join2], MATCH_TIME)
    assert (hrc, jrc) == (0, 0), hout + herr + jout + jerr
    assert f"back in {HOST_NAME}'s match: game " in jout
    assert (tmp_path / "host.json").read_bytes() == (tmp_path / "join.json").read_bytes()
    _replay_ok(tmp_path, tmp_path / "host.json")
