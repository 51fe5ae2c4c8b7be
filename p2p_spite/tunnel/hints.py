"""Where the other player may be reached, and the race between those ways.

A side tells the other its hints through the mailbox (sealed, by the channel): the
addresses it listens on for a direct connection, every one of this machine's, IPv6
included, and the transit relay it will use.  The shape is magic-wormhole's transit
hints (magic-wormhole-protocols, transit.md), a list of objects that JSON and msgpack
both carry::

    {"type": "direct-tcp-v1", "hostname": "192.0.2.5", "port": 41000, "priority": 0.0}
    {"type": "relay-v1", "hints": [{"type": "direct-tcp-v1", "hostname": "relay.example",
                                    "port": 4001, "priority": 0.0}]}

:func:`hints_from_wire` reads the other side's (hostile input: bounded in number and
size; a type it does not know is skipped, as transit.md asks).  :func:`race_connect`
dials every direct hint at once; each connection runs the given handshake (the sealed
channel's), and the first to complete wins, the others are closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import msgpack

from ..net.localaddr import lan_addresses
from .failures import NoPath

DIRECT: Final = "direct-tcp-v1"
RELAY: Final = "relay-v1"
MAX_HINTS: Final = 32  # hints of each kind we take from the other side
MAX_WIRE: Final = 8192  # bytes of encoded hints we decode
_HOSTNAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?")


class HintError(ValueError):
    """The other side's hints are malformed (or over the limits)."""


