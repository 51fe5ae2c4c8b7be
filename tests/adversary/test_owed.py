"""Deadlines owed are not put off by other traffic (issue 44): a peer that owes this side
something (a private-deck message, the ack of an undo, the actions its sync claimed)
keeps its connection lively, pinging and chatting, and never pays.  The honest side
gives up at the deadline, with its documented line and exit code.

The deadlines are the real ones (30 s, 15 s: no test shortens them, so a loaded machine
cannot make a deadline pass before the move it meant to test), and each wait on the
verdict is bounded, far beyond them.  Real TCP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
import time
from pathlib import Path

import pytest

from p2p_spite.errors import EXIT_ERROR
from p2p_spite.lan import _failure_exit
from p2p_spite.net import HostSettings, JoinSettings, host_session, join_session
from p2p_spite.net.deckside import DECK_DEADLINE
from p2p_spite.net.link import HANDSHAKE_TIMEOUT
from p2p_spite.net.session import NetSession
from p2p_spite.net.takeback import UNDO_ACK_DEADLINE
from p2p_spite.news import Owed, Stalled
from p2p_spite.session import (
    ChatReceived,
    Event,
    MovePlayed,
    MoveTakenBack,
    SessionFailed,
    TakebackAsked,
    Takebacks,
)
from p2p_spite.ui.networds import news_words
from tests.adversary.hostile import Closed, Hostile
from tests.positions import quiet_moves
from tests.support.net import finish, finish_all, reader, spawn, wait_listening
from tests.test_takeback_protocol import SEED as TAKEBACK_SEED

ADDR = "127.0.0.1"
VERDICT = 120.0  # seconds any wait on a verdict may take (the deadlines are 15 and 30 s)
CHEATER = [sys.executable, "-m", "tests.adversary.cheater"]


async def _chatter(s: NetSession) -> None:
    """The hostile side's small talk: a chat line a second (within the chat's rate limit)
    while its session lasts (its heartbeat pings meanwhile)."""
    k = 0
    while not s.closed_for_play:
        k += 1
        with contextlib.suppress(Exception):
            await s.chat(f"still here ({k})")
        await asyncio.sleep(1.0)


async def _verdict(s: NetSession, since: float) -> tuple[SessionFailed, int, float]:
    """The honest side's SessionFailed: it, the peer's chat lines it got after ``since``
    (loop time), and when it came."""
    loop = asyncio.get_running_loop()
    chats = 0
    while True:
        ev: Event = await asyncio.wait_for(s.next_event(), VERDICT)
        if isinstance(ev, ChatReceived) and loop.time() >= since:
            chats += 1
        if isinstance(ev, SessionFailed):
            return ev, chats, loop.time()


async def _next(s: NetSession, kind: type) -> Event:
    while True:
        ev = await asyncio.wait_for(s.next_event(), VERDICT)
        if isinstance(ev, kind):
            return ev


@pytest.mark.slow
def test_a_peer_that_owes_the_ack_of_an_undo_cannot_chat_its_deadline_away(tmp_path: Path) -> None:
    """The peer allowed our takeback and has our undo; it never acknowledges it, pinging
    every 0.2 s and chatting every second.  At UNDO_ACK_DEADLINE (15 s) the match stops:
    `stalled`, one line, exit 1, the chat notwithstanding."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        port: asyncio.Future[int] = loop.create_future()
        host_task = asyncio.create_task(
            host_session(
                HostSettings(bind=ADDR, port=0, name="Ann", seed=TAKEBACK_SEED, target=20,
                             record_path=tmp_path / "h.json", heartbeat=0.2),
                on_listening=lambda _h, p: port.set_result(p),
                on_warning=None,
            )
        )  # fmt: skip
        joiner = await asyncio.wait_for(
            join_session(JoinSettings(host=ADDR, port=await port, name="Bob", record_path=tmp_path / "j.json",
                                      heartbeat=0.2)),
            VERDICT,
        )  # fmt: skip
        host = await asyncio.wait_for(host_task, VERDICT)
        on, off = (host, joiner) if host.core.match.game.turn == host.seat else (joiner, host)
        off.takeback.takebacks = Takebacks.ASK
        await on.play(quiet_moves(on.match)[0])
        await _next(off, MovePlayed)
        assert await on.take_back() is not None
        await _next(off, TakebackAsked)
        lying = off.link
        assert lying is not None

        def no_ack() -> None:  # the lie: the undo taken, its ack never sent
            lying.endpoint._unacked = None

        lying.endpoint.acknowledge = no_ack  # type: ignore[method-assign]
        chatter = asyncio.create_task(_chatter(off))
        assert await off.answer_takeback(True)
        await _next(on, MoveTakenBack)
        t0 = loop.time()
        failed, chats, t1 = await _verdict(on, t0 + 2.0)
        chatter.cancel()
        assert failed.news == Stalled(off.names[off.seat], Owed.UNDO_ACK, UNDO_ACK_DEADLINE), failed.news
        assert news_words(failed.news) == (
            f"stopped the match: {off.names[off.seat]} did not acknowledge the move taken back within 15 s"
        )
        assert _failure_exit(failed.ending) == (EXIT_ERROR, None)
        assert failed.ending is not None and failed.ending.code == "stalled"
        assert t1 - t0 >= UNDO_ACK_DEADLINE - 0.5, t1 - t0  # not before the deadline ...
        assert chats >= 5, chats  # ... and the chat went on while it ran
        for s in (on, off):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(s.close("quit"), VERDICT)

    asyncio.run(asyncio.wait_for(main(), 3 * VERDICT))


