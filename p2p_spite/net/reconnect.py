"""Reconnecting, the shell's part: the settings' defaults, the dial and its back-off.
(How long a lost peer is waited for, the heartbeat's verdict and which refusals end
redialing are the seat machine's: :mod:`p2p_spite.core.liveness`; the session owns
the timer, the redial task and the heartbeat task.)"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.game import GameCore
    from .link import Link

DEFAULT_GRACE = 60.0  # seconds to wait for a lost peer to come back
HEARTBEAT = 2.0  # seconds between pings
DEAD_AFTER = 10.0  # seconds of silence after which the connection is taken as dead

Dial = Callable[["GameCore | None"], Awaitable["Link"]]


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


__all__ = ["DEAD_AFTER", "DEFAULT_GRACE", "HEARTBEAT", "Backoff", "Dial"]
