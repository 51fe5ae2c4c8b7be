"""Watchers over the internet: ``host --internet --watchers N`` prints a code for each
watcher, ``watch CODE`` meets the host through the real mailbox server and watches
through the real transit relay (started on 127.0.0.1 by the fixtures), inside the
sealed channel; and the host's door for watchers who come that way lets no player in.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from p2p_spite.contracts.errors import UserError
from p2p_spite.contracts.news import HostRefused
from p2p_spite.net import host_session, join_session
from p2p_spite.net.connect import WatchDoors
from p2p_spite.net.settings import HostSettings, JoinSettings
from p2p_spite.net.watch import watch_match
from tests.support.net import finish_all, reader, spawn
from tests.support.proxy import FaultProxy, Plan
from tests.support.wormhole_servers import WormholeServer, mailbox_server, relay_server, run  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
SEED = bytes(range(32))
HOST_NAME = "alice-the-host"
JOIN_NAME = "bob-the-joiner"
CODE = r"(\d+-[a-z]+-[a-z]+)$"
PLAYER_LINE = r"^the other player types: p2p-spite join " + CODE
WATCHER_LINE = r"^a watcher types: p2p-spite watch " + CODE
NEXT_LINE = r"^the next watcher types: p2p-spite watch " + CODE
MATCH_TIME = 600.0  # seconds a whole match may take on a loaded machine
WRONG = "p2p-spite: the code is wrong, or the other player typed another one: ask the host for a new code"
# what the watch protocol's bytes would show in clear (the names are in its "watching")
WATCH_WORDS = (b"p2p-spite", b"hello", b"watching", b"table", b"move", b"scores")


@dataclass(frozen=True)
class Both:
    mailbox: WormholeServer
    relay: WormholeServer


@pytest.fixture
def both(mailbox_server: WormholeServer, relay_server: WormholeServer) -> Both:  # noqa: F811
    """The real mailbox server and transit relay of the module."""
    return Both(mailbox_server, relay_server)


def _servers(mailbox: WormholeServer, relay_port: int) -> list[str]:
    return ["--mailbox", mailbox.url, "--relay", f"127.0.0.1:{relay_port}", "--relay-only"]


def _host(tmp: Path, servers: list[str], watchers: int) -> tuple[subprocess.Popen[str], str, str]:
    """A bot host of one game, seeded, with ``watchers``: it, the player's code, the first
    watcher's code."""
    host = spawn(
        ["host", "--internet", "--watchers", str(watchers), "--bot", "easy", "--games", "1",
         "--name", HOST_NAME, "--seed", SEED.hex(), "--record", str(tmp / "host.json"), *servers],
        tmp,
    )  # fmt: skip
    lines = reader(host)
    player = lines.wait(PLAYER_LINE, 60).group(1)
    return host, player, lines.wait(WATCHER_LINE, 60).group(1)


def _watch(tmp: Path, servers: list[str], code: str) -> subprocess.Popen[str]:
    return spawn(["watch", code, *servers], tmp)


def _join(tmp: Path, servers: list[str], code: str) -> subprocess.Popen[str]:
    return spawn(
        ["join", code, "--bot", "easy", "--name", JOIN_NAME, "--record", str(tmp / "join.json"), *servers],
        tmp,
    )


def _nameplate(code: str) -> str:
    return code.split("-", 1)[0]


def _other(code: str) -> str:
    """``code`` with its words changed: the right nameplate, the wrong password."""
    from p2p_spite.tunnel.wordlist import EVEN, ODD

    nameplate, first, second = code.split("-")
    return "-".join((nameplate, ODD[(ODD.index(first) + 1) % 256], EVEN[(EVEN.index(second) + 1) % 256]))


def _no_such(code: str) -> str:
    return (
        f"p2p-spite: nobody is hosting with the code {code} (is it typed right? is the host still waiting?)\n"
    )


