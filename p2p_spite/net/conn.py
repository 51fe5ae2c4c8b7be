"""The byte level every connection of ours shares, the players' (:mod:`.link`) and the
watchers' (:mod:`.watch`): sending at once, a bound on what a peer may leave unread,
and the deadline on a silent peer.  The frames themselves are :mod:`p2p_spite.core.wire`'s
(``encode``, ``FrameDecoder``), the same for both.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable


def no_delay(transport: asyncio.BaseTransport) -> None:
    """Send each small message at once (TCP_NODELAY: no Nagle wait for a move)."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def small_send_buffer(transport: asyncio.BaseTransport, size: int) -> None:
    """Make the kernel's send buffer of ``transport``'s socket ``size`` bytes, so that a
    peer that stops reading is seen soon (a loopback socket's would otherwise grow to
    megabytes before our own bound is reached)."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)


def send_bounded(transport: asyncio.WriteTransport | None, out: bytes, limit: int) -> bool:
    """Write ``out`` to ``transport`` (nothing when there is nothing to write, or the
    connection is closing); False, and nothing written, when the peer would then have
    more than ``limit`` bytes unread: the caller drops the connection (the players
    and the host never wait for a peer that does not read)."""
    if not out or transport is None or transport.is_closing():
        return True
    if transport.get_write_buffer_size() + len(out) > limit:
        return False
    transport.write(out)
    return True


class Silence:
    """A deadline on a silent peer: ``on_silent`` is called once ``seconds`` pass with no
    :meth:`heard` (each sign of life starts the wait again); :meth:`stop` ends it."""

    def __init__(self, seconds: float, on_silent: Callable[[], None]) -> None:
        self.seconds = seconds
        self._on_silent = on_silent
        self._timer: asyncio.TimerHandle | None = None
        self.heard()

    def heard(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(self.seconds, self._on_silent)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class Beat:
    """``fn`` every ``seconds`` (a ping) until :meth:`stop`."""

    def __init__(self, seconds: float, fn: Callable[[], None]) -> None:
        self.seconds = seconds
        self._fn = fn
        self._stopped = False
        self._timer: asyncio.TimerHandle | None = None
        self._next()

    def _next(self) -> None:
        self._timer = asyncio.get_running_loop().call_later(self.seconds, self._tick)

    def _tick(self) -> None:
        self._fn()
        if not self._stopped:
            self._next()

    def stop(self) -> None:
        self._stopped = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


__all__ = ["Beat", "Silence", "no_delay", "send_bounded", "small_send_buffer"]
