"""Taking back over a real connection (127.0.0.1), both sessions in one event loop: the
record on disk holds the moves that stand at every moment, both records end identical,
and a resumed record knows nothing of the moves taken back."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest

from p2p_spite.contracts.session import (
    ConnectionChanged,
    LinkState,
    MovePlayed,
    MoveTakenBack,
    TakebackAsked,
    TakebackRefused,
    Takebacks,
)
from p2p_spite.engine import SIDE, IllegalMoveError, Match, Move, view
from p2p_spite.engine import refusals as no
from p2p_spite.net import HostSettings, JoinSettings, host_session, join_session
from p2p_spite.net.session import NetSession
from p2p_spite.storage import record
from p2p_spite.storage.resume import load_saved
from p2p_spite.ui.board import hand_order
from p2p_spite.ui.notation import move_notation
from p2p_spite.ui.text import card_label
from tests.core.test_takeback_protocol import SEED
from tests.support.net import CLI, free_port, next_of, reader, spawn, wait_listening
from tests.support.positions import quiet_moves

E = TypeVar("E")
WAIT = 10.0


async def _pair(tmp: Path) -> tuple[NetSession, NetSession]:
    port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    host_task = asyncio.create_task(
        host_session(
            HostSettings(
                bind="127.0.0.1", port=0, name="Ann", seed=SEED, target=20, record_path=tmp / "h.json"
            ),
            on_listening=lambda h, p: port.set_result(p),
            on_warning=None,
        )
    )
    joiner = await join_session(
        JoinSettings(host="127.0.0.1", port=await port, name="Bob", record_path=tmp / "j.json")
    )
    return await host_task, joiner


def _moves_on_disk(path: Path) -> list[Any]:
    """The moves that ``--resume`` would read: the record's and its journal's."""
    return [list(a.move) for a in load_saved(path).actions if a.move is not None]


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(asyncio.wait_for(coro, 60))


def test_a_takeback_over_the_network_leaves_both_records_with_the_moves_that_stand(tmp_path: Path) -> None:
    async def main() -> None:
        host, joiner = await _pair(tmp_path)
        on, off = (host, joiner) if host.core.match.game.turn == host.seat else (joiner, host)
        off.takeback.takebacks = Takebacks.ASK
        first, second = quiet_moves(on.match)[:2]
        await on.play(first)
        await on.play(second)
        await next_of(off, MovePlayed)
        await next_of(off, MovePlayed)
        asked = await on.take_back()
        assert asked is not None and asked.move == second
        q = await next_of(off, TakebackAsked)
        assert q.seat == on.seat and q.played.move == second
        with_second = [list(first), list(second)]
        # a crash between the request and its answer leaves the move: nothing is written yet
        assert _moves_on_disk(Path(on.record_path or "")) == with_second
        assert await off.answer_takeback(True)
        back = await next_of(on, MoveTakenBack)
        assert back.seat == on.seat and back.move == second
        other = await next_of(off, MoveTakenBack)
        assert other.move == second
        for s in (on, off):  # written down before it was sent or shown (what a crash leaves)
            assert _moves_on_disk(Path(s.record_path or "")) == [list(first)]
            assert s.core.position == 1 and s.acked <= 1
        assert on.core.head == off.core.head
        # asked again, refused this time
        await on.take_back()
        await next_of(off, TakebackAsked)
        assert await off.answer_takeback(False)
        refused = await next_of(on, TakebackRefused)
        assert refused.seat == off.seat and not refused.lost and not refused.rule  # (a person's no)
        assert on.core.position == off.core.position == 1
        # the turn goes on: a discard, which cannot be taken back
        now = on.view()
        assert now is not None
        discard = next(m for m in now.legal_moves() if m.target == SIDE)
        await on.play(discard)
        try:
            await on.take_back()
        except IllegalMoveError as e:
            assert e.why == no.EndedTurn()
        else:
            raise AssertionError("a discard was taken back")
        await next_of(off, MovePlayed)
        await asyncio.gather(on.close("quit"), off.close("quit"))

    run(main())
    h, j = (tmp_path / "h.json").read_bytes(), (tmp_path / "j.json").read_bytes()
    assert h == j
    rec = record.load(tmp_path / "h.json")
    record.verify(rec, in_play=True)
    assert len(rec.games[0].moves) == 2  # the first move and the discard
    saved = load_saved(tmp_path / "h.json")
    assert len(saved.actions) == 2


def test_the_computer_allows_at_once(tmp_path: Path) -> None:
    """A side answering ``always`` (the computer): take_back() waits for it and the move is
    taken back before it returns."""

    async def main() -> None:
        host, joiner = await _pair(tmp_path)
        on, off = (host, joiner) if host.core.match.game.turn == host.seat else (joiner, host)
        off.takeback.takebacks = Takebacks.ALWAYS
        on.takeback.peer_answers_at_once = True
        m: Move = quiet_moves(on.match)[0]
        await on.play(m)
        assert await on.take_back() is None
        assert (await next_of(on, MoveTakenBack)).move == m
        assert on.core.position == 0 and on.core.match.moves[-1] == []
        await next_of(off, MoveTakenBack)
        off.takeback.takebacks = Takebacks.NEVER
        await on.play(m)
        await on.take_back()
        assert (await next_of(on, TakebackRefused)).rule  # (nobody was asked: the rule said no)
        assert on.core.position == off.core.position == 1
        await asyncio.gather(on.close("quit"), off.close("quit"))

    run(main())
    assert (tmp_path / "h.json").read_bytes() == (tmp_path / "j.json").read_bytes()


HOST_SEED = "00" * 31 + "08"  # the host starts, with two moves it can take back


def _line_host(tmp: Path, port: int, *extra: str) -> subprocess.Popen[str]:
    """``host`` on 127.0.0.1 at the line prompt (its stdin a pipe to type into)."""
    args = ["host", "--bind", "127.0.0.1", "--port", str(port), "--no-code", "--no-announce", *extra]
    return spawn(args, tmp, stdin=True)


def _type(proc: subprocess.Popen[str], *lines: tuple[str, str]) -> None:
    """Type each line, then wait for the output it should bring."""
    assert proc.stdin is not None
    for line, then in lines:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        reader(proc).wait(then, 30)


def _replay_check(path: Path) -> None:
    check = subprocess.run([*CLI, "replay", "--check", str(path)], capture_output=True, text=True, timeout=60)
    assert check.returncode == 0 and check.stdout.startswith("ok:"), check.stdout + check.stderr


@pytest.mark.slow
def test_two_processes_records_hold_only_the_moves_that_stand(tmp_path: Path) -> None:
    """``host`` at the line prompt against ``join --bot easy`` over 127.0.0.1: two moves
    taken back (the computer allows at once), others played, then quit.  Both records are
    identical, neither holds a move taken back, and ``replay --check`` passes."""
    m = Match(bytes.fromhex(HOST_SEED))
    slots = hand_order(view(m.game, 0).hand)
    first, second = quiet_moves(m)[:2]
    h, j = tmp_path / "h.json", tmp_path / "j.json"
    host = _line_host(tmp_path, 0, "--seed", HOST_SEED, "--record", str(h))
    join = None
    try:
        port, _ = wait_listening(host)
        join_args = ["join", f"127.0.0.1:{port}", "--no-code", "--bot", "easy", "--bot-seed", "1"]
        join = spawn([*join_args, "--record", str(j)], tmp_path)
        reader(host).wait("your move>")
        discard = next(
            mv for mv in m.game.legal_moves() if mv.target == SIDE and mv.arg not in (first.arg, second.arg)
        )
        _type(
            host,
            (move_notation(first, slots), "You played"),
            (move_notation(second, slots), f"You played {card_label(second.arg or 0)}"),
            ("undo", f"You took back {card_label(second.arg or 0)}"),
            ("undo", f"You took back {card_label(first.arg or 0)}"),
            ("undo", "Nothing taken back: you have made no move this turn to take back"),
            (move_notation(discard, slots), "Your turn. You drew"),  # (the computer played its turn)
            ("quit", r"\[y/N\]"),
            ("y", "Leaving the match"),
        )
        assert host.wait(30) == 0, reader(host).rest(5)
        join.wait(30)
    finally:
        for p in (host, join):
            if p is not None and p.poll() is None:
                p.kill()
    assert h.read_bytes() == j.read_bytes()
    moves = record.load(h).games[0].moves
    assert moves[0] == list(discard) and all(mv[0] == 1 for mv in moves[1:])
    assert list(first) not in moves and list(second) not in moves
    for path in (h, j):
        _replay_check(path)


@pytest.mark.slow
def test_a_computer_told_never_refuses(tmp_path: Path) -> None:
    """``join --bot easy --takebacks never``: the host's undo is refused, the move stands."""
    m = Match(bytes.fromhex(HOST_SEED))
    first = quiet_moves(m)[0]
    h = tmp_path / "h.json"
    host = _line_host(tmp_path, 0, "--seed", HOST_SEED, "--record", str(h))
    join = None
    try:
        port, _ = wait_listening(host)
        join = spawn(
            ["join", f"127.0.0.1:{port}", "--no-code", "--bot", "easy", "--takebacks", "never"], tmp_path
        )
        reader(host).wait("your move>")
        _type(
            host,
            (move_notation(first, hand_order(view(m.game, 0).hand)), "You played"),
            ("undo", "joiner plays without takebacks"),
            ("quit", r"\[y/N\]"),
            ("y", "Leaving the match"),
        )
        assert host.wait(30) == 0
        join.wait(30)
    finally:
        for p in (host, join):
            if p is not None and p.poll() is None:
                p.kill()
    assert record.load(h).games[0].moves == [list(first)]


