"""What a session tells its driver beside the match: notices, throttled, and the
peer's chat, bounded while the driver does not read it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ..contracts.news import ChatFlood, News, Repeated
from ..contracts.session import ChatReceived, Event, Notice

NOTICE_EVERY = 5.0  # seconds: at most one Notice per this (the others are counted in the next one)
MAX_CHAT_BACKLOG = 100  # chat messages waiting for the driver; more are dropped (one notice)


class Notices:
    """At most one notice every ``every`` seconds: the ones in between (a crowd of
    strangers knocking, say) are merged into the next, with a count."""

    def __init__(self, put: Callable[[Event], None], every: float = NOTICE_EVERY) -> None:
        self._put = put
        self.every = every
        self._until = 0.0  # no notice before this (loop time) ...
        self._held: News | None = None  # ... the last one held back, and how many were
        self._held_count = 0
        self._timer: asyncio.TimerHandle | None = None

    def tell(self, news: News, *, merged: bool = False) -> None:
        """``merged``: ``news`` already sums up many (the door's counts): told at once."""
        if merged:
            self._put(Notice(news))
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        if now >= self._until and not self._held_count:
            self._until = now + self.every
            self._put(Notice(news))
            return
        self._held = news
        self._held_count += 1
        if self._timer is None:
            self._timer = loop.call_later(max(0.0, self._until - now), self._release)

    def _release(self) -> None:
        self._timer = None
        n, news = self._held_count, self._held
        if not n or news is None:
            return
        self._held_count = 0
        self._until = asyncio.get_running_loop().time() + self.every
        self._put(Notice(news if n == 1 else Repeated(news, n - 1)))

    def stop(self) -> None:
        """No more notices (the ones held back are not told)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class ChatBacklog:
    """The peer's chat messages waiting for the driver: at most ``limit``; beyond
    that they are dropped (``dropped`` counts them)."""

    def __init__(self, limit: int = MAX_CHAT_BACKLOG) -> None:
        self.limit = limit
        self.waiting = 0
        self.dropped = 0

    def admit(self) -> bool:
        """One more message arrived: False if it is dropped."""
        if self.waiting >= self.limit:
            self.dropped += 1
            return False
        self.waiting += 1
        return True

    def taken(self) -> None:
        """The driver read one."""
        self.waiting -= 1


class Outbox:
    """What a session tells its driver, in order: its events (``stirred`` is called as
    each is queued), notices through :class:`Notices`, the peer's chat through
    :class:`ChatBacklog`, and whether the driver has taken every event since the last
    :meth:`mark` (a move it chose was chosen on the board as it is)."""

    def __init__(self, stirred: Callable[[], None]) -> None:
        self._stirred = stirred
        self._events: asyncio.Queue[Event] = asyncio.Queue()
        self.notices = Notices(self.put)
        self.chats = ChatBacklog()  # ChatReceived events in the queue
        self._queued = 0  # events put in the queue ...
        self._taken = 0  # ... and taken out by the driver
        self._mark = 0  # _queued at the last mark (an event that changed the board on the driver's turn)

    def put(self, ev: Event) -> None:
        self._events.put_nowait(ev)
        self._queued += 1
        self._stirred()

    def chat(self, ev: ChatReceived, peer_name: str) -> None:
        """The peer's chat line, unless more wait than the driver reads (one notice says so)."""
        if not self.chats.admit():
            if self.chats.dropped == 1:
                self.notices.tell(ChatFlood(peer_name))
            return
        self.put(ev)

    def mark(self) -> None:
        """The events queued so far must be taken before a move of the driver's counts."""
        self._mark = self._queued

    @property
    def seen(self) -> bool:
        """Has the driver taken every event up to the last mark?"""
        return self._taken >= self._mark

    async def get(self) -> Event:
        return self._taken_out(await self._events.get())

    def get_nowait(self) -> Event | None:
        """The next event if one is waiting, else None."""
        try:
            return self._taken_out(self._events.get_nowait())
        except asyncio.QueueEmpty:
            return None

    def _taken_out(self, ev: Event) -> Event:
        self._taken += 1
        if isinstance(ev, ChatReceived):
            self.chats.taken()
        return ev
