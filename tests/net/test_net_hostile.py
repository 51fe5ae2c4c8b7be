"""Hostile peers over a real socket (127.0.0.1): the honest side never crashes or hangs,
and its state and record stay as they were."""

from __future__ import annotations

import asyncio
import contextlib
import os
import struct
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest

from p2p_spite.contracts.news import CannotKeepRecord, DropsSummary, Owed, Stalled, WeStopped
from p2p_spite.contracts.session import EndCause, Ending, Event, LinkState, SessionFailed
from p2p_spite.core.game import Action
from p2p_spite.core.messages import JOIN
from p2p_spite.core.protocol import PROTOCOL_VERSION, LocalConfig
from p2p_spite.core.wire import MAX_FRAME, ProtocolError, Refusal, encode
from p2p_spite.engine import Move
from p2p_spite.net import HostSettings, JoinSettings, NetSession, host_session, join_session
from p2p_spite.storage import record
from p2p_spite.ui.networds import news_words
from tests.support.net import RawPeer, frame, messages

SEED = bytes(range(32))
TIMEOUT = 20.0


def run(coro: Awaitable[Any]) -> Any:
    async def bounded() -> Any:
        return await asyncio.wait_for(coro, TIMEOUT)

    return asyncio.run(bounded())


async def _host(tmp: Path, warnings: list[str], **kw: Any) -> tuple[asyncio.Task[NetSession], int]:
    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(
        host_session(
            HostSettings(
                bind="127.0.0.1",
                port=0,
                name="Ann",
                seed=SEED,
                record_path=tmp / "host.json",
                grace=0.5,  # a dropped peer is waited for briefly, then the match stops
                **kw,
            ),
            on_listening=lambda h, p: ready.set_result(p),
            on_warning=lambda news: warnings.append(news_words(news)),
        )
    )
    port = await ready
    return task, port


async def _raw(port: int, data: bytes, close: bool = True) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    if close:
        writer.close()
        return b""
    got = b""
    try:
        got = await asyncio.wait_for(reader.read(65536), 5)
    finally:
        writer.close()
    return got


HANDSHAKE_GARBAGE: dict[str, bytes] = {
    "random bytes": os.urandom(3000),
    "http request": b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
    "truncated frame": frame(msgpack.packb({"t": "hello", "proto": 1}))[:-3],
    "oversized frame": struct.pack(">I", MAX_FRAME + 1) + b"x" * 100,
    "deeply nested": frame(b"\x91" * 5000 + b"\x01"),
    "unknown type": encode({"t": "teleport"}),
    "wrong version": encode(
        {"t": "hello", "proto": 99, "app": "p2p-spite", "role": "join", "name": "x", "nonce": b"0" * 16}
    ),
    "not a map": frame(msgpack.packb([1, 2, 3])),
    "huge string": frame(b"\xdb" + struct.pack(">I", 10_000_000) + b"x" * 10),
}


@pytest.mark.parametrize("what", list(HANDSHAKE_GARBAGE))
def test_bad_connections_are_dropped_and_the_host_keeps_waiting(tmp_path: Path, what: str) -> None:
    async def main() -> None:
        warnings: list[str] = []
        task, port = await _host(tmp_path, warnings)
        await _raw(port, HANDSHAKE_GARBAGE[what], close=what == "truncated frame")
        for _ in range(100):  # the warning comes once the host has read it
            if warnings:
                break
            await asyncio.sleep(0.02)
        assert warnings, what
        assert "refused a connection" in warnings[0]
        assert not task.done()
        # a real peer still gets in
        joiner = await join_session(
            JoinSettings(host="127.0.0.1", port=port, name="Bob", record_path=tmp_path / "j.json")
        )
        host = await task
        assert host.peer_name == "Bob" and joiner.peer_name == "Ann"
        await joiner.close()
        await host.close()

    run(main())


