"""A :class:`~p2p_spite.contracts.session.Session` in one process, over the real match core.

One seat is driven by the caller (an interface, a test); the other seat is a
bot, or is moved by hand (:meth:`LocalSession.play_other`, for a scripted
opponent).  The match, its actions and the events they make are those of the
network's own core (:class:`p2p_spite.core.game.GameCore`, sans I/O): the same
checks, the same next deal, the same events in the same order.  No
connection, no record.

The interfaces' tests drive it, so what they test is the engine and core the
network session uses, not a re-implementation of them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ..contracts.errors import SessionClosed
from ..contracts.session import ChatReceived, Event, Rematch, TakebackAsked, TakebackRefused, Takebacks
from ..core.effects import Show
from ..core.game import Action, GameCore
from ..core.machine import SeatMachine
from ..core.seat import CoreSeat
from ..engine import DEFAULT_TARGET, IllegalMoveError, Match, Move, Played, new_seed, view
from ..engine.refusals import TakebackWaiting
from .base import Bot


class LocalSession(CoreSeat):
    """Seat ``seat`` of a match from ``seed``; ``opponent`` plays the other seat
    (None: :meth:`play_other` does).  ``max_games`` stops the match early.  ``takebacks``:
    how the other seat answers our takeback requests (ASK: :meth:`answer_other` does).
    Another match (:meth:`rematch`) is dealt from ``seeds()``; the other seat says yes
    (``other_again``: what it answers).  ``match``: a match already under way to take
    up instead of a new one from ``seed`` (a what-if: :mod:`p2p_spite.core.whatif`)."""

    def __init__(
        self,
        seed: bytes,
        seat: int = 0,
        names: tuple[str, str] = ("Alice", "Bob"),
        *,
        target: int = DEFAULT_TARGET,
        opponent: Bot | None = None,
        max_games: int | None = None,
        takebacks: Takebacks = Takebacks.ALWAYS,
        seeds: Callable[[], bytes] = new_seed,
        match: Match | None = None,
    ) -> None:
        self.takebacks = takebacks
        self.asked: Played | None = None  # our takeback request, waiting for answer_other()
        self.other_asked: Played | None = None  # the other seat's, waiting for answer_takeback()
        self._settings = (target, max_games)
        self._seeds = seeds
        self.other_again = True  # the other seat's answer to another match
        self.matches = 1  # the matches dealt so far
        self.core = GameCore(match or Match(seed, target, names), seat, bytes(16), max_games)
        self.opponent = opponent
        self.inbox: list[str] = []  # the chat lines this seat sent (the other seat's inbox)
        self.closed: str | None = None  # close()'s reason once closed
        self._events: asyncio.Queue[Event] = asyncio.Queue()
        self._bot_task: asyncio.Task[None] | None = None
        for ev in self.core.start_events():
            self.inject(ev)
        self._kick()

    # -- the Session contract -----------------------------------------------------

    @property
    def closed_for_play(self) -> bool:
        return self.closed is not None or self.core.finished

    async def play(self, move: Move) -> None:
        self._check_open()
        self._move(self.core.check_move(move, self.seat))

    async def take_back(self) -> Played | None:
        self._check_open()
        core = self.core
        why = TakebackWaiting() if self.asked is not None else core.takeback_refusal(self.seat)
        if why is not None:
            raise IllegalMoveError([], why)
        last = self.match.last_played()
        assert last is not None
        if self.takebacks is Takebacks.ALWAYS:
            self._take_back(self.seat)
            return None
        if self.takebacks is Takebacks.NEVER:
            self.inject(TakebackRefused(1 - self.seat, rule=True))
        else:
            self.asked = last
        return last

    async def answer_takeback(self, yes: bool) -> bool:
        asked, self.other_asked = self.other_asked, None
        other = 1 - self.seat
        stale = self.match.last_played() is not asked or self.core.takeback_refusal(other) is not None
        if asked is None or self.closed is not None or stale:
            return False
        if yes:
            self._take_back(other)
        return True

    async def chat(self, text: str) -> None:
        self._check_open()
        self.inbox.append(text)  # (as over the network: no event for one's own line)

    async def resign(self) -> None:
        """Resign the current game, on turn or off (the other seat takes it at once)."""
        self._check_open()
        self._apply(self.core.check_resign(self.seat, self.match.game.turn))

    async def close(self, reason: str = "quit") -> None:
        if self.closed is None:
            self.closed = reason
        if self._bot_task is not None:
            self._bot_task.cancel()

    async def next_event(self) -> Event:
        return await self._events.get()

    async def rematch(self, yes: bool) -> Rematch:
        """Another match, dealt at once when both seats say yes (the other: :attr:`other_again`)."""
        if not yes or self.closed is not None or not self.core.finished:
            return Rematch.NOT_OFFERED
        if not self.other_again:
            return Rematch.DECLINED
        target, max_games = self._settings
        self.core = GameCore(Match(self._seeds(), target, self.names), self.seat, bytes(16), max_games)
        self.matches += 1
        for ev in self.core.start_events():
            self.inject(ev)
        self._kick()
        return Rematch.STARTED

    # -- the other seat -------------------------------------------------------------

    def play_other(self, move: Move) -> None:
        """Play ``move`` for the other seat (IllegalMoveError if the rules refuse it)."""
        self._move(self.core.check_move(move, 1 - self.seat))

    def resign_other(self) -> None:
        self._apply(self.core.check_resign(1 - self.seat, self.match.game.turn))

    def take_back_other(self) -> None:
        """The other seat asks to take back its last move (IllegalMoveError if it cannot):
        our driver is asked (TakebackAsked), and :meth:`answer_takeback` answers."""
        why = self.core.takeback_refusal(1 - self.seat)
        if why is not None:
            raise IllegalMoveError([], why)
        last = self.match.last_played()
        assert last is not None
        self.other_asked = last
        self.inject(TakebackAsked(1 - self.seat, last))

    def answer_other(self, yes: bool) -> None:
        """The other seat answers our takeback request (``takebacks`` ASK)."""
        asked, self.asked = self.asked, None
        if asked is None or self.match.last_played() is not asked:
            return  # void: we played on
        if yes:
            self._take_back(self.seat)
        else:
            self.inject(TakebackRefused(1 - self.seat))

    def chat_other(self, text: str) -> None:
        """A chat line from the other seat."""
        self.inject(ChatReceived(1 - self.seat, text))

    @property
    def queued(self) -> int:
        """Events made and not yet taken by the driver."""
        return self._events.qsize()

    def inject(self, ev: Event) -> None:
        """Hand the driver ``ev`` as if the session had made it (news of the
        connection, a failure: what a network session says beside the moves)."""
        self._events.put_nowait(ev)

    # -- inside -----------------------------------------------------------------------

    def _check_open(self) -> None:
        if self.closed is not None:
            raise SessionClosed("the session is closed")
        if self.core.finished:
            raise IllegalMoveError([], "the match is over")

    def _move(self, move: Move) -> None:
        self.asked = self.other_asked = None  # a move voids a takeback request
        self._apply(Action(self.match.game.game, move.seat, move))

    def _take_back(self, seat: int) -> None:
        for ev in self.core.taken_back(seat, self.core.take_back(seat)):
            self.inject(ev)

    def _apply(self, action: Action) -> None:
        machine = SeatMachine(self.core)  # (nothing to write or send: only what to show)
        done = self.core.commit(action)
        for effects in (machine.settle(done, None), machine.deal()):
            for fx in effects:
                if isinstance(fx, Show):
                    self.inject(fx.event)
        if self.core.finished:
            self.inject(self.core.end_event(None))
        else:
            self._kick()

    def _kick(self) -> None:
        g = self.match.game
        busy = self._bot_task is not None and not self._bot_task.done()
        if self.opponent is not None and g.result is None and g.turn != self.seat and not busy:
            self._bot_task = asyncio.get_running_loop().create_task(self._bot_turn())

    async def _bot_turn(self) -> None:
        assert self.opponent is not None
        other = 1 - self.seat
        while self.closed is None and not self.core.finished:
            await asyncio.sleep(0)  # (the driver runs between the bot's moves)
            g = self.match.game
            if g.result is not None or g.turn != other:
                return
            self.play_other(self.opponent.choose(view(g, other)))


__all__ = ["LocalSession"]
