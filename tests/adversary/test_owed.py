"""Deadlines owed are not put off by other traffic (issue 44): a peer that owes this side
something (a private-deck message, the ack of an undo) keeps its connection lively,
pinging and chatting, and never pays (the actions a sync claimed, with chat:
test_loose_ends.py).  The honest side
gives up at the deadline, with its documented line and exit code.

The deadlines are the real ones (30 s, 15 s: no test shortens them, so a loaded machine
cannot make a deadline pass before the move it meant to test), and each wait on the
verdict is bounded, far beyond them.  Real TCP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
import time
from pathlib import Path

import pytest

from p2p_spite.commands.drive import failure_exit
from p2p_spite.contracts.errors import EXIT_ERROR
from p2p_spite.contracts.news import Owed, Stalled
from p2p_spite.contracts.session import (
    ChatReceived,
    Event,
    SessionFailed,
)
from p2p_spite.core.deckside import DECK_DEADLINE
from p2p_spite.core.takebacks import UNDO_ACK_DEADLINE
from p2p_spite.net.session import NetSession
from p2p_spite.ui.networds import news_words
from tests.net.test_takeback_net import undo_never_acked
from tests.support.net import finish_all, spawn, wait_listening

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
        on, off = await asyncio.wait_for(undo_never_acked(tmp_path, 0.2), VERDICT)
        chatter = asyncio.create_task(_chatter(off))
        t0 = loop.time()
        failed, chats, t1 = await _verdict(on, t0 + 2.0)
        chatter.cancel()
        assert failed.news == Stalled(off.names[off.seat], Owed.UNDO_ACK, UNDO_ACK_DEADLINE), failed.news
        assert news_words(failed.news) == (
            f"stopped the match: {off.names[off.seat]} did not acknowledge the move taken back within 15 s"
        )
        assert failure_exit(failed.ending) == (EXIT_ERROR, None)
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