def test_a_wrong_version_is_told_why(tmp_path: Path) -> None:
    async def main() -> None:
        warnings: list[str] = []
        task, port = await _host(tmp_path, warnings)
        cfg = LocalConfig(JOIN, "Old", protocol_version=1)
        with pytest.raises(ProtocolError) as info:
            await RawPeer.connect(port, cfg)
        assert "version" in str(info.value)
        for _ in range(100):
            if warnings:
                break
            await asyncio.sleep(0.02)
        assert any("version" in w for w in warnings), warnings
        task.cancel()

    run(main())


def test_a_connection_dropped_mid_frame_during_the_handshake(tmp_path: Path) -> None:
    async def main() -> None:
        warnings: list[str] = []
        task, port = await _host(tmp_path, warnings)
        _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(encode({"t": "hello"})[:6])
        await writer.drain()
        writer.close()
        for _ in range(100):
            if warnings:
                break
            await asyncio.sleep(0.02)
        assert warnings == ["refused a connection from 127.0.0.1 (it closed during the handshake)"], warnings
        assert not task.done()
        task.cancel()

    run(main())


# -- in the middle of a match ---------------------------------------------------------------


async def _match_with_raw_peer(tmp: Path) -> tuple[NetSession, RawPeer]:
    warnings: list[str] = []
    task, port = await _host(tmp, warnings)
    peer = await RawPeer.connect(port, LocalConfig(JOIN, "Eve"))
    host = await task
    return host, peer


async def _settle(host: NetSession, position: int) -> None:
    for _ in range(250):
        if host.core.position >= position:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the host did not catch up")


async def _peer_discard(peer: RawPeer) -> None:
    core = peer.ep.core
    assert core is not None
    g = core.match.game
    m = next(m for m in g.legal_moves() if m.target == "side")
    n = core.position
    core.apply(Action(core.match.game_number, m.seat, m))
    peer.ep.send_action(n)
    peer.flush()


async def _turn_of(host: NetSession, peer: RawPeer, seat: int) -> None:
    """Play legal discards until ``seat`` is on turn (the host side through its session)."""
    for _ in range(4):
        g = host.core.match.game
        if g.turn == seat:
            return
        if g.turn == 0:
            m = next(m for m in g.legal_moves() if m.target == "side")
            await host.play(m)
            await peer.read_until(
                lambda evs: peer.ep.core is not None and peer.ep.core.position == host.core.position
            )
        else:
            await _peer_discard(peer)
            assert peer.ep.core is not None
            await _settle(host, peer.ep.core.position)
    assert host.core.match.game.turn == seat


def _snapshot(host: NetSession) -> tuple[bytes, int, str]:
    path = host.record_path
    assert path is not None
    return host.core.match.game.digest(), host.core.position, Path(path).read_text()


async def _expect_failure(host: NetSession, timeout: float = 5.0) -> SessionFailed:
    async def loop() -> SessionFailed:
        while True:
            ev = await host.next_event()
            if isinstance(ev, SessionFailed):
                return ev

    return await asyncio.wait_for(loop(), timeout)


Attack = Callable[[NetSession, RawPeer], Awaitable[None]]


async def _out_of_turn(host: NetSession, peer: RawPeer) -> None:
    await _turn_of(host, peer, 0)
    core = peer.ep.core
    assert core is not None
    card = core.match.game.hands[1][0]
    await peer.send_raw(
        encode({"t": "move", "n": core.position, "m": [1, "hand", card, "side", 0], "d": b"0" * 32})
    )


async def _card_not_in_hand(host: NetSession, peer: RawPeer) -> None:
    await _turn_of(host, peer, 1)
    core = peer.ep.core
    assert core is not None
    hand = core.match.game.hands[1]
    card = next(c for c in range(104) if c not in hand)
    await peer.send_raw(
        encode({"t": "move", "n": core.position, "m": [1, "hand", card, "side", 0], "d": b"0" * 32})
    )


async def _bad_shape(host: NetSession, peer: RawPeer) -> None:
    core = peer.ep.core
    assert core is not None
    await peer.send_raw(
        encode({"t": "move", "n": core.position, "m": [1, "hand", True, "side", 0], "d": b"0" * 32})
    )


async def _unknown_type(host: NetSession, peer: RawPeer) -> None:
    await peer.send_raw(encode({"t": "teleport", "n": 1}))