@pytest.mark.slow
def test_kill_9_after_a_takeback_and_resume(tmp_path: Path) -> None:
    """The host takes a move back, is killed (SIGKILL), and resumes from its record and
    journal: it knows nothing of the move taken back (the computer's side agrees: no
    history disagreement), plays on, and both records end identical and valid."""
    m = Match(bytes.fromhex(HOST_SEED))
    slots = hand_order(view(m.game, 0).hand)
    first, second = quiet_moves(m)[:2]
    port = free_port()
    h, j = tmp_path / "h.json", tmp_path / "j.json"
    host = _line_host(tmp_path, port, "--seed", HOST_SEED, "--record", str(h))
    procs = [host]
    try:
        wait_listening(host)
        join = spawn(
            ["join", f"127.0.0.1:{port}", "--no-code", "--bot", "easy", "--record", str(j)], tmp_path
        )
        procs.append(join)
        reader(host).wait("your move>")
        _type(
            host,
            (move_notation(first, slots), "You played"),
            (move_notation(second, slots), f"You played {card_label(second.arg or 0)}"),
            ("undo", f"You took back {card_label(second.arg or 0)}"),
        )
        os.kill(host.pid, signal.SIGKILL)
        host.wait(10)
        assert [list(a.move) for a in load_saved(h).actions if a.move is not None] == [list(first)]
        again = _line_host(tmp_path, port, "--resume", str(h))
        procs.append(again)
        reader(again).wait("your move>", 30)
        g = m.game.copy()
        g.apply(first)
        discard = next(mv for mv in g.legal_moves() if mv.target == SIDE)
        _type(
            again,
            (move_notation(discard, hand_order(view(g, 0).hand)), "Your turn. You drew"),  # (its turn played)
            ("quit", r"\[y/N\]"),
            ("y", "Leaving the match"),
        )
        assert again.wait(30) == 0, reader(again).rest(5)
        join.wait(30)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert h.read_bytes() == j.read_bytes()
    moves = record.load(h).games[0].moves
    assert moves[:2] == [list(first), list(discard)] and list(second) not in moves
    _replay_check(h)


