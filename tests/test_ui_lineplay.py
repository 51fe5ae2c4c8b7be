"""The plain line prompt (TERM=dumb, pipes), driven through a real pipe as stdin."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import IO

from p2p_spite.engine import CENTER, HAND, SIDE, PlayerView, Result, rank
from p2p_spite.net.protocol import MAX_CHAT
from p2p_spite.session import ConnectionChanged, GameEnded, SessionFailed
from p2p_spite.ui.board import hand_order
from p2p_spite.ui.lineplay import play_lines
from p2p_spite.ui.text import card_label

from .test_ui_app import LocalSession, find_seed, run, until


@dataclass
class Driver:
    session: LocalSession
    writer: IO[str]
    lines: list[str] = field(default_factory=list)
    task: asyncio.Task[int] | None = None

    def type(self, text: str) -> None:
        self.writer.write(text + "\n")
        self.writer.flush()

    def said(self) -> str:
        return "\n".join(self.lines)

    async def wait_for(self, text: str, after: int = 0) -> None:
        await until(lambda: text in "\n".join(self.lines[after:]), timeout=5)

    async def result(self) -> int:
        assert self.task is not None
        async with asyncio.timeout(5):
            return await self.task


@asynccontextmanager
async def lineplay(
    session: LocalSession, hint: Callable[[PlayerView], object] | None = None
) -> AsyncIterator[Driver]:
    r, w = os.pipe()
    reader, writer = os.fdopen(r, "r"), os.fdopen(w, "w")
    d = Driver(session, writer)
    d.task = asyncio.create_task(play_lines(session, d.lines.append, stdin=reader, hint=hint))  # type: ignore[arg-type]
    try:
        yield d
    finally:
        if not d.task.done():
            d.task.cancel()
        with suppress(asyncio.CancelledError, Exception):
            await d.task
        writer.close()


def _my_view(s: LocalSession) -> PlayerView:
    v: PlayerView = s.view()
    return v


def test_an_illegal_move_is_explained_in_the_players_terms() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0), bot=None)
        async with lineplay(s) as d:
            await d.wait_for("your move> ")
            v = _my_view(s)
            shown = hand_order(v.hand)
            i = next(i for i, c in enumerate(shown) if rank(c) not in (1, 13))
            n = len(d.lines)
            d.type(f"h{i + 1} c1")
            await d.wait_for("your move> ", after=n)
            said = d.said()
            assert f"h{i + 1} c1: {card_label(shown[i])} from your hand does not fit center 1" in said
            assert "needs an Ace (or a King)" in said
            assert "not allowed" not in said and "center 0" not in said
            assert s.sent == []

    run(main())


def test_the_hand_is_numbered_as_on_the_full_screen_board() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0), bot=None)
        async with lineplay(s) as d:
            await d.wait_for("your move> ")
            v = _my_view(s)
            shown = hand_order(v.hand)
            listed = "  ".join(f"h{i + 1} {card_label(c)}" for i, c in enumerate(shown))
            assert f"hand: {listed}" in d.said()
            move = next(m for m in v.legal_moves() if m.source == HAND)
            k = shown.index(move.arg) + 1  # type: ignore[arg-type]
            target = f"c{move.slot + 1}" if move.target == CENTER else f"s{move.slot + 1}"
            d.type(f"h{k} {target}")
            await until(lambda: len(s.sent) == 1, timeout=5)
            assert s.sent[0] == move

    run(main())


def test_hint_then_enter_plays_it() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0), bot=None)
        v0 = _my_view(s)
        chosen = next(m for m in v0.legal_moves() if m.target == SIDE)
        async with lineplay(s, hint=lambda v: chosen) as d:
            await d.wait_for("your move> ")
            d.type("hint")
            await d.wait_for("hint: ")
            assert "press Enter to play it" in d.said()
            d.type("")
            await until(lambda: s.sent == [chosen], timeout=5)

    run(main())


def test_chat_is_sent_echoed_capped_and_say_is_an_alias() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(1), bot=None)  # not our turn: chat still works
        async with lineplay(s) as d:
            await d.wait_for("begins")
            n = len(d.lines)
            d.type("chat hello there")
            await d.wait_for("<you> hello there", after=n)
            assert d.lines[-1] == "> "  # a fresh prompt after the echo
            d.type("say hi")
            await until(lambda: s.chats[-1:] == ["hi"], timeout=5)
            d.type("chat " + "x" * (MAX_CHAT + 100))
            await until(lambda: len(s.chats) == 3, timeout=5)
            assert s.chats[2] == "x" * MAX_CHAT
            await d.wait_for("<you> " + "x" * MAX_CHAT)
            assert "x" * (MAX_CHAT + 1) not in d.said()

    run(main())


def test_quit_leaves_cleanly_with_exit_0() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0), bot=None)
        async with lineplay(s) as d:
            await d.wait_for("your move> ")
            d.type("quit")
            assert await d.result() == 0
            assert s.closed == "quit"

    run(main())


def test_end_of_input_leaves_with_exit_1_and_says_why() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0), bot=None)
        async with lineplay(s) as d:
            await d.wait_for("your move> ")
            d.writer.close()
            assert await d.result() == 1
            assert s.closed == "quit"
            assert "not a deliberate quit" in d.said()

    run(main())


def test_ctrl_c_leaves_the_match_cleanly() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0), bot=None)
        async with lineplay(s) as d:
            await d.wait_for("your move> ")
            os.kill(os.getpid(), signal.SIGINT)
            assert await d.result() == 0
            assert s.closed == "quit"
            assert "Ctrl-C: leaving the match" in d.said()

    run(main())


def test_a_peer_who_quits_left_the_match_once_and_points_are_singular() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(1), bot=None)
        async with lineplay(s) as d:
            await d.wait_for("begins")
            v = _my_view(s)
            s.events.put_nowait(GameEnded(1, Result(1, 1, "payoff"), (0, 1), v))
            s.events.put_nowait(ConnectionChanged("lost", "Bob left the match (quit)"))
            s.events.put_nowait(
                SessionFailed("Bob left the match (quit); record saved to /tmp/r.json", "/tmp/r.json")
            )
            assert await d.result() == 1
            said = d.said()
            assert ": 1 point" in said and "1 points" not in said
            assert said.count("Bob left the match.") == 1
            assert "(quit)" not in said and "connection lost" not in said

    run(main())