@dataclass(frozen=True, slots=True)
class DirectHint:
    """A TCP address the other side listens on (an IP address or a host name)."""

    host: str
    port: int
    priority: float = 0.0

    @property
    def where(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


@dataclass(frozen=True, slots=True)
class RelayHint:
    """A transit relay the other side will use."""

    host: str
    port: int


Hint = DirectHint | RelayHint


def direct_hints(port: int, bind: str = "") -> list[DirectHint]:
    """This machine's addresses (IPv4, then IPv6) for a listener on ``port``."""
    return [DirectHint(a, port) for a in lan_addresses(bind)]


def _direct(host: str, port: int, priority: float = 0.0) -> dict[str, Any]:
    return {"type": DIRECT, "hostname": host, "port": port, "priority": priority}


def hints_to_wire(hints: Sequence[Hint]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for h in hints:
        if isinstance(h, DirectHint):
            out.append(_direct(h.host, h.port, h.priority))
        else:
            out.append({"type": RELAY, "hints": [_direct(h.host, h.port)]})
    return out


def _read_direct(d: Any) -> DirectHint:
    if not isinstance(d, dict):
        raise HintError("a hint that is not an object")
    host, port, priority = d.get("hostname"), d.get("port"), d.get("priority", 0.0)
    if (
        not isinstance(host, str)
        or not isinstance(port, int)
        or isinstance(port, bool)
        or not 0 < port < 65536
    ):
        raise HintError("a hint without a valid hostname and port")
    if not isinstance(priority, int | float) or isinstance(priority, bool) or not -1e6 < priority < 1e6:
        raise HintError("a hint with a bad priority")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if not _HOSTNAME.fullmatch(host):
            raise HintError("a hint whose hostname is neither an address nor a name") from None
    return DirectHint(host, port, float(priority))


def hints_from_wire(obj: Any) -> list[Hint]:
    """The other side's hints, checked; HintError for anything malformed."""
    if not isinstance(obj, list) or len(obj) > 4 * MAX_HINTS:
        raise HintError("hints that are not a list, or too many")
    out: list[Hint] = []
    for item in obj:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == DIRECT:
            out.append(_read_direct(item))
        elif kind == RELAY:
            inner = item.get("hints")
            if not isinstance(inner, list) or not inner or len(inner) > MAX_HINTS:
                raise HintError("a relay hint without its addresses")
            for d in inner:
                if isinstance(d, dict) and d.get("type") == DIRECT:
                    r = _read_direct(d)
                    out.append(RelayHint(r.host, r.port))
        elif not isinstance(kind, str):
            raise HintError("a hint without a type")
        # another type (tor-tcp-v1, a later version): skipped
    if (
        sum(isinstance(h, DirectHint) for h in out) > MAX_HINTS
        or sum(isinstance(h, RelayHint) for h in out) > MAX_HINTS
    ):
        raise HintError("too many hints")
    return list(dict.fromkeys(out))  # once each, in order


def hints_to_json(hints: Sequence[Hint]) -> bytes:
    return json.dumps(hints_to_wire(hints), separators=(",", ":")).encode()


def hints_from_json(data: bytes) -> list[Hint]:
    if len(data) > MAX_WIRE:
        raise HintError("hints over the size limit")
    try:
        return hints_from_wire(json.loads(data))
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        if isinstance(e, HintError):
            raise
        raise HintError("hints that are not JSON") from None


def hints_to_msgpack(hints: Sequence[Hint]) -> bytes:
    return bytes(msgpack.packb(hints_to_wire(hints), use_bin_type=True))


def hints_from_msgpack(data: bytes) -> list[Hint]:
    if len(data) > MAX_WIRE:
        raise HintError("hints over the size limit")
    try:
        obj = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, TypeError):
        raise HintError("hints that are not msgpack") from None
    return hints_from_wire(obj)


# -- the race -------------------------------------------------------------------------------

T = TypeVar("T")
Handshake = Callable[[asyncio.StreamReader, asyncio.StreamWriter, DirectHint], Awaitable[T]]


async def race_connect(
    hints: Sequence[DirectHint], timeout: float, handshake: Handshake[T]
) -> tuple[T, DirectHint, asyncio.StreamReader, asyncio.StreamWriter]:
    """Dial every hint at once and run ``handshake`` on each connection; the first to
    complete wins: its result, hint and streams.  The other connections are closed (also
    one whose handshake completes in the same instant).  NoPath when every attempt failed
    (at once: no waiting for the deadline) or none completed within ``timeout`` seconds.
    ``handshake`` raises to reject a connection (a wrong key, a stranger)."""
    if not hints:
        raise NoPath(seconds=timeout, detail="no address to try")

    async def attempt(h: DirectHint) -> tuple[T, DirectHint, asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = await asyncio.open_connection(h.host, h.port)
        try:
            return await handshake(reader, writer, h), h, reader, writer
        except BaseException:
            writer.close()
            raise

    def close(late: tuple[T, DirectHint, asyncio.StreamReader, asyncio.StreamWriter]) -> None:
        late[3].close()

    winner, failure = await first_of([attempt(h) for h in dict.fromkeys(hints)], timeout, close)
    if winner is None:
        raise NoPath(seconds=timeout, detail=described(failure))
    return winner


R = TypeVar("R")


async def first_of(
    attempts: Sequence[Awaitable[R]], timeout: float, discard: Callable[[Any], object]
) -> tuple[R | None, BaseException | None]:
    """Run ``attempts`` at once: the first to succeed within ``timeout`` seconds (None if
    none did) and the last failure; the others are cancelled, and one that succeeds in
    the same instant is given to ``discard`` (to close what it opened)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    pending = {asyncio.ensure_future(a) for a in attempts}
    winner: R | None = None
    failure: BaseException | None = None
    try:
        while pending and winner is None:
            left = deadline - loop.time()
            if left <= 0:
                break
            done, pending = await asyncio.wait(pending, timeout=left, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                if task.cancelled():
                    continue
                exc = task.exception()
                if exc is not None:
                    failure = exc
                elif winner is None:
                    winner = task.result()
                else:
                    discard(task.result())  # a second winner in the same instant
    finally:
        for task in pending:
            task.cancel()
        for task in pending:
            with contextlib.suppress(BaseException):
                await task
    return winner, failure


def described(failure: BaseException | None) -> str:
    """A failed attempt's words ("" for none)."""
    if failure is None:
        return ""
    return str(failure) or type(failure).__name__