@pytest.mark.slow
def test_two_watchers_watch_a_whole_internet_match_through_the_relay_and_the_tap_reads_nothing(
    tmp_path: Path, both: Both
) -> None:
    """Both watchers take their codes (the second one told once the first is taken, a
    fresh one) before the player joins; every byte of theirs passes the tap at the relay;
    each sees every move of the record and the match's own scores, and exits 0."""
    with FaultProxy(both.relay.port, Plan(), capture=True) as tap:
        servers = _servers(both.mailbox, tap.port)
        host, player, first = _host(tmp_path, servers, 2)
        watchers = [_watch(tmp_path, servers, first)]
        reader(watchers[0]).wait(r"^watching the match: each move is shown as it is played$", 120)
        second = reader(host).wait(NEXT_LINE, 120).group(1)
        assert second != first
        watchers.append(_watch(tmp_path, servers, second))
        reader(watchers[1]).wait(r"^watching the match: each move is shown as it is played$", 120)
        join = _join(tmp_path, servers, player)
        done = finish_all([host, join, *watchers], MATCH_TIME)
    assert [rc for rc, _o, _e in done] == [0, 0, 0, 0], done
    hout, wouts = done[0][1], [done[2][1], done[3][1]]
    assert "next watcher" not in hout.split(second, 1)[1]  # (two codes taken: no third)
    record = json.loads((tmp_path / "host.json").read_text())
    moves = sum(len(g["moves"]) for g in record["games"])
    ours, theirs = record["scores"]
    assert f"final scores: {HOST_NAME} {ours}, {JOIN_NAME} {theirs}" in hout
    for wout in wouts:
        lines = wout.splitlines()
        assert lines[0] == f"connected through the relay 127.0.0.1:{tap.port}"
        assert f"Watching {HOST_NAME} against {JOIN_NAME}, first to" in wout
        assert len([ln for ln in lines if re.match(r"^\s*\d+\. ", ln)]) == moves
        assert f"scores: {HOST_NAME} {ours}, {JOIN_NAME} {theirs}" in lines  # the match's own
    assert tap.stats.connections >= 6  # the players' two, each watcher's two (and the host's waiting)
    wire = bytes(tap.wire or b"")
    assert b"please relay " in wire and len(wire) > 10_000
    for s in (HOST_NAME.encode(), JOIN_NAME.encode(), SEED, SEED.hex().encode(), *WATCH_WORDS):
        assert s not in wire, s


def test_a_wrong_watcher_code_fails_with_one_line_and_the_host_offers_a_fresh_one(
    tmp_path: Path, both: Both
) -> None:
    servers = _servers(both.mailbox, both.relay.port)
    host, _player, code = _host(tmp_path, servers, 1)
    try:
        ((rc, out, err),) = finish_all([_watch(tmp_path, servers, _other(code))], 120)
        assert (rc, out, err) == (1, "", WRONG + "\n")
        lines = reader(host)
        told = lines.wait(r"^a watcher did not get in \((.*)\)$", 120).group(1)
        assert "p2p-spite: " + told == WRONG
        fresh = lines.wait(NEXT_LINE, 120).group(1)
        assert fresh != code
        ((rc, _out, err),) = finish_all([_watch(tmp_path, servers, code)], 120)
        if _nameplate(fresh) == _nameplate(code):
            # the server gave the fresh code the spent one's number (it draws from 1-9): the
            # spent words meet the fresh meeting and fail as a wrong code, one guess spent
            assert (rc, err) == (1, WRONG + "\n")
        else:
            assert (rc, err) == (1, _no_such(code))  # spent: names nobody now
    finally:
        host.terminate()
        finish_all([host], 60)


@pytest.mark.slow
def test_a_players_code_is_no_watchers_and_a_watchers_is_no_players(tmp_path: Path, both: Both) -> None:
    """Each kind of code lives under its own app id: the other command finds nobody under
    it, and neither code is spent by the mistake; both then do their own work."""
    servers = _servers(both.mailbox, both.relay.port)
    # The two app ids number their codes apart, so both may get the same number (the server
    # draws it from 1-9): then each mistaken code meets the other kind's host side and fails
    # as a wrong code instead (the salts differ), spending it.  That case is a wrong code,
    # tested above; this test wants two numbers apart, drawn again a bounded number of times.
    for _ in range(20):
        host, player, watcher = _host(tmp_path, servers, 1)
        if _nameplate(player) != _nameplate(watcher):
            break
        host.terminate()
        finish_all([host], 60)
    else:
        pytest.fail("the mailbox gave both kinds of code the same number 20 times")
    mixed = finish_all([_watch(tmp_path, servers, player), _join(tmp_path, servers, watcher)], 120)
    assert [(rc, err) for rc, _o, err in mixed] == [(1, _no_such(player)), (1, _no_such(watcher))]
    watch = _watch(tmp_path, servers, watcher)
    reader(watch).wait(r"^watching the match", 120)
    join = _join(tmp_path, servers, player)
    done = finish_all([host, join, watch], MATCH_TIME)
    assert [rc for rc, _o, _e in done] == [0, 0, 0], done