def test_a_request_lost_with_the_connection_is_void_on_both_sides(tmp_path: Path) -> None:
    async def main() -> None:
        host, joiner = await _pair(tmp_path)
        on, off = (host, joiner) if host.core.match.game.turn == host.seat else (joiner, host)
        m = quiet_moves(on.match)[0]
        await on.play(m)
        await on.take_back()
        await next_of(off, TakebackAsked)
        link = on.link
        assert link is not None and link.transport is not None
        link.transport.abort()  # the connection drops before the answer
        lost = await next_of(on, TakebackRefused)
        assert lost.lost
        for s in (on, off):  # both back on a new connection
            while (await next_of(s, ConnectionChanged)).state is not LinkState.CONNECTED:
                pass
        assert not await off.answer_takeback(True)  # asked on a connection that is gone
        assert on.core.position == off.core.position == 1 and on.core.head == off.core.head
        await on.take_back()  # asked again, on the new connection
        await next_of(off, TakebackAsked)
        assert await off.answer_takeback(True)
        assert (await next_of(on, MoveTakenBack)).move == m
        await on.play(m)  # (played again: a match left with no move keeps no record to compare)
        assert (await next_of(off, MovePlayed)).move == m
        await asyncio.gather(on.close("quit"), off.close("quit"))

    run(main())
    assert (tmp_path / "h.json").read_bytes() == (tmp_path / "j.json").read_bytes()


