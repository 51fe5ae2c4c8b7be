"""A raw peer of the LAN opening (net/opening.py) for hostile tests: it runs the opening
with whatever code it is given, step by step, then speaks frames of the game protocol
inside the sealed channel."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from p2p_spite.core.keys import derive_code_key
from p2p_spite.core.wire import FrameDecoder, encode
from p2p_spite.net.opening import Opening, WrongCode, lan_scalar
from p2p_spite.tunnel.channel import SealedChannel
from p2p_spite.tunnel.paths import open_channel
from p2p_spite.tunnel.spake2 import Role

LIMIT = 60.0


@functools.cache
def scalar(code: str) -> int:
    """SPAKE2's ``w`` for ``code`` (once per code: scrypt is slow on purpose)."""
    return lan_scalar(derive_code_key(code))


class Guesser:
    """A joiner's (or a watcher's) connection that opens with ``code``: :meth:`start` sends
    its element and, once the host's is in, its confirmation; :meth:`answer` waits for the
    host's answer (``"bad-code"`` for a wrong code, else the sealed channel opens)."""

    def __init__(self, r: asyncio.StreamReader, w: asyncio.StreamWriter, code: str) -> None:
        self.r, self.w = r, w
        self.op = Opening(Role.B, scalar(code))
        self.ch: SealedChannel | None = None
        self._dec = FrameDecoder()

    async def start(self, *, confirm: bool = True) -> None:
        """Our element, the host's; then our confirmation (unless not ``confirm``: stuck at it)."""
        self.w.write(self.op.data_to_send())
        while not self.op.element_in:
            data = await asyncio.wait_for(self.r.read(74), LIMIT)
            assert data, "the host closed during the opening"
            self.op.receive_data(data)
        if confirm:
            self.w.write(self.op.data_to_send())

    async def answer(self, wait: float = LIMIT) -> str | None:
        """``"bad-code"``, None once the channel is open, ``"none"`` if nothing came."""
        try:
            while self.op.key is None:
                data = await asyncio.wait_for(self.r.read(33), wait)
                if not data:
                    return "closed"
                self.op.receive_data(data)
        except WrongCode:
            return "bad-code"
        except TimeoutError:
            return "none"
        self.ch, got = await open_channel(
            self.r, self.w, self.op.key, Role.B, LIMIT, seen=self.op.rest, go=False
        )
        for m in got:
            self._dec.feed(m)
        return None

    def send(self, *msgs: dict[str, Any]) -> None:
        assert self.ch is not None
        for m in msgs:
            self.ch.send(encode(m))
        self.w.write(self.ch.data_to_send())

    async def frames(self, n: int, wait: float = LIMIT) -> list[dict[str, Any]]:
        """The next ``n`` messages inside the channel (fewer if it ends or ``wait`` passes)."""
        assert self.ch is not None
        got: list[dict[str, Any]] = []
        loop = asyncio.get_running_loop()
        until = loop.time() + wait
        while len(got) < n:
            m = self._dec.next_message()
            if m is not None:
                got.append(m)
                continue
            if self.ch.peer_closed:
                break
            try:
                data = await asyncio.wait_for(self.r.read(65536), max(0.0, until - loop.time()))
            except (TimeoutError, OSError):
                break
            if not data:
                break
            for piece in self.ch.receive_data(data):
                self._dec.feed(piece)
        return got

    def close(self) -> None:
        self.w.close()


async def guess(
    port: int, code: str, *, host: str = "127.0.0.1", source: str | None = None, confirm: bool = True
) -> Guesser:
    """A connection from ``source`` that has sent its confirmation of ``code`` (not
    ``confirm``: that stops before it)."""
    local = (source, 0) if source is not None else None
    r, w = await asyncio.wait_for(asyncio.open_connection(host, port, local_addr=local), LIMIT)
    g = Guesser(r, w, code)
    await g.start(confirm=confirm)
    return g