async def _oversized(host: NetSession, peer: RawPeer) -> None:
    await peer.send_raw(struct.pack(">I", 2**31) + b"x" * 1000)


async def _deep(host: NetSession, peer: RawPeer) -> None:
    await peer.send_raw(frame(b"\x81\xa1t\xa4chat" + b"\x91" * 4000 + b"\x01"))


async def _garbage(host: NetSession, peer: RawPeer) -> None:
    await peer.send_raw(os.urandom(500))


async def _dropped_mid_frame(host: NetSession, peer: RawPeer) -> None:
    core = peer.ep.core
    assert core is not None
    data = encode({"t": "move", "n": core.position, "m": [1, "payoff", None, "center", 0], "d": b"0" * 32})
    await peer.send_raw(data[:7])
    peer.writer.close()


async def _wrong_sequence(host: NetSession, peer: RawPeer) -> None:
    await _turn_of(host, peer, 1)
    core = peer.ep.core
    assert core is not None
    m = next(m for m in core.match.game.legal_moves())
    await peer.send_raw(encode({"t": "move", "n": core.position + 5, "m": list(m), "d": b"0" * 32}))


async def _for_the_host(host: NetSession, peer: RawPeer) -> None:
    await _turn_of(host, peer, 0)
    core = peer.ep.core
    assert core is not None
    m: Move = core.match.game.legal_moves()[0]
    a = Action(core.match.game_number, 0, m)
    await peer.send_raw(encode({"t": "move", "n": core.position, "m": list(m), "d": core.digest_after(a)}))


async def _wrong_digest(host: NetSession, peer: RawPeer) -> None:
    core = peer.ep.core
    assert core is not None
    m = core.match.game.legal_moves()[0]
    msg = {"t": "move", "n": core.position, "m": list(m), "d": b"\x01" * 32, "a": b"\x02" * 32}
    await peer.send_raw(encode(msg))


ATTACKS: dict[str, Attack] = {
    "a legal move with the wrong state digest (desync)": _wrong_digest,
    "move out of turn": _out_of_turn,
    "card not in the hand": _card_not_in_hand,
    "malformed move": _bad_shape,
    "a move for the host's seat": _for_the_host,
    "unknown message type": _unknown_type,
    "oversized frame": _oversized,
    "deeply nested data": _deep,
    "random bytes": _garbage,
    "dropped mid-frame": _dropped_mid_frame,
    "action number out of sequence": _wrong_sequence,
}


@pytest.mark.parametrize("what", list(ATTACKS))
def test_a_hostile_peer_mid_match_changes_nothing(tmp_path: Path, what: str) -> None:
    async def main() -> None:
        host, peer = await _match_with_raw_peer(tmp_path)
        attack = ATTACKS[what]
        # get the setup moves (if any) done first, then snapshot
        if attack in (_out_of_turn, _for_the_host):
            await _turn_of(host, peer, 0)
        elif attack in (_card_not_in_hand, _wrong_sequence, _wrong_digest):
            await _turn_of(host, peer, 1)
        before = _snapshot(host)
        await attack(host, peer)
        failed = await _expect_failure(host)
        said = news_words(failed.news)
        assert said and "\n" not in said
        cause = EndCause.CONNECTION_LOST if attack is _dropped_mid_frame else EndCause.PEER_BROKE_PROTOCOL
        assert failed.ending is not None and failed.ending.cause is cause
        if attack is _wrong_digest:
            assert isinstance(failed.news, WeStopped) and failed.news.code == "desync"
            assert failed.ending.code == "desync"
        digest, position, _text = _snapshot(host)
        assert (digest, position) == before[:2]
        # the record on disk replays to exactly the state before the attack
        assert host.record_path is not None
        rec = record.load(host.record_path)
        m = record.verify(rec)
        assert m.total_moves == position and m.game.digest() == digest
        # the peer was told (unless it had hung up)
        if what != "dropped mid-frame":
            got = await peer.read_all(3.0)
            assert got, "the peer was told nothing"
            assert b"refuse" in got
        await host.close()
        peer.close()

    run(main())


