"""Waiting until the peer holds a match's actions (the count is the seat machine's:
:attr:`~p2p_spite.core.machine.SeatMachine.held`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class Acks:
    """Who waits for the peer to hold how many actions.  :attr:`back` is set whenever
    a link is attached (a wait through reconnections waits for it)."""

    def __init__(self) -> None:
        self.back = asyncio.Event()
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []

    def wake(self, held: int) -> None:
        """The peer holds the first ``held`` actions: who waited for no more goes on."""
        keep = []
        for want, fut in self._waiters:
            if held >= want:
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
        held: Callable[[], int],
        through_reconnects: bool,
        stopped: Callable[[], bool],
        linked: Callable[[], bool],
    ) -> bool:
        """Wait until the peer holds the first ``n`` actions (``held()``: how many it holds
        now; False on timeout, when ``stopped()``, or on a lost connection unless
        ``through_reconnects``: then the wait goes on once a link is back, ``linked()``
        telling whether one is)."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while held() < n:
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
