"""LAN discovery: a hosting peer announces itself; ``hosts`` and ``join`` listen.

An announcement is one small UDP datagram, sent about once a second while the
host waits for its peer (and, when it lets watchers in, through its match:
``playing``, so that ``watch`` finds it and ``join`` passes it by).  It says the
host's name, its TCP port, whether a join code is needed, whether the match has
a private deck and whether it is under way; never the code, nor anything
derived from it.

The codec and the table of hosts heard are sans-I/O (bytes in, values out, hard
size limits); :class:`Announcer` and :func:`listen` are the thin asyncio shell.

Where announcements go (IPv4 broadcast to the discovery port, default 4748):

* a host listening on every address: the limited broadcast 255.255.255.255
  (the local network of the default route);
* a host bound to one IPv4 address: the limited broadcast sent from that
  address, which the system puts out on that address's interface only; for a
  loopback address, 127.255.255.255, so it never leaves the machine;
* a host bound to an IPv6 address: no announcement (give its address instead).

Whatever arrives on the discovery port is hostile until decoded: a datagram
that is too long, malformed, of another version or with an unprintable name is
dropped; the table keeps at most :data:`MAX_HOSTS` hosts, at most
:data:`PER_SENDER` of them from one address (a crowd of fake hosts from one
machine cannot fill it), never pushes out a host it has heard for a newer one,
and forgets each host when it has not been heard for :data:`FORGET_AFTER`
seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import socket
import struct
from dataclasses import dataclass
from typing import Any, Final

from ..contracts.plaintext import MAX_NAME, printable

MAGIC: Final = b"p2pspite"
VERSION: Final = 1
DEFAULT_DISCOVERY_PORT: Final = 4748
PORT_ENV: Final = "P2P_SPITE_DISCOVERY_PORT"
MAX_NAME_BYTES: Final = 3 * MAX_NAME  # characters of up to 3 bytes each
MAX_DATAGRAM: Final = len(MAGIC) + 5 + MAX_NAME_BYTES
MAX_HOSTS: Final = 32
PER_SENDER: Final = 4  # hosts from one address (a machine may host a few matches)
FORGET_AFTER: Final = 5.0  # seconds
INTERVAL: Final = 1.0  # seconds between announcements
_HEAD = struct.Struct("!BBHB")  # version, flags, port, name length
_CODE_NEEDED = 0x01
_PRIVATE = 0x02  # (a flag older listeners ignore: they read only the bits they know)
_PLAYING = 0x04  # the match is under way: its seats are taken, watchers are welcome


class DiscoveryError(ValueError):
    """A datagram that is not an announcement we accept."""


@dataclass(frozen=True, slots=True)
class Announcement:
    name: str
    port: int
    code_needed: bool
    private: bool = False  # the host offers a private deck (``host --private``)
    playing: bool = False  # the match is under way (only ``watch`` is welcome)


def _check_name(name: str) -> str:
    if not name.isprintable() or name != name.strip():
        raise DiscoveryError("the name has unprintable characters or blank ends")
    return name


def encode(ann: Announcement) -> bytes:
    """The datagram for ``ann``; a name too long is cut (at a character)."""
    name = " ".join(printable(ann.name).split())
    raw = name.encode("utf-8")
    while len(raw) > MAX_NAME_BYTES:
        name = name[:-1]
        raw = name.encode("utf-8")
    if not 0 < ann.port < 65536:
        raise ValueError(f"bad port {ann.port}")
    flags = (_CODE_NEEDED if ann.code_needed else 0) | (_PRIVATE if ann.private else 0)
    flags |= _PLAYING if ann.playing else 0
    return MAGIC + _HEAD.pack(VERSION, flags, ann.port, len(raw)) + raw


def decode(data: bytes) -> Announcement:
    """An announcement from a datagram; DiscoveryError for anything else."""
    if len(data) > MAX_DATAGRAM:
        raise DiscoveryError(f"too long ({len(data)} bytes)")
    if len(data) < len(MAGIC) + _HEAD.size or not data.startswith(MAGIC):
        raise DiscoveryError("not an announcement")
    version, flags, port, n = _HEAD.unpack_from(data, len(MAGIC))
    if version != VERSION:
        raise DiscoveryError(f"announcement version {version}")
    if port == 0:
        raise DiscoveryError("port 0")
    body = data[len(MAGIC) + _HEAD.size :]
    if len(body) != n or n > MAX_NAME_BYTES:
        raise DiscoveryError("the name's length does not match")
    try:
        name = body.decode("utf-8")
    except UnicodeDecodeError:
        raise DiscoveryError("the name is not UTF-8") from None
    # flags we do not know are ignored: a newer host's extra news is not a malformed datagram
    return Announcement(
        _check_name(name), port, bool(flags & _CODE_NEEDED), bool(flags & _PRIVATE), bool(flags & _PLAYING)
    )


@dataclass(frozen=True, slots=True)
class HeardHost:
    address: str  # where the datagram came from: the address to dial
    port: int
    name: str
    code_needed: bool
    last_heard: float
    private: bool = False  # it offers a private deck (as it says: anyone can announce anything)
    playing: bool = False  # its match is under way (a watcher may come, not a joiner)


class HostTable:
    """The hosts heard lately, at most ``limit``; sans-I/O (the caller gives the time)."""

    def __init__(
        self, limit: int = MAX_HOSTS, forget_after: float = FORGET_AFTER, per_sender: int = PER_SENDER
    ) -> None:
        self.limit = limit
        self.forget_after = forget_after
        self.per_sender = per_sender
        self._hosts: dict[tuple[str, int], HeardHost] = {}
        self.dropped = 0  # datagrams refused (malformed, the sender's share or the table full)

    def datagram(self, data: bytes, source: str, now: float) -> HeardHost | None:
        """Take one datagram from ``source``; the host it announces, or None if it was dropped."""
        try:
            ann = decode(data)
        except DiscoveryError:
            self.dropped += 1
            return None
        key = (source, ann.port)
        if key not in self._hosts:
            if len(self._hosts) >= self.limit:
                self._expire(now)
            share = sum(1 for address, _port in self._hosts if address == source)
            if share >= self.per_sender:
                self._expire(now)
                share = sum(1 for address, _port in self._hosts if address == source)
            # a flood of fresh hosts (from one sender, or from many): the newest waits
            if share >= self.per_sender or len(self._hosts) >= self.limit:
                self.dropped += 1
                return None
        host = HeardHost(source, ann.port, ann.name, ann.code_needed, now, ann.private, ann.playing)
        self._hosts[key] = host
        return host

    def _expire(self, now: float) -> None:
        for key in [k for k, h in self._hosts.items() if now - h.last_heard > self.forget_after]:
            del self._hosts[key]

    def hosts(self, now: float) -> list[HeardHost]:
        """The hosts heard in the last ``forget_after`` seconds, by name then address."""
        self._expire(now)
        return sorted(self._hosts.values(), key=lambda h: (h.name.lower(), h.address, h.port))


def discovery_port() -> int:
    """The discovery port: ``P2P_SPITE_DISCOVERY_PORT`` if set, else 4748."""
    text = os.environ.get(PORT_ENV, "")
    if text.isdigit() and 0 < int(text) < 65536:
        return int(text)
    return DEFAULT_DISCOVERY_PORT


def announce_target(bind: str) -> tuple[str, str] | None:
    """(source address, destination) of a host's announcements when it listens on
    ``bind``; None when it does not announce (an IPv6 or unusable address)."""
    b = bind.strip("[]")
    if b in ("", "0.0.0.0", "::"):
        return ("0.0.0.0", "255.255.255.255")
    try:
        ip = ipaddress.ip_address(b)
    except ValueError:
        return None  # a host name: resolved by the listener; not worth guessing here
    if ip.version != 4:
        return None
    if ip.is_loopback:
        return (b, "127.255.255.255")  # stays on this machine
    return (b, "255.255.255.255")  # out of the interface that holds ``b`` only


# -- the asyncio shell ---------------------------------------------------------


class Announcer:
    """Sends ``ann`` every :data:`INTERVAL` seconds until stopped."""

    def __init__(self, ann: Announcement, source: str, destination: str, port: int) -> None:
        self.datagram = encode(ann)
        self.source = source
        self.destination = (destination, port)
        self._task: asyncio.Task[None] | None = None
        self._sock: socket.socket | None = None

    def say(self, ann: Announcement) -> None:
        """Announce ``ann`` from now on (the match began: ``playing``)."""
        self.datagram = encode(ann)

    def start(self) -> None:
        """Start announcing; raises OSError if the socket cannot be made."""
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
            s.bind((self.source, 0))
            s.setblocking(False)
        except OSError:
            s.close()
            raise
        self._sock = s
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        assert self._sock is not None
        while True:
            with contextlib.suppress(OSError):  # no network now: try again next time
                self._sock.sendto(self.datagram, self.destination)
            await asyncio.sleep(INTERVAL)

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None


class _Listener(asyncio.DatagramProtocol):
    def __init__(self, table: HostTable, loop: asyncio.AbstractEventLoop) -> None:
        self.table = table
        self.loop = loop

    def datagram_received(self, data: bytes, addr: tuple[str | Any, int]) -> None:
        self.table.datagram(data, str(addr[0]), self.loop.time())

    def error_received(self, exc: Exception) -> None:
        pass  # an ICMP error for some earlier datagram: nothing to do


async def listen(seconds: float, port: int | None = None, table: HostTable | None = None) -> list[HeardHost]:
    """Listen on the discovery port for ``seconds``; the hosts heard.  Raises
    OSError if the port cannot be opened."""
    loop = asyncio.get_running_loop()
    table = table if table is not None else HostTable()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if hasattr(socket, "SO_REUSEPORT"):  # several listeners on one machine all hear a broadcast
            with contextlib.suppress(OSError):
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        s.bind(("", discovery_port() if port is None else port))
    except OSError:
        s.close()
        raise
    transport, _ = await loop.create_datagram_endpoint(lambda: _Listener(table, loop), sock=s)
    try:
        await asyncio.sleep(seconds)
    finally:
        transport.close()
    return table.hosts(loop.time())


__all__ = [
    "DEFAULT_DISCOVERY_PORT",
    "MAX_DATAGRAM",
    "MAX_HOSTS",
    "PER_SENDER",
    "Announcement",
    "Announcer",
    "DiscoveryError",
    "HeardHost",
    "HostTable",
    "announce_target",
    "decode",
    "discovery_port",
    "encode",
    "listen",
]
