"""The game screen's event feed: every event taken at once, game events shown
in order at a person's pace.

Two tasks run beside the screen in the same event loop:

* the *reader* takes every event from the session as soon as it comes (so the
  network is never held up by the screen); news (chat, connection, notices)
  goes to the screen at once, game events to a queue;
* the *shower* hands the queued game events to the screen in order, the
  opponent's moves ``pace`` seconds apart (a bot plays at full speed; a person
  wants to follow), and holds a new game until :meth:`EventFeed.next_game`
  (Enter) while the finished one is on screen.

A :class:`~p2p_spite.contracts.session.SessionFailed` is queued after the game events
still waiting, which are then shown at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from typing import Protocol

from ..contracts.session import (
    ChatReceived,
    ConnectionChanged,
    Event,
    GameStarted,
    MovePlayed,
    Notice,
    Session,
    SessionFailed,
    WatchersChanged,
)


class Screen(Protocol):
    """What the feed needs from the screen it feeds."""

    def feed_news(self, ev: ChatReceived | ConnectionChanged | Notice | WatchersChanged) -> None:
        """Show ``ev`` now (it changes nothing on the board)."""

    def feed_show(self, ev: Event) -> None:
        """Show one game event (or the end), in order."""

    def feed_broken(self, error: Exception) -> None:
        """The session failed to give its next event: no more will come."""

    def feed_hold(self, game: int) -> None:
        """Game ``game`` waits for :meth:`EventFeed.next_game` (say so)."""

    def game_over_shown(self) -> bool:
        """Is a finished game on screen?"""


class EventFeed:
    def __init__(
        self, session: Session, seat: int, screen: Screen, *, pace: float, hold_between_games: bool
    ) -> None:
        self.session = session
        self.seat = seat
        self.screen = screen
        self.pace = pace
        self.hold_between_games = hold_between_games
        self.waiting = False  # a new game is held until next_game()
        self.shown = asyncio.Event()  # set each time an event was shown
        self._pending: deque[Event] = deque()
        self._pending_ready = asyncio.Event()
        self._continue = asyncio.Event()
        self._hurry = False  # the session failed: show what is left without pacing
        self._last_shown = 0.0
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        self._last_shown = asyncio.get_running_loop().time()
        self._tasks = [asyncio.create_task(self._reader()), asyncio.create_task(self._shower())]

    async def stop(self) -> None:
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t

    def next_game(self) -> None:
        """Show the game held (Enter between games)."""
        if self.waiting:
            self._continue.set()

    def _queue(self, ev: Event) -> None:
        self._pending.append(ev)
        self._pending_ready.set()

    async def _reader(self) -> None:
        while True:
            try:
                ev = await self.session.next_event()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the session broke: say so, stop reading
                self.screen.feed_broken(e)
                return
            if isinstance(ev, ChatReceived | ConnectionChanged | Notice | WatchersChanged):
                self.screen.feed_news(ev)
            elif isinstance(ev, SessionFailed):
                self._hurry = True
                self._continue.set()
                self._queue(ev)
            else:
                self._queue(ev)
            if isinstance(ev, SessionFailed):
                return  # (after MatchEnded, the next match's events may follow: play again)

    async def _shower(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            while not self._pending:
                self._pending_ready.clear()
                await self._pending_ready.wait()
            ev = self._pending[0]
            if self._hurry:
                pass
            elif isinstance(ev, MovePlayed) and ev.seat != self.seat:
                delay = self._last_shown + self.pace - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
            elif isinstance(ev, GameStarted) and self.hold_between_games and self.screen.game_over_shown():
                self.waiting = True
                self._continue.clear()
                self.screen.feed_hold(ev.game)
                await self._continue.wait()
                self.waiting = False
            self._pending.popleft()
            self.screen.feed_show(ev)
            self._last_shown = loop.time()
            self.shown.set()


__all__ = ["EventFeed", "Screen"]
