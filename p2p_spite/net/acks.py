"""How many of a match's actions the peer has acknowledged, and waiting for more."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class Acks:
    """The peer holds the first :attr:`count` actions (it acknowledged them, or made
    one after them).  :attr:`back` is set whenever a link is attached (a wait
    through reconnections waits for it)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.back = asyncio.Event()
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []

    def got(self, n: int) -> None:
        """The peer holds the first ``n`` actions (a lower ``n`` changes nothing)."""
        self.count = max(self.count, n)
        keep = []
        for want, fut in self._waiters:
            if self.count >= want:
                if not fut.done():
                    fut.set_result(None)
            else:
                keep.append((want, fut))
        self._waiters = keep

    def lost(self) -> None:
        """The link is lost: every wait hears of it."""
        for _, fut in self._waiters:
            if not fut.done():
                fut.set_exception(ConnectionError("connection lost"))
                fut.exception()
        self._waiters = []

    async def wait(
        self,
        n: int,
        timeout: float | None,
        *,
        through_reconnects: bool,
        stopped: Callable[[], bool],
        linked: Callable[[], bool],
    ) -> bool:
        """Wait until the peer holds the first ``n`` actions (False on timeout, when
        ``stopped()``, or on a lost connection unless ``through_reconnects``: then the
        wait goes on once a link is back, ``linked()`` telling whether one is)."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while self.count < n:
            if stopped():
                return False
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return False
            fut: asyncio.Future[None] = loop.create_future()
            self._waiters.append((n, fut))
            try:
                if left is None:
                    await fut
                else:
                    await asyncio.wait_for(fut, left)
            except TimeoutError:
                return False
            except ConnectionError:
                if not through_reconnects:
                    return False
                if not linked():
                    self.back.clear()
                    left = None if deadline is None else deadline - loop.time()
                    try:
                        await asyncio.wait_for(self.back.wait(), left)
                    except TimeoutError:
                        return False
        return True


__all__ = ["Acks"]
