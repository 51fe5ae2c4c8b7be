"""The plain line prompt (TERM=dumb, pipes), driven through a real pipe as stdin."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import IO

from p2p_spite.bots import make_bot
from p2p_spite.contracts.news import PeerLeft
from p2p_spite.contracts.plaintext import MAX_CHAT
from p2p_spite.contracts.session import (
    ConnectionChanged,
    EndCause,
    Ending,
    GameEnded,
    LinkState,
    SessionFailed,
)
from p2p_spite.engine import CENTER, HAND, SIDE, Card, EndReason, Match, PlayerView, Result, rank, view
from p2p_spite.engine.cards import card_symbol
from p2p_spite.ui.board import hand_order
from p2p_spite.ui.lineplay import play_lines, render
from p2p_spite.ui.text import card_label
from tests.support.ui import LocalSession, find_seed, run, seed_with_early_center_play, until


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

    async def resign_to_the_end(self, after: int = 0) -> None:
        """Resign the match's one game, confirmed, up to "another match?"."""
        self.type("resign")
        await self.wait_for("[y/N]", after=after)
        self.type("y")
        await self.wait_for("Play another match? [y/N]", after=after)

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
    v = s.view()
    assert v is not None
    return v


@asynccontextmanager
async def _my_turn() -> AsyncIterator[tuple[LocalSession, Driver, PlayerView, tuple[Card, ...]]]:
    """The line prompt at the first move of ours: the session, the driver, the view and
    the hand as numbered on screen."""
    s = LocalSession(find_seed(0), bot=None)
    async with lineplay(s) as d:
        await d.wait_for("your move> ")
        v = _my_view(s)
        yield s, d, v, hand_order(v.hand)


def test_an_illegal_move_is_explained_in_the_players_terms() -> None:
    async def main() -> None:
        async with _my_turn() as (s, d, _v, shown):
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
        async with _my_turn() as (s, d, v, shown):
            listed = "  ".join(f"h{i + 1} {card_label(c)}" for i, c in enumerate(shown))
            assert f"hand: {listed}" in d.said()
            move = next(m for m in v.legal_moves() if m.source == HAND)
            assert move.hand_card is not None
            k = shown.index(move.hand_card) + 1
            target = f"c{move.slot + 1}" if move.target == CENTER else f"s{move.slot + 1}"
            d.type(f"h{k} {target}")
            await until(lambda: len(s.sent) == 1, timeout=5)
            assert s.sent[0] == move

    run(main())


def test_tab_then_enter_lists_the_moves_of_a_card_name_rank_or_token() -> None:
    """The line prompt cannot complete in place: Tab then Enter lists the moves that start
    as typed (``9``, ``9h``, ``kd``, ``h3``), each with what it does, and plays nothing."""

    async def main() -> None:
        async with _my_turn() as (s, d, v, shown):
            move = next(m for m in v.legal_moves() if m.hand_card is not None)
            assert move.hand_card is not None
            name = card_symbol(move.hand_card, "cdhs").lower()
            target = f"c{move.slot + 1}" if move.target == CENTER else f"s{move.slot + 1}"
            k = shown.index(move.hand_card) + 1
            for typed, want in (
                (name[:-1], f"{name} {target}"),
                (name, f"{name} {target}"),
                (f"h{k}", f"h{k} {target}"),
            ):
                n = len(d.lines)
                d.type(typed + "\t")
                await d.wait_for("your move> ", after=n)
                listed = d.lines[n:]
                assert any(line.split()[:2] == want.split() for line in listed), (typed, listed)
                assert all(line.split()[0].startswith(typed) for line in listed[:-1]), listed
            n = len(d.lines)
            d.type("zz\t")
            await d.wait_for("your move> ", after=n)
            assert "no move of yours starts with 'zz'" in d.said()
            assert s.sent == []

    run(main())


def test_hint_then_enter_plays_it() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0), bot=None)
        v0 = _my_view(s)
        chosen = next(m for m in v0.legal_moves() if m.target == SIDE)
        async with lineplay(s, hint=lambda v: chosen) as d:
            await d.wait_for("your move> ")
            d.type("hint")
            await d.wait_for("Hint: ")
            assert "Press Enter to play it" in d.said()
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
            await d.wait_for("You: hello there", after=n)
            assert d.lines[-1] == "> "  # a fresh prompt after the echo
            d.type("say hi")
            await until(lambda: s.chats[-1:] == ["hi"], timeout=5)
            d.type("chat " + "x" * (MAX_CHAT + 100))
            await until(lambda: len(s.chats) == 3, timeout=5)
            assert s.chats[2] == "x" * MAX_CHAT
            await d.wait_for("You: " + "x" * MAX_CHAT)
            assert "x" * (MAX_CHAT + 1) not in d.said()

    run(main())


def test_quit_asks_first_and_only_yes_leaves_with_exit_0() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0), bot=None)
        async with lineplay(s) as d:
            await d.wait_for("your move> ")
            n = len(d.lines)
            d.type("quit")
            await d.wait_for("Quit the match? Bob will be told. [y/N]", after=n)
            assert s.closed is None
            n = len(d.lines)
            d.type("n")
            await d.wait_for("Not quitting: carry on.", after=n)
            await d.wait_for("your move> ", after=n)
            assert s.closed is None and not d.task.done()  # type: ignore[union-attr]
            n = len(d.lines)
            d.type("quit")
            await d.wait_for("[y/N]", after=n)
            d.type("y")
            assert await d.result() == 0
            assert s.closed == "quit"
            assert "Leaving the match..." in d.said()

    run(main())


