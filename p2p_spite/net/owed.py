"""What the peer owes this side on the connection of the moment, each debt with a
deadline that only paying meets."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ..core.wire import Refusal
from ..news import Stalled


class Owed:
    """What the peer owes this side on the current connection, each debt with a deadline
    (the actions its sync claimed; a private deck's next messages).  Only paying meets a
    deadline: pings, chat and the rest of the peer's traffic do not put it off.  A debt
    not paid in time calls ``overdue(what, code)``; a lost connection forgives them all
    (the next one owes afresh)."""

    def __init__(self, overdue: Callable[[Stalled, Refusal], None]) -> None:
        self._overdue = overdue
        self._timers: dict[str, asyncio.TimerHandle] = {}

    def owe(self, key: str, what: Stalled, code: Refusal) -> None:
        """The peer owes ``key`` within ``what.seconds`` (a debt owed already keeps its
        deadline); ``what``: the user's news if it does not come, ``code``: the refusal sent."""
        if key not in self._timers:
            loop = asyncio.get_running_loop()
            self._timers[key] = loop.call_later(what.seconds, self._due, key, what, code)

    def paid(self, key: str) -> None:
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()

    def owes(self, key: str) -> bool:
        return key in self._timers

    def forgive(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    def _due(self, key: str, what: Stalled, code: Refusal) -> None:
        del self._timers[key]
        self._overdue(what, code)


__all__ = ["Owed"]