async def undo_never_acked(tmp_path: Path, heartbeat: float) -> tuple[NetSession, NetSession]:
    """Two sessions over 127.0.0.1 (a ping every ``heartbeat`` seconds): ``on`` made a move and
    took it back, allowed by ``off``, which took the undo and will never acknowledge it.
    (on, off), once ``on`` has its MoveTakenBack."""
    port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    host_task = asyncio.create_task(
        host_session(
            HostSettings(
                bind="127.0.0.1", port=0, name="Ann", seed=SEED, target=20,
                record_path=tmp_path / "h.json", heartbeat=heartbeat, dead_after=5.0,
            ),
            on_listening=lambda h, p: port.set_result(p),
            on_warning=None,
        )
    )  # fmt: skip
    joiner = await join_session(
        JoinSettings(
            host="127.0.0.1", port=await port, name="Bob", record_path=tmp_path / "j.json",
            heartbeat=heartbeat, dead_after=5.0,
        )
    )  # fmt: skip
    host = await host_task
    on, off = (host, joiner) if host.core.match.game.turn == host.seat else (joiner, host)
    off.takeback.takebacks = Takebacks.ASK
    first = quiet_moves(on.match)[0]
    await on.play(first)
    await next_of(off, MovePlayed)
    assert await on.take_back() is not None
    await next_of(off, TakebackAsked)
    silent = off.link
    assert silent is not None

    def no_ack() -> None:  # the lie: the undo taken, its ack never sent
        silent.endpoint._unacked = None

    silent.endpoint.acknowledge = no_ack  # type: ignore[method-assign]
    assert await off.answer_takeback(True)
    await next_of(on, MoveTakenBack)
    return on, off


def test_a_peer_that_never_acknowledges_an_undo_is_stopped_though_it_pings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The peer allows the takeback, takes our undo and never acknowledges it, while its
    heartbeat goes on: our next action would wait for that ack forever.  The ack is a debt
    with a deadline that pings do not put off; past it the match stops, refused ``stalled``.
    (At the real deadline, with chat too: tests/adversary/test_owed.py.)"""
    from p2p_spite.contracts.news import Owed, Stalled
    from p2p_spite.contracts.session import SessionFailed
    from p2p_spite.core import machine as machine_mod

    monkeypatch.setattr(machine_mod, "UNDO_ACK_DEADLINE", 1.0)

    async def main() -> None:
        on, off = await undo_never_acked(tmp_path, 0.1)  # a heartbeat of 0.1 s: the peer stays alive
        t0 = asyncio.get_running_loop().time()
        failed = await next_of(on, SessionFailed)
        assert asyncio.get_running_loop().time() - t0 < 4.0
        assert failed.news == Stalled("Bob" if on.seat == 0 else "Ann", Owed.UNDO_ACK, 1.0), failed.news
        await asyncio.gather(on.close("quit"), off.close("quit"))

    run(main())
