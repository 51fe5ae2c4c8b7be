"""What the interface tests share: the in-process session they play against, a
seed by who starts, the game screen run on a pipe, and waiting with a deadline."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2p_spite.bots import localsession, make_bot
from p2p_spite.engine import Match, Move, new_seed
from p2p_spite.ui.app import GameApp

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


__all__ = [
    "TIMEOUT",
    "LocalSession",
    "SizedOutput",
    "changed",
    "equals",
    "find_seed",
    "run",
    "running",
    "texts",
    "until",
]
