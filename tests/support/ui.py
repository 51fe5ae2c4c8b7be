"""What the interface tests share: the in-process session they play against, a
seed by who starts, the game screen run on a pipe, a Port that only records what the
controller tells it, and waiting with a deadline."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2p_spite.bots import localsession, make_bot
from p2p_spite.engine import CENTER, Match, Move, PlayerView, new_seed, view
from p2p_spite.ui.app import GameApp
from p2p_spite.ui.board import hand_order
from p2p_spite.ui.controller import Controller
from p2p_spite.ui.words import Style

TIMEOUT = 10.0


class LocalSession(localsession.LocalSession):
    """The package's in-process session over the real match core, the other seat
    an easy bot (``bot=None``: the test moves it), plus what the tests look at
    (``again``: the seed of every match after the first)."""

    def __init__(
        self,
        seed: bytes,
        seat: int = 0,
        names: tuple[str, str] = ("Alice", "Bob"),
        bot: str | None = "easy",
        target: int = 50,
        again: bytes | None = None,
    ) -> None:
        self.sent: list[Move] = []  # the moves this seat played
        self.resigned = 0  # and its resignations
        super().__init__(
            seed, seat, names, target=target, opponent=make_bot(bot, 1) if bot else None,
            seeds=(lambda: again) if again is not None else new_seed,
        )  # fmt: skip

    @property
    def chats(self) -> list[str]:
        return self.inbox

    async def play(self, move: Move) -> None:
        await super().play(move)
        self.sent.append(move)

    async def resign(self) -> None:
        await super().resign()
        self.resigned += 1


def find_seed(starter: int) -> bytes:
    """A seed whose game 1 is started by ``starter``."""
    for i in range(200):
        seed = i.to_bytes(32, "big")
        if Match(seed).game.starter == starter:
            return seed
    raise AssertionError("no seed")


class SizedOutput(DummyOutput):
    def __init__(self, cols: int = 80, rows: int = 24) -> None:
        self.size = Size(rows=rows, columns=cols)

    def get_size(self) -> Size:
        return self.size


async def until(pred: Callable[[], bool], timeout: float = TIMEOUT) -> None:
    async with asyncio.timeout(timeout):
        while not pred():
            await asyncio.sleep(0.01)


def changed(get: Callable[[], object], old: object) -> Callable[[], bool]:
    """A predicate for :func:`until`: ``get()`` is no longer ``old`` (a loop's value, bound now)."""
    return lambda: get() is not old


def equals(get: Callable[[], object], value: object) -> Callable[[], bool]:
    """A predicate for :func:`until`: ``get()`` equals ``value`` (bound now)."""
    return lambda: get() == value


@contextlib.asynccontextmanager
async def running(
    session: LocalSession, cols: int = 80, rows: int = 24, **kw: Any
) -> AsyncIterator[tuple[GameApp, Any]]:
    with create_pipe_input() as inp:
        kw.setdefault("pace", 0.01)
        app = GameApp(session, input=inp, output=SizedOutput(cols, rows), **kw)
        task = asyncio.create_task(app.run())
        try:
            await until(lambda: app.view is not None)
            yield app, inp
        finally:
            if not task.done() and app.exit_reason is None:
                app.app.exit()
            async with asyncio.timeout(TIMEOUT):
                await task


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 30))


def texts(app: GameApp) -> str:
    return "\n".join("".join(f[1] for f in m) for m in app.log.messages)


class RecordingPort:
    """A Port that renders nothing: it keeps the lines and what was offered."""

    def __init__(self) -> None:
        self.lines: list[tuple[Style, str]] = []
        self.offered: list[str] = []
        self.helped = 0
        self.left = False
        self.moves_sent = 0

    def say(self, style: Style, text: str) -> None:
        self.lines.append((style, text))

    def show_help(self) -> None:
        self.helped += 1

    def offer(self, text: str) -> None:
        self.offered.append(text)

    def next_game(self) -> bool:
        return False

    def holding(self) -> bool:
        return False

    async def played(self, before: PlayerView) -> None:
        self.moves_sent += 1

    def leave(self) -> None:
        self.left = True

    def changed(self) -> None:
        pass

    def said(self) -> str:
        return "\n".join(text for _, text in self.lines)


async def show_queued(s: LocalSession, ctl: Controller) -> None:
    """Show on ``ctl`` what ``s`` has queued (the events so far)."""
    while s.queued:
        ctl.show(await s.next_event())


def seed_with_early_center_play() -> tuple[bytes, int, int]:
    """A seed where seat 0 begins and can play a hand card that is not the last
    one shown onto a center; that card's slot and the center (0-based)."""
    for i in range(400):
        seed = i.to_bytes(32, "big")
        m = Match(seed)
        if m.game.starter != 0:
            continue
        v = view(m.game, 0)
        shown = hand_order(v.hand)
        for mv in v.legal_moves():
            card = mv.hand_card
            if card is not None and mv.target == CENTER and shown.index(card) < len(shown) - 1:
                return seed, shown.index(card), mv.slot
    raise AssertionError("no seed")


__all__ = [
    "TIMEOUT",
    "LocalSession",
    "RecordingPort",
    "SizedOutput",
    "changed",
    "equals",
    "find_seed",
    "run",
    "running",
    "seed_with_early_center_play",
    "show_queued",
    "texts",
    "until",
]
