"""A client of magic-wormhole's transit relay: two TCP connections glued together.

Each side connects to the relay and sends one line, ``please relay TOKEN for side
SIDE\\n`` (TOKEN: 32 bytes as 64 lowercase hex digits, the same on both sides; SIDE:
8 bytes as 16, different on each); the relay answers ``ok\\n`` once both are there,
then forwards every byte from one to the other.  It answers ``bad handshake\\n`` to a
malformed line, ``impatient\\n`` to bytes sent before the ``ok``, and drops a side
whose partner does not come.  docs/protocol.md, "Rendezvous and relay".

The token is given (the caller derives it from the agreed key); the relay sees it and
the bytes passed, never a key.  Each step has a deadline: the TCP connection
(RelayUnreachable), then the partner's arrival (RelayLonely); any answer but ``ok``
is RelayRefused.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass
from typing import Final

from .failures import RelayLonely, RelayRefused, RelayUnreachable

DEFAULT_PORT: Final = 4001
TOKEN_BYTES: Final = 32
SIDE_BYTES: Final = 8
OK: Final = b"ok\n"
MAX_ANSWER: Final = 64  # bytes of the relay's answer line we read


def new_side() -> bytes:
    """A random relay side (8 bytes)."""
    return os.urandom(SIDE_BYTES)


def handshake(token: bytes, side: bytes) -> bytes:
    """The line that asks the relay to pair this connection."""
    if len(token) != TOKEN_BYTES or len(side) != SIDE_BYTES:
        raise ValueError("a relay token is 32 bytes and a side 8")
    return b"please relay " + token.hex().encode() + b" for side " + side.hex().encode() + b"\n"


def refusal(answer: bytes, where: str) -> RelayRefused:
    """The relay's answer that is not ``ok``, as an error with its words."""
    words = answer.decode("ascii", "replace").strip() or "closed the connection"
    return RelayRefused(where, detail=words[:MAX_ANSWER])


def parse_address(text: str) -> tuple[str, int]:
    """``relay.example:4001``, ``[2001:db8::1]:4001``, or a host alone (port 4001)."""
    t = text.strip()
    if t.startswith("["):
        host, sep, rest = t[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            raise ValueError(f"not a relay address: {text!r}")
        port_text = rest[1:]
    elif t.count(":") == 1:
        host, port_text = t.split(":")
    else:
        host, port_text = t, ""  # a name, or an IPv6 address without a port
    if not host or (port_text and not port_text.isdigit()):
        raise ValueError(f"not a relay address: {text!r}")
    port = int(port_text) if port_text else DEFAULT_PORT
    if not 0 < port < 65536:
        raise ValueError(f"not a relay address: {text!r}")
    return host, port


def where_of(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


@dataclass(slots=True)
class RelayedConnection:
    """A connection the relay paired with the other side's: bytes go straight through."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    where: str


async def relay_connect(
    host: str, port: int, token: bytes, side: bytes, *, connect_timeout: float, wait_timeout: float
) -> RelayedConnection:
    """Connect to the relay at ``host``:``port`` within ``connect_timeout`` seconds, ask
    for ``token`` as ``side``, and wait up to ``wait_timeout`` for the other side."""
    line = handshake(token, side)
    where = where_of(host, port)
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), connect_timeout)
    except TimeoutError:
        raise RelayUnreachable(where, detail=f"no answer in {connect_timeout:g} s") from None
    except OSError as e:
        raise RelayUnreachable(where, detail=e.strerror or str(e) or type(e).__name__) from None
    try:
        writer.write(line)
        await asyncio.wait_for(writer.drain(), connect_timeout)
        answer = await asyncio.wait_for(reader.readuntil(b"\n"), wait_timeout)
        if answer != OK:
            writer.close()
            raise refusal(answer, where)
    except TimeoutError:
        writer.close()
        raise RelayLonely(where, seconds=wait_timeout) from None
    except asyncio.IncompleteReadError as e:
        writer.close()
        raise refusal(e.partial, where) from None
    except asyncio.LimitOverrunError:
        writer.close()
        raise RelayRefused(where, detail="an answer that is not a line") from None
    except OSError as e:
        writer.close()
        raise RelayRefused(where, detail=e.strerror or str(e) or type(e).__name__) from None
    except BaseException:
        with contextlib.suppress(Exception):
            writer.close()
        raise
    return RelayedConnection(reader, writer, where)