def test_resign_asks_first_and_yes_resigns_the_game() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0), bot=None)
        async with lineplay(s) as d:
            await d.wait_for("your move> ")
            n = len(d.lines)
            d.type("resign")
            left = _my_view(s).payoff_counts[0]
            await d.wait_for(f"Resign game 1? Bob scores {left} points. [y/N]", after=n)
            d.type("")  # Enter alone is the default: no
            await d.wait_for("Not resigning: carry on.", after=n)
            assert s.resigned == 0
            n = len(d.lines)
            d.type("resign")
            await d.wait_for("[y/N]", after=n)
            d.type("yes")
            await until(lambda: s.resigned == 1, timeout=5)
            await d.wait_for("Game 1: Bob won: you resigned", after=n)

    run(main())


def test_end_of_input_while_asking_quit_leaves_cleanly_and_resign_is_a_no() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0), bot=None)
        async with lineplay(s) as d:
            await d.wait_for("your move> ")
            d.type("quit")
            await d.wait_for("[y/N]")
            d.writer.close()
            assert await d.result() == 0  # a script that said quit meant it
            assert s.closed == "quit"
        s = LocalSession(find_seed(0), bot=None)
        async with lineplay(s) as d:
            await d.wait_for("your move> ")
            d.type("resign")
            await d.wait_for("[y/N]")
            d.writer.close()
            assert await d.result() == 1  # the end of the input, not a quit
            assert s.resigned == 0
            assert "not resigned" in d.said()

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
            s.inject(GameEnded(1, Result(1, 1, EndReason.PAYOFF), (0, 1), v))
            bye = Ending(EndCause.PEER_LEFT, "Bob", reason="quit")
            s.inject(ConnectionChanged(LinkState.LOST, PeerLeft("Bob", "quit"), bye))
            s.inject(SessionFailed(PeerLeft("Bob", "quit"), "/tmp/r.json", bye))
            assert await d.result() == 1
            said = d.said()
            assert ", 1 point." in said and "1 points" not in said
            assert said.count("Bob left the match.") == 1
            assert "(quit)" not in said and "connection lost" not in said

    run(main())


def test_hand_numbers_stay_put_within_a_turn() -> None:
    async def main() -> None:
        seed, slot, center = seed_with_early_center_play()
        s = LocalSession(seed, bot=None)
        async with lineplay(s) as d:
            await d.wait_for("your move> ")
            shown = hand_order(_my_view(s).hand)
            later = shown[slot + 1]
            n = len(d.lines)
            d.type(f"h{slot + 1} c{center + 1}")
            await until(lambda: len(s.sent) == 1, timeout=5)
            await d.wait_for("hand: ", after=n)
            hand_line = next(x for x in "\n".join(d.lines[n:]).splitlines() if x.startswith("hand: "))
            # The card after the played one keeps its number; the played slot is not listed.
            assert f"h{slot + 2} {card_label(later)}" in hand_line
            assert f"h{slot + 1} " not in hand_line
            n = len(d.lines)
            d.type(f"h{slot + 1} s1")
            await d.wait_for("was played this turn", after=n)
            d.type(f"h{slot + 2} s1")  # the card that was (and still is) h{slot+2}
            await until(lambda: len(s.sent) == 2, timeout=5)
            assert s.sent[1].arg == later and s.sent[1].target == SIDE

    run(main())


def test_the_plain_board_shows_every_side_stack_of_both_players_with_labels() -> None:
    m = Match(find_seed(0))
    bots = (make_bot("easy", 1), make_bot("easy", 2))
    g = m.game
    while g.result is None and not all(sum(map(len, g.sides[p])) >= 3 for p in (0, 1)):
        g.apply(bots[g.turn].choose(view(g, g.turn)))
    assert g.result is None
    v = view(g, 0)
    text = render(v, ("Alice", "Bob"))
    lines = text.splitlines()
    center = next(i for i, x in enumerate(lines) if x.startswith("center:"))
    mine = next(x for x in lines[center:] if "your sides " in x)
    theirs = next(x for x in lines[:center] if "Bob's sides " in x)
    for line, seat in ((theirs, 1), (mine, 0)):
        for i, stack in enumerate(v.sides[seat]):
            cards = " ".join(card_label(c) for c in stack) if stack else "--"
            assert f"s{i + 1} {cards}" in line, (line, i)
    assert all(len(x) <= 100 for x in lines)


def test_play_again_at_the_line_prompt_yes_then_no() -> None:
    """The match's end asks; y deals the next match at once (the other seat says yes),
    n at the next end leaves with exit code 0."""

    async def main() -> None:
        s = LocalSession(find_seed(0), bot=None, again=find_seed(0))  # this seat begins each
        s.core.max_games = 1
        async with lineplay(s) as d:
            await d.wait_for("your move> ")
            await d.resign_to_the_end()
            n = len(d.lines)
            d.type("y")
            await d.wait_for("Match 2 begins.", after=n)
            await until(lambda: s.matches == 2)
            s.core.max_games = 1
            await d.wait_for("== Game 1", after=n)
            n = len(d.lines)
            await d.resign_to_the_end(after=n)
            d.type("n")
            assert await d.result() == 0
            assert s.closed == "quit" and s.matches == 2

    run(main())


def test_end_of_input_at_the_play_again_question_is_a_no_and_exit_0() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0), bot=None)
        s.core.max_games = 1
        async with lineplay(s) as d:
            await d.wait_for("your move> ")
            await d.resign_to_the_end()
            d.writer.close()
            assert await d.result() == 0
            assert "end of input: no other match" in d.said() and s.matches == 1

    run(main())
