"""Reconnecting: the pause between two dials after a link is lost or refused."""

from __future__ import annotations

import asyncio


class Backoff:
    """Exponential back-off: the first pause is ``first`` seconds, each next one
    twice the last, never more than ``cap``."""

    def __init__(self, first: float = 0.05, cap: float = 1.0) -> None:
        self.delay = first
        self.cap = cap

    async def wait(self) -> None:
        """Sleep for the current pause, then lengthen the next one."""
        await asyncio.sleep(self.delay)
        self.delay = min(self.delay * 2, self.cap)
