"""The matches of one connection as one :class:`~p2p_spite.contracts.session.Session`: the
driver plays the current match's :class:`~.session.NetSession`; after a yes from
both sides to another match (:meth:`Matches.rematch`) the next one's events follow
in the same stream, and its seat, names and deck are the same."""

from __future__ import annotations

import asyncio

from ..contracts.session import Event, Rematch
from ..engine import Match, Move, Played, PlayerView
from .session import NetSession


class Matches:
    """Every match played on one connection, the last one ``current``."""

    def __init__(self, first: NetSession) -> None:
        self.played: list[NetSession] = [first]
        self._moved = asyncio.Event()  # set when the next match takes over

    @property
    def current(self) -> NetSession:
        return self.played[-1]

    # -- the Session contract: the current match's ----------------------------------

    @property
    def seat(self) -> int:
        return self.current.seat

    @property
    def names(self) -> tuple[str, str]:
        return self.current.names

    @property
    def private(self) -> bool:
        return self.current.private

    @property
    def match(self) -> Match:
        return self.current.match

    @property
    def closed_for_play(self) -> bool:
        return self.current.closed_for_play

    def view(self) -> PlayerView | None:
        return self.current.view()

    async def play(self, move: Move) -> None:
        await self.current.play(move)

    async def chat(self, text: str) -> None:
        await self.current.chat(text)

    async def resign(self) -> None:
        await self.current.resign()

    async def take_back(self) -> Played | None:
        return await self.current.take_back()

    async def answer_takeback(self, yes: bool) -> bool:
        return await self.current.answer_takeback(yes)

    async def close(self, reason: str = "quit") -> None:
        await self.current.close(reason)

    def hang_up(self) -> None:
        self.current.hang_up()

    async def rematch(self, yes: bool) -> Rematch:
        """Answer "another match?"; STARTED: the next match is ``current`` now."""
        old = self.current
        settled = await old.rematch(yes)
        nxt = old.again.next
        if settled is Rematch.STARTED and nxt is not None:
            nxt.takeback.takebacks = old.takeback.takebacks  # (how this side answers: the same)
            nxt.takeback.peer_answers_at_once = old.takeback.peer_answers_at_once
            self.played.append(nxt)
            self._moved.set()
        return settled

    async def next_event(self) -> Event:
        """The next event: what the match before left unread first, then the current one's."""
        while True:
            for older in self.played[-2:-1]:  # (the match before: older ones were read out)
                ev = older.event_nowait()
                if ev is not None:
                    return ev
            cur = self.current
            ready = cur.event_nowait()  # (an event waiting is taken at once, as from the queue)
            if ready is not None:
                return ready
            self._moved.clear()
            get = asyncio.ensure_future(cur.next_event())
            moved = asyncio.ensure_future(self._moved.wait())
            try:
                await asyncio.wait({get, moved}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                moved.cancel()
                if not get.done():
                    get.cancel()
            if get.done() and not get.cancelled():
                return get.result()
