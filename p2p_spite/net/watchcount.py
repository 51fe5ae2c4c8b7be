"""The host's count of watchers, told to the joiner (docs/protocol.md, *Watchers*,
*How many watch*): on change only, at most one ``watchers`` a second, and again on
each new connection.  Only a joiner whose hello asked for it is told."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Final

from ..session import Event, WatchersChanged
from .link import Link

WATCHERS_EVERY: Final = 1.0  # seconds: at most one ``watchers`` per this (the last count then)


class CountTold:
    """``count`` watch now, of the ``most`` the host lets in (0: nobody watches, nothing is
    ever sent); ``link``: the connection of the moment (None while it is lost); ``put``:
    how the session's driver is told (its toolbar shows the count)."""

    def __init__(
        self,
        most: int,
        link: Callable[[], Link | None],
        put: Callable[[Event], None],
        every: float = WATCHERS_EVERY,
    ) -> None:
        self.most = most
        self.every = every
        self.count = 0
        self._link = link
        self._put = put
        self._last: tuple[Link, int] | None = None  # the count last sent, and on which link
        self._until = 0.0  # no other is sent before this (loop time)
        self._timer: asyncio.TimerHandle | None = None

    def set(self, count: int) -> None:
        """``count`` watch now: the driver is told, and the joiner (throttled)."""
        self.count = count
        self._put(WatchersChanged(count))
        self.tell()

    def tell(self) -> None:
        """Send the count if the joiner does not know it (a new link: it may not), unless
        one went out less than ``every`` seconds ago: then once that time is up."""
        link = self._link()
        if link is None or self.most <= 0 or self._timer is not None:
            return
        last = self._last
        known = 0 if last is None else last[1] if last[0] is link else None
        if self.count == known:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        if now < self._until:
            self._timer = loop.call_at(self._until, self._due)
            return
        if link.endpoint.watchers.send(self.count, self.most):
            self._last = (link, self.count)
            self._until = now + self.every
            link.flush()

    def _due(self) -> None:
        self._timer = None
        self.tell()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


__all__ = ["WATCHERS_EVERY", "CountTold"]