@pytest.mark.slow
def test_a_private_peer_mute_at_the_deal_cannot_chat_or_ping_its_deadline_away(tmp_path: Path) -> None:
    """Two processes: the honest ``host --private --bot easy`` and the joiner muted once the
    deal is shown (tests/adversary/cheater.py ``mute``): it sends no more private-deck
    messages but pings and chats with every heartbeat.  The host stops at DECK_DEADLINE
    (30 s) with its one line and exit 1, the chat lines printed meanwhile."""
    args = ["host", "--bind", ADDR, "--port", "0", "--no-code", "--private", "--games", "1",
            "--bot", "easy", "--bot-seed", "1", "--record", "h.json", "--grace", "2"]  # fmt: skip
    host = spawn(args, tmp_path)
    try:
        port, _ = wait_listening(host)
        join = spawn(["join", f"{ADDR}:{port}", "--no-code", "--private", "--bot", "easy", "--bot-seed", "2",
                      "--name", "Bob", "--record", "j.json", "--grace", "2", "--heartbeat", "0.5"], tmp_path,
                     program=[*CHEATER, "mute"])  # fmt: skip
        t0 = time.monotonic()
        (hrc, hout, herr), (_jrc, _jout, _jerr) = finish_all([host, join], VERDICT)
        took = time.monotonic() - t0
    finally:
        for p in (host,):
            if p.poll() is None:
                p.kill()
                p.wait()
    assert "Traceback" not in herr, herr
    lines = [x for x in herr.splitlines() if x.strip()]
    want = (
        "stopped the match: Bob stopped sending the private deck's messages "
        f"({DECK_DEADLINE:g} s without one it owed)"
    )
    assert any(want in x for x in lines), herr
    assert hrc == EXIT_ERROR, (hrc, herr)
    chats = re.findall(r"^<Bob> still here \(\d+\)$", hout, re.M)
    assert len(chats) >= 10, hout[-2000:]  # it chatted (and pinged) through the deadline
    assert took >= DECK_DEADLINE, took


def test_chat_from_a_peer_that_owes_claimed_actions_is_refused_at_once(tmp_path: Path) -> None:
    """A joiner comes back claiming one action more than the host has: until it sends it,
    only pings and pongs are taken (docs/protocol.md, *The handshake*); its chat does not
    put the catch-up's deadline off but is refused at once (`position`), exit 1."""
    args = ["host", "--bind", ADDR, "--port", "0", "--no-announce", "--no-code", "--seed", "ab" * 32,
            "--name", "Ann", "--record", "h.json", "--grace", "20", "--bot", "easy"]  # fmt: skip
    host = spawn(args, tmp_path)
    try:
        port, _ = wait_listening(host)
        p = Hostile.dial(port)
        p.join_seeded()
        p.sync()
        c = p.core
        assert c is not None
        reader(host).wait(r"^mallory joined", 20)
        while c.match.game.turn != 1:  # the host's bot plays until it is off turn
            p.receive_action()
        p.close()
        q = Hostile.dial(port)
        q.core = c
        q.come_back()
        theirs = q.expect("sync")
        q.send({"t": "sync", "pos": theirs["pos"] + 1, "hist": os.urandom(32)})
        t0 = time.monotonic()
        q.send({"t": "ping", "k": 1})
        q.send({"t": "chat", "text": "any moment now"})
        q.deadline = time.monotonic() + HANDSHAKE_TIMEOUT
        told = None
        with contextlib.suppress(Closed, TimeoutError):
            while told is None:
                m = q.recv()
                told = m if m["t"] == "refuse" else None
        took = time.monotonic() - t0
        q.close()
        rc, out, err = finish(host, VERDICT)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    assert told is not None and told["code"] == "position", (told, err[-1500:])
    assert took < HANDSHAKE_TIMEOUT, took  # at once: not at the deadline, nor after it
    assert "Traceback" not in out + err, err
    assert rc == EXIT_ERROR, (rc, err[-1500:])
