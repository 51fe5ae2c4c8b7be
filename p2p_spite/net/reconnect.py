"""Reconnecting: how long a lost peer is waited for, the heartbeat that notices a
silent one, the refusals after which redialing is pointless, and the pause between
two dials after a link is lost or refused."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from .wire import Refusal

if TYPE_CHECKING:
    from .game import GameCore
    from .link import Link

DEFAULT_GRACE = 60.0  # seconds to wait for a lost peer to come back
HEARTBEAT = 2.0  # seconds between pings
DEAD_AFTER = 10.0  # seconds of silence after which the connection is taken as dead
# refusals after which redialing is pointless
FATAL_REFUSALS = frozenset(
    {
        Refusal.HISTORY,
        Refusal.OTHER_MATCH,
        Refusal.BAD_CODE,
        Refusal.CODE_NEEDED,
        Refusal.NO_CODE,
        Refusal.VERSION,
        Refusal.DESYNC,
        Refusal.ILLEGAL_MOVE,
        Refusal.SEAT_TAKEN,
        Refusal.NO_MATCH,
        Refusal.NOT_P2P_SPITE,
        Refusal.FLOOD,
        Refusal.BAD_PROOF,
        Refusal.STORAGE,
        Refusal.POSITION,
        Refusal.FORGED,
        Refusal.SEQUENCE,
    }
)

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