def test_the_door_for_watchers_that_come_another_way_refuses_a_player(tmp_path: Path) -> None:
    """The host's door for watchers (WatchDoors, over real TCP here): a player's hello is
    refused ("watcher") and takes no seat; a watcher is let in; the match still waits
    for its player."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        doors: asyncio.Future[WatchDoors] = loop.create_future()

        async def serve(factory: Callable[[], asyncio.BaseProtocol]) -> asyncio.AbstractServer:
            return await loop.create_server(factory, "127.0.0.1", 0)

        settings = HostSettings(
            name=HOST_NAME, port=0, seed=SEED, watchers=2, record_path=tmp_path / "h.json"
        )
        host = asyncio.ensure_future(host_session(settings, serve=serve, watch_doors=doors.set_result))
        side = await loop.create_server((await doors).door, "127.0.0.1", 0)
        port = side.sockets[0].getsockname()[1]
        with pytest.raises(UserError) as e:
            await join_session(JoinSettings(host="127.0.0.1", port=port, name=JOIN_NAME, grace=0.0))
        assert isinstance(e.value.news, HostRefused) and e.value.news.code == "watcher"
        client = await watch_match(host="127.0.0.1", port=port)
        assert not client.in_door.result()  # (None: let in, waiting for the match)
        await client.close()
        assert not host.done()
        host.cancel()
        side.close()

    run(main)


def test_a_watchers_password_is_not_a_players_and_the_documents_say_both() -> None:
    """scrypt's context names the app id (docs/protocol.md, The meeting and the paths, 8)."""
    from p2p_spite.tunnel.mailbox import parse_code
    from p2p_spite.tunnel.rendezvous import WATCH_APPID, code_password
    from p2p_spite.tunnel.spake2 import password_scalar

    code = parse_code("7-crossover-clockwork")
    watcher, player = code_password(code, WATCH_APPID), code_password(code)
    assert watcher == password_scalar(b"7-crossover-clockwork", b"p2p-spite/watch|7") != player
    assert player == password_scalar(b"7-crossover-clockwork", b"p2p-spite|7")
    text = " ".join((ROOT / "docs" / "protocol.md").read_text(encoding="utf-8").split())
    w, p = (x.to_bytes(32, "big").hex() for x in (watcher, player))
    assert f"a watcher's `{w}`, a player's `{p}`" in text


def test_a_player_with_a_watchers_code_is_refused_through_the_real_tunnel(tmp_path: Path, both: Both) -> None:
    """A modified client that took a watcher's code (the meeting, the sealed path through
    the real relay) and then says a player's hello: refused ("watcher"), no seat taken;
    the host goes on waiting for its player."""
    from p2p_spite.net.link import Link
    from p2p_spite.tunnel.hints import RelayHint
    from p2p_spite.tunnel.mailbox import parse_code
    from p2p_spite.tunnel.paths import SealedTransport, establish
    from p2p_spite.tunnel.relay import new_side
    from p2p_spite.tunnel.rendezvous import WATCH_APPID, join_meeting

    servers = _servers(both.mailbox, both.relay.port)
    host, _player, code = _host(tmp_path, servers, 1)
    relay = ("127.0.0.1", both.relay.port)

    async def main() -> None:
        meeting = await join_meeting(
            both.mailbox.url, parse_code(code), [RelayHint(*relay)], appid=WATCH_APPID
        )
        opened = await establish(meeting.ke, (), relay, side=new_side())

        async def connect(factory: Callable[[], Link], _h: str, _p: int, _t: float) -> Link:
            link = factory()
            SealedTransport(opened).attach(link)
            return link

        with pytest.raises(UserError) as e:
            await join_session(JoinSettings(host="relay", port=1, name="Eve", grace=0.0), connect=connect)
        assert isinstance(e.value.news, HostRefused) and e.value.news.code == "watcher"

    try:
        run(main)
        assert host.poll() is None  # (still waiting for its player)
    finally:
        host.terminate()
        ((_rc, out, _err),) = finish_all([host], 60)
    assert "joined" not in out