def test_a_peer_that_claims_actions_it_never_sends_is_stopped_in_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move chosen while the peer catches us up waits for the catch-up, but not for ever:
    the peer said at its sync that it has actions we lack (here: 3), then sends none."""
    from p2p_spite.contracts.errors import SessionClosed
    from p2p_spite.engine import IllegalMoveError
    from p2p_spite.net import session

    monkeypatch.setattr(session, "HANDSHAKE_TIMEOUT", 0.5)

    async def main() -> None:
        host, peer = await _match_with_raw_peer(tmp_path)
        await _turn_of(host, peer, 0)
        link = host.link
        assert link is not None
        link.endpoint._catch_up_to = (host.core.position + 3, bytes(32))  # as its sync said
        before = _snapshot(host)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        with pytest.raises((IllegalMoveError, SessionClosed)):  # the session stopped meanwhile
            await asyncio.wait_for(host.play(host.core.match.game.legal_moves()[0]), 5)
        waited = loop.time() - t0
        failed = await _expect_failure(host)
        assert waited >= 0.5, waited
        assert failed.ending == Ending(EndCause.PEER_BROKE_PROTOCOL, "Eve", Refusal.POSITION)
        assert failed.news == Stalled("Eve", Owed.CATCH_UP, 0.5)
        assert "claimed actions it did not send" in news_words(failed.news)
        assert _snapshot(host)[:2] == before[:2]  # the move was not played
        got = await peer.read_all(3.0)
        assert b"refuse" in got and b"position" in got
        await host.close()
        peer.close()

    run(main())


# -- floods ------------------------------------------------------------------------------------


def test_a_peer_that_floods_pings_and_never_reads_is_dropped(tmp_path: Path) -> None:
    """Every ping used to get a pong: a peer that never reads grew our send buffer for ever."""
    from p2p_spite.net.link import MAX_SEND_BUFFER

    async def main() -> None:
        host, peer = await _match_with_raw_peer(tmp_path)
        link = host.link
        assert link is not None and link.transport is not None
        before = _snapshot(host)
        ping = encode({"t": "ping", "k": 1})
        peer.writer.write(ping * 20_000)  # and never read a byte
        failed = await _expect_failure(host)
        assert isinstance(failed.news, WeStopped) and failed.news.code == "flood"
        assert "\n" not in news_words(failed.news)
        assert failed.ending == Ending(EndCause.PEER_BROKE_PROTOCOL, "Eve", Refusal.FLOOD)
        assert link.transport.get_write_buffer_size() <= MAX_SEND_BUFFER
        assert _snapshot(host)[:2] == before[:2]
        await host.close()
        peer.close()

    run(main())


def test_a_peer_that_does_not_read_cannot_grow_the_send_buffer(tmp_path: Path) -> None:
    import socket

    from p2p_spite.contracts.session import ConnectionChanged
    from p2p_spite.net.link import MAX_SEND_BUFFER

    async def main() -> None:
        host, peer = await _match_with_raw_peer(tmp_path)
        link = host.link
        assert link is not None and link.transport is not None
        sock = link.transport.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)  # fill up quickly
        before = _snapshot(host)
        most = 0
        paused = False
        for _ in range(4000):  # 2 MB of chat; the peer reads none of it
            await host.chat("x" * 500)
            most = max(most, link.transport.get_write_buffer_size())
            if link.transport.is_closing():
                break
            paused = paused or not link.transport.is_reading()  # flow control: stop reading it
        assert paused and link.overflowed, most
        assert most <= MAX_SEND_BUFFER
        # the link is gone (the seat is kept open for the grace period)
        ev = await asyncio.wait_for(host.next_event(), 5)
        while not isinstance(ev, ConnectionChanged):
            ev = await asyncio.wait_for(host.next_event(), 5)
        assert ev.state is LinkState.RECONNECTING
        assert _snapshot(host)[:2] == before[:2]
        await host.close()
        peer.close()

    run(main())


# -- the joiner's seat -------------------------------------------------------------------------


async def _read_frames(reader: asyncio.StreamReader, timeout: float) -> list[dict[str, Any]]:
    """Every message until the peer closes (bounded)."""
    from p2p_spite.core.wire import FrameDecoder

    dec = FrameDecoder()
    out: list[dict[str, Any]] = []

    async def loop() -> None:
        while True:
            data = await reader.read(65536)
            if not data:
                return
            dec.feed(data)
            while (m := dec.next_message()) is not None:
                out.append(m)

    with contextlib.suppress(TimeoutError, ConnectionError):
        await asyncio.wait_for(loop(), timeout)
    return out


@pytest.mark.parametrize("how", ["sync", "forged proof"])
def test_a_stranger_cannot_take_the_joiners_seat(tmp_path: Path, how: str) -> None:
    """No join code: a stranger that knows the match id (it used to be in the host's hello)
    tries to come back as the joiner.  It is refused before it learns the seed, and the
    real joiner keeps playing."""
    from p2p_spite.contracts.session import ConnectionChanged, MovePlayed
    from p2p_spite.core.game import history_root

    async def main() -> None:
        warnings: list[str] = []
        task, port = await _host(tmp_path, warnings)
        joiner = await join_session(
            JoinSettings(host="127.0.0.1", port=port, name="Bob", record_path=tmp_path / "j.json")
        )
        host = await task
        live = host.link
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        hello = {"t": "hello", "proto": PROTOCOL_VERSION, "app": "p2p-spite", "role": "join", "name": "Eve",
                 "nonce": b"x" * 16, "code": False, "match": host.core.match_id}  # fmt: skip
        writer.write(encode(hello))
        if how == "sync":  # the old hijack: echo the id, then claim an empty history
            writer.write(encode({"t": "sync", "pos": 0, "hist": history_root(SEED)}))
        else:
            writer.write(encode({"t": "proof", "mac": b"\0" * 32}))
        got = await _read_frames(reader, 3.0)
        writer.close()
        assert got and got[0]["t"] == "hello" and got[0]["match"] is None  # the id is not told
        assert got[-1]["t"] == "refuse", got
        assert all(m["t"] in ("hello", "refuse") for m in got), got  # no setup, no seed
        assert host.link is live and live is not None and live.transport is not None
        assert not live.transport.is_closing()
        # the real joiner plays on
        mover, other = (host, joiner) if host.core.match.game.turn == 0 else (joiner, host)
        await mover.play(mover.core.match.game.legal_moves()[0])
        seen: list[Event] = []
        while not any(isinstance(e, MovePlayed) for e in seen):
            seen.append(await asyncio.wait_for(other.next_event(), 5))
        assert host.core.head == joiner.core.head
        for sess in (host, joiner):
            while (ev := sess.event_nowait()) is not None:
                assert not isinstance(ev, ConnectionChanged), ev
        await joiner.close()
        await host.close()

    run(main())


def test_a_chat_flood_is_refused(tmp_path: Path) -> None:
    from p2p_spite.contracts.session import ChatReceived
    from p2p_spite.core.protocol import CHAT_BURST

    async def main() -> None:
        host, peer = await _match_with_raw_peer(tmp_path)
        before = _snapshot(host)
        await peer.send_raw(b"".join(encode({"t": "chat", "text": f"spam {i}"}) for i in range(200)))
        seen = []
        while not isinstance(ev := await asyncio.wait_for(host.next_event(), 5), SessionFailed):
            seen.append(ev)
        assert isinstance(ev.news, WeStopped) and ev.news.code == "flood"
        assert "\n" not in news_words(ev.news)
        assert len([e for e in seen if isinstance(e, ChatReceived)]) <= CHAT_BURST
        assert _snapshot(host)[:2] == before[:2]
        got = await peer.read_all(3.0)
        assert b"refuse" in got and b"flood" in got
        await host.close()
        peer.close()

    run(main())


def test_unread_chat_is_capped(tmp_path: Path) -> None:
    from p2p_spite.contracts.session import ChatReceived, Notice

    async def main() -> None:
        host, peer = await _match_with_raw_peer(tmp_path)
        host.outbox.chats.limit = 3
        await peer.send_raw(b"".join(encode({"t": "chat", "text": f"hi {i}"}) for i in range(8)))
        await asyncio.sleep(0.3)  # the host reads them all; its driver reads none
        queued = []
        while (ev := host.event_nowait()) is not None:
            queued.append(ev)
        chats = [e for e in queued if isinstance(e, ChatReceived)]
        assert [c.text for c in chats] == ["hi 0", "hi 1", "hi 2"]
        assert len([e for e in queued if isinstance(e, Notice)]) == 1
        await peer.send_raw(encode({"t": "chat", "text": "read now"}))  # room again
        ev = await asyncio.wait_for(host.next_event(), 5)
        assert isinstance(ev, ChatReceived) and ev.text == "read now"
        peer.close()
        await host.close()

    run(main())


@pytest.mark.slow
def test_notices_about_strangers_are_merged(tmp_path: Path) -> None:
    """Every dropped stranger used to be a Notice of its own: a crowd could fill the queue."""
    from p2p_spite.contracts.session import Notice

    async def main() -> None:
        warnings: list[str] = []
        task, port = await _host(tmp_path, warnings)
        joiner = await join_session(
            JoinSettings(host="127.0.0.1", port=port, name="Bob", record_path=tmp_path / "j.json")
        )
        host = await task
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        for _ in range(20):
            await _raw(port, b"GET / HTTP/1.0\r\n\r\n", close=False)
        crowd = loop.time() - t0  # longer on a loaded machine: more windows
        notices: list[Notice] = []

        def told() -> int:  # how many drops the notices account for (a summary counts its n)
            return sum(n.news.n if isinstance(n.news, DropsSummary) else 1 for n in notices)

        end = loop.time() + 10
        while told() < 20 and (left := end - loop.time()) > 0:
            with contextlib.suppress(TimeoutError):
                ev = await asyncio.wait_for(host.next_event(), left)
                if isinstance(ev, Notice):
                    notices.append(ev)
        assert told() == 20, notices
        assert "refused a connection" in news_words(notices[0].news)
        assert len(notices) <= 2 + crowd / 5.0, (crowd, notices)  # the first, then one per window
        assert "from 127.0.0.1" in news_words(notices[-1].news)
        await joiner.close()
        await host.close()

    run(main())


# -- our own disk --------------------------------------------------------------------------------


def _fill_the_disk(keeper: Any) -> None:
    """From now on the journal is on a full disk: its writes fail with ENOSPC (Linux's
    /dev/full); the record beside it can still be written."""
    full = os.open("/dev/full", os.O_WRONLY)
    os.close(keeper._fd)
    keeper._fd = full


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("whose", ["the peer's move", "our own move"])
def test_a_disk_error_is_one_clean_failure(tmp_path: Path, whose: str) -> None:
    """An OSError from the journal used to escape into asyncio ("Fatal error" over the
    interface) and the driver never heard of it."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        escaped: list[dict[str, Any]] = []
        loop.set_exception_handler(lambda _loop, ctx: escaped.append(ctx))
        host, peer = await _match_with_raw_peer(tmp_path)
        await _turn_of(host, peer, 1 if whose == "the peer's move" else 0)
        before = host.core.position
        _fill_the_disk(host.keeper)
        if whose == "the peer's move":
            await _peer_discard(peer)
        else:
            await host.play(host.core.match.game.legal_moves()[0])
        failed = await _expect_failure(host)
        assert isinstance(failed.news, CannotKeepRecord) and "No space left" in failed.news.problem.why
        assert "\n" not in news_words(failed.news)
        assert failed.ending is not None and failed.ending.cause is EndCause.STORAGE
        assert failed.record_path is not None  # the record itself could still be written
        rec = record.verify(record.load(failed.record_path))
        assert rec.total_moves >= before
        got = await peer.read_all(3.0)
        assert b"refuse" in got and b"storage" in got
        # our move, which could not be written down, never reached the peer
        assert [m["t"] for m in messages(got) if m["t"] in ("move", "resign")] == []
        assert not escaped, escaped
        await host.close()
        peer.close()

    run(main())
