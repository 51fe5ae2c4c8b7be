"""A client of magic-wormhole's mailbox server: the rendezvous behind a code.

The protocol is magic-wormhole-protocols' server-protocol.md (docs/protocol.md,
"Rendezvous and relay", byte for byte): JSON objects, one per WebSocket message.  The
server says ``welcome``; the client says ``bind`` (app id ``p2p-spite`` and its random
``side``), then the host ``allocate``\\ s a nameplate (the number of the code) and
``claim``\\ s it, the joiner ``claim``\\ s the one it was told; each ``open``\\ s the
mailbox the claim named, ``add``\\ s messages (a ``phase`` and a hex ``body``) and gets
the other's as ``message``; the nameplate is ``release``\\ d once the other side is
heard from, and the mailbox ``close``\\ d at the end.  The server acknowledges every
command with ``ack``.

:class:`MailboxCore` is the sans-I/O part: it makes each command's JSON text and reads
the server's, into events (hostile input is a :class:`MailboxProtocolError`).
:class:`Mailbox` is the asyncio shell over :mod:`.websocket`; each wait has a deadline
and each failure is one of :mod:`.failures`.  :func:`host` and :func:`join` are the two
ways in, with a code (:func:`make_code`, :func:`parse_code`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from .. import __version__
from .failures import (
    CodeTaken,
    MailboxClosed,
    MailboxRefused,
    MailboxSilent,
    MailboxUnreachable,
    NoSuchCode,
    NotACode,
    PeerVanished,
)
from .websocket import (
    Pong,
    TextMessage,
    Url,
    WebSocket,
    WebSocketClosed,
    WebSocketError,
    WebSocketProtocolError,
    WebSocketTimeout,
    WebSocketUnreachable,
    connect,
    parse_url,
)
from .wordlist import EVEN, EVEN_INDEX, ODD, ODD_INDEX

APPID: Final = "p2p-spite"
MAX_MESSAGE: Final = 64 * 1024  # one server message (JSON): the WebSocket's limit
MAX_BODY: Final = 16 * 1024  # one peer message's body, in bytes (hex on the wire: twice)
MAX_PHASE: Final = 64  # characters of a phase name
MAX_PHASES: Final = 32  # phases the other side may send (each is kept until asked for)
MAX_NAMEPLATE: Final = 8  # digits of a nameplate we accept in a code

# -- codes ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Code:
    """A code: the nameplate (decimal digits) and two words (odd list, then even)."""

    nameplate: str
    words: tuple[str, str]

    def __str__(self) -> str:
        return "-".join((self.nameplate, *self.words))


def new_words(rand: Callable[[int], bytes] = os.urandom) -> tuple[str, str]:
    """Two random words (16 bits): one of :data:`ODD`, one of :data:`EVEN`."""
    b = rand(2)
    return ODD[b[0]], EVEN[b[1]]


_CODE = re.compile(rf"(\d{{1,{MAX_NAMEPLATE}}})-([a-z]+)-([a-z]+)")


def parse_code(text: str) -> Code:
    """The code a person typed (spaces around and capitals are forgiven; a space between
    the parts stands for a hyphen), or NotACode."""
    plain = "-".join(text.strip().lower().split())
    m = _CODE.fullmatch(plain)
    if not m or m.group(2) not in ODD_INDEX or m.group(3) not in EVEN_INDEX:
        raise NotACode(detail=text)
    return Code(str(int(m.group(1))), (m.group(2), m.group(3)))


# -- the sans-I/O core ----------------------------------------------------------------------


class MailboxProtocolError(ValueError):
    """The server sent something the protocol does not allow (or over our limits)."""


@dataclass(frozen=True, slots=True)
class Welcome:
    motd: str
    error: str  # the server refuses everyone: its words
    permissions: tuple[str, ...] | None  # ``permission-required`` methods; None: not asked


@dataclass(frozen=True, slots=True)
class Ack:
    id: str


@dataclass(frozen=True, slots=True)
class Allocated:
    nameplate: str


@dataclass(frozen=True, slots=True)
class Claimed:
    mailbox: str


@dataclass(frozen=True, slots=True)
class Nameplates:
    ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Released:
    pass


@dataclass(frozen=True, slots=True)
class ClosedMailbox:
    pass


@dataclass(frozen=True, slots=True)
class PeerMessage:
    """A message of the other side (ours, echoed, are not events)."""

    phase: str
    body: bytes


@dataclass(frozen=True, slots=True)
class ServerError:
    """The server refused a command: its words, and the command's type."""

    error: str
    command: str


@dataclass(frozen=True, slots=True)
class ServerPong:
    pong: int


MailboxEvent = (
    Welcome
    | Ack
    | Allocated
    | Claimed
    | Nameplates
    | Released
    | ClosedMailbox
    | PeerMessage
    | ServerError
    | ServerPong
)


def _str(msg: dict[str, Any], key: str, limit: int = 1000) -> str:
    value = msg.get(key)
    if not isinstance(value, str) or len(value) > limit:
        raise MailboxProtocolError(f"'{msg.get('type')}' without a valid '{key}'")
    return value


class MailboxCore:
    """One side's talk with the mailbox server, without I/O.

    The command methods return the JSON text to send (each with a fresh random ``id``);
    :meth:`receive` reads one server message into an event, or None for one that needs
    no action (our own messages echoed, a repeat of the other side's).
    """

    def __init__(
        self, appid: str = APPID, side: str | None = None, new_id: Callable[[], str] | None = None
    ) -> None:
        self.appid = appid
        self.side = side or os.urandom(5).hex()
        self._new_id = new_id or (lambda: os.urandom(2).hex())
        self.peer_side: str | None = None
        self._seen: dict[str, bytes] = {}  # the other side's messages, by phase

    def _command(self, kind: str, **fields: Any) -> str:
        return json.dumps({"type": kind, **fields, "id": self._new_id()}, separators=(",", ":"))

    def bind(self) -> str:
        return self._command(
            "bind", appid=self.appid, side=self.side, client_version=["p2p-spite", __version__]
        )

    def list_nameplates(self) -> str:
        return self._command("list")

    def allocate(self) -> str:
        return self._command("allocate")

    def claim(self, nameplate: str) -> str:
        return self._command("claim", nameplate=nameplate)

    def release(self, nameplate: str) -> str:
        return self._command("release", nameplate=nameplate)

    def open(self, mailbox: str) -> str:
        return self._command("open", mailbox=mailbox)

    def add(self, phase: str, body: bytes) -> str:
        if len(body) > MAX_BODY or not 0 < len(phase) <= MAX_PHASE:
            raise ValueError("a mailbox message over the size limit")
        return self._command("add", phase=phase, body=body.hex())

    def close(self, mailbox: str, mood: str) -> str:
        return self._command("close", mailbox=mailbox, mood=mood)

    def ping(self, n: int) -> str:
        return self._command("ping", ping=n)

    def receive(self, data: str | bytes) -> MailboxEvent | None:
        try:
            msg = json.loads(data)
        except (ValueError, UnicodeDecodeError):
            raise MailboxProtocolError("a server message that is not JSON") from None
        if not isinstance(msg, dict):
            raise MailboxProtocolError("a server message that is not a JSON object")
        match msg.get("type"):
            case "welcome":
                return self._welcome(msg)
            case "ack":
                return Ack(str(msg.get("id", ""))[:16])
            case "allocated":
                return Allocated(_nameplate(_str(msg, "nameplate", 40)))
            case "claimed":
                return Claimed(_str(msg, "mailbox", 200))
            case "nameplates":
                plates = msg.get("nameplates")
                if not isinstance(plates, list) or len(plates) > 100_000:
                    raise MailboxProtocolError("'nameplates' without a list")
                return Nameplates(tuple(_str(p, "id", 40) for p in plates if isinstance(p, dict)))
            case "released":
                return Released()
            case "closed":
                return ClosedMailbox()
            case "message":
                return self._message(msg)
            case "error":
                orig = msg.get("orig")
                command = orig.get("type") if isinstance(orig, dict) else None
                return ServerError(_str(msg, "error"), command if isinstance(command, str) else "")
            case "pong":
                pong = msg.get("pong")
                if not isinstance(pong, int):
                    raise MailboxProtocolError("'pong' without a number")
                return ServerPong(pong)
        return None  # a type this client does not know: ignored, as the protocol asks

    def _welcome(self, msg: dict[str, Any]) -> Welcome:
        w = msg.get("welcome")
        if not isinstance(w, dict):
            raise MailboxProtocolError("'welcome' without its dictionary")
        motd, error = w.get("motd", ""), w.get("error", "")
        perms = w.get("permission-required")
        methods = tuple(str(k) for k in perms) if isinstance(perms, dict) else None
        return Welcome(
            motd[:1000] if isinstance(motd, str) else "",
            error[:1000] if isinstance(error, str) else "",
            methods,
        )

    def _message(self, msg: dict[str, Any]) -> PeerMessage | None:
        side, phase, body = (
            _str(msg, "side", 64),
            _str(msg, "phase", MAX_PHASE),
            _str(msg, "body", 2 * MAX_BODY),
        )
        try:
            data = bytes.fromhex(body)
        except ValueError:
            raise MailboxProtocolError("a message body that is not hex") from None
        if side == self.side:
            return None  # our own, echoed to every open side
        if self.peer_side is None:
            self.peer_side = side
        elif side != self.peer_side:
            raise MailboxProtocolError("a third side wrote to the mailbox")
        if phase in self._seen:  # the server may repeat a message; it must not change one
            if self._seen[phase] != data:
                raise MailboxProtocolError(f"the other side sent phase {phase!r} twice, differently")
            return None
        if len(self._seen) >= MAX_PHASES:
            raise MailboxProtocolError("the other side sent too many messages")
        self._seen[phase] = data
        return PeerMessage(phase, data)


def _nameplate(text: str) -> str:
    if not text.isdigit() or not text.isascii():
        raise MailboxProtocolError("a nameplate that is not a number")
    return text


# -- the asyncio shell ----------------------------------------------------------------------

E = TypeVar("E")


class Mailbox:
    """One side's open connection to the mailbox server (from :meth:`connect`).

    Every wait takes ``timeout`` seconds; the failures are :mod:`.failures`' errors:
    MailboxSilent (no answer), MailboxClosed (the connection ended), MailboxRefused (the
    server refused a command or broke the protocol), PeerVanished (no message from the
    other side in time).  The other side's messages that arrive during another wait are
    kept for :meth:`get`.  Once the first one arrives the nameplate is released (the
    code then names nothing: nobody else can claim it, and the server may reuse it).
    """

    def __init__(self, ws: WebSocket, core: MailboxCore, url: Url) -> None:
        self.ws = ws
        self.core = core
        self.where = url.where
        self.motd = ""
        self.nameplate: str | None = None
        self.mailbox: str | None = None
        self._inbox: dict[str, bytes] = {}
        self._released = False

    @classmethod
    async def connect(
        cls, url: str, timeout: float, *, appid: str = APPID, side: str | None = None
    ) -> Mailbox:
        """Connect to the mailbox server at ``url`` (ws:// or wss://), read its welcome
        and bind to ``appid``."""
        try:
            u = parse_url(url)
        except ValueError as e:
            raise MailboxUnreachable(url, detail=str(e)) from None
        try:
            ws = await connect(u, timeout, max_message=MAX_MESSAGE)
        except WebSocketUnreachable as e:
            raise MailboxUnreachable(u.where, detail=e.why) from None
        except WebSocketTimeout:
            raise MailboxSilent(u.where, seconds=timeout) from None
        except WebSocketError as e:
            raise MailboxRefused(u.where, detail=str(e)) from None
        mb = cls(ws, MailboxCore(appid, side), u)
        try:
            welcome = await mb._wait(Welcome, timeout)
            mb.motd = welcome.motd
            if welcome.error:
                raise MailboxRefused(mb.where, detail=welcome.error)
            if welcome.permissions is not None and "none" not in welcome.permissions:
                raise MailboxRefused(mb.where, detail="it asks for a proof of work this client does not do")
            await mb._send(mb.core.bind(), timeout)
        except BaseException:
            mb.abort()
            raise
        return mb

    # -- the commands -----------------------------------------------------------------------

    async def allocate(self, timeout: float) -> str:
        """A fresh nameplate from the server (it is claimed for us)."""
        await self._send(self.core.allocate(), timeout)
        return (await self._wait(Allocated, timeout)).nameplate

    async def list_nameplates(self, timeout: float) -> tuple[str, ...]:
        """The nameplates in use under our app id (empty also when the server is run with
        ``--disallow-list``)."""
        await self._send(self.core.list_nameplates(), timeout)
        return (await self._wait(Nameplates, timeout)).ids

    async def claim(self, nameplate: str, timeout: float) -> str:
        """Claim ``nameplate``; its mailbox.  CodeTaken when two sides hold it already."""
        await self._send(self.core.claim(nameplate), timeout)
        self.nameplate = nameplate
        try:
            return (await self._wait(Claimed, timeout)).mailbox
        except MailboxRefused as e:
            if e.failure.detail == "crowded":
                raise CodeTaken(self.where, detail=nameplate) from None
            raise

    async def open(self, mailbox: str, timeout: float) -> None:
        """Open ``mailbox`` (no answer but the messages already in it)."""
        await self._send(self.core.open(mailbox), timeout)
        self.mailbox = mailbox

    async def add(self, phase: str, body: bytes, timeout: float) -> None:
        """Put a message in the mailbox; wait for the server's ack of it."""
        text = self.core.add(phase, body)
        await self._send(text, timeout)
        want = json.loads(text)["id"]
        while True:
            ack = await self._wait(Ack, timeout)
            if ack.id == want:
                return

    async def get(self, phase: str, timeout: float) -> bytes:
        """The other side's message of ``phase``; PeerVanished after ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while phase not in self._inbox:
            left = deadline - loop.time()
            if left <= 0:
                raise PeerVanished(self.where, seconds=timeout)
            try:
                await self._next(left)
            except MailboxSilent:
                raise PeerVanished(self.where, seconds=timeout) from None
        return self._inbox.pop(phase)

    async def release(self, timeout: float) -> None:
        """Release our nameplate (nothing if it is released already or there is none)."""
        if self._released or self.nameplate is None:
            return
        self._released = True
        await self._send(self.core.release(self.nameplate), timeout)
        await self._wait(Released, timeout)

    async def close(self, timeout: float, mood: str = "happy") -> None:
        """Close the mailbox (``mood``: happy, lonely, scary, errory) and the connection;
        a failure on the way is not raised (the work is done or lost either way)."""
        try:
            if self.mailbox is not None:
                await self._send(self.core.close(self.mailbox, mood), timeout)
                await self._wait(ClosedMailbox, timeout)
            await self.ws.close(timeout)
        except (MailboxClosed, MailboxSilent, MailboxRefused, PeerVanished):
            pass
        finally:
            self.abort()

    def abort(self) -> None:
        self.ws.abort()

    # -- the wire ---------------------------------------------------------------------------

    async def _send(self, text: str, timeout: float) -> None:
        try:
            await self.ws.send_text(text, timeout)
        except WebSocketTimeout:
            raise MailboxSilent(self.where, seconds=timeout) from None
        except WebSocketError:
            raise MailboxClosed(self.where) from None

    async def _next(self, timeout: float) -> MailboxEvent | None:
        """Read one server message (the other side's is kept, and releases the nameplate)."""
        try:
            msg = await self.ws.recv(timeout)
        except WebSocketTimeout:
            raise MailboxSilent(self.where, seconds=timeout) from None
        except WebSocketProtocolError as e:
            raise MailboxRefused(self.where, detail=str(e)) from None
        except (WebSocketClosed, WebSocketError):
            raise MailboxClosed(self.where) from None
        if isinstance(msg, Pong):
            return None
        try:
            event = self.core.receive(msg.text if isinstance(msg, TextMessage) else msg.data)
        except MailboxProtocolError as e:
            raise MailboxRefused(self.where, detail=str(e)) from None
        if isinstance(event, PeerMessage):
            self._inbox[event.phase] = event.body
            if not self._released and self.nameplate is not None:
                self._released = True
                with contextlib.suppress(MailboxSilent):
                    await self._send(self.core.release(self.nameplate), timeout)
        return event

    async def _wait(self, kind: type[E], timeout: float) -> E:
        """The next event of ``kind`` within ``timeout``; a server's error is MailboxRefused."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise MailboxSilent(self.where, seconds=timeout)
            event = await self._next(left)
            if isinstance(event, kind):
                return event
            if isinstance(event, ServerError):
                raise MailboxRefused(self.where, detail=event.error)


# -- the two ways in ------------------------------------------------------------------------


def make_code(nameplate: str, words: tuple[str, str]) -> str:
    return str(Code(nameplate, words))


async def host(
    url: str, timeout: float, *, appid: str = APPID, rand: Callable[[int], bytes] = os.urandom
) -> tuple[Mailbox, Code]:
    """Allocate a nameplate, claim it, open its mailbox: the open mailbox and the code to
    give the other player (the nameplate and two fresh random words)."""
    mb = await Mailbox.connect(url, timeout, appid=appid)
    try:
        nameplate = await mb.allocate(timeout)
        await mb.open(await mb.claim(nameplate, timeout), timeout)
    except BaseException:
        mb.abort()
        raise
    return mb, Code(nameplate, new_words(rand))


async def join(url: str, code: str | Code, timeout: float, *, appid: str = APPID) -> Mailbox:
    """Claim the code's nameplate and open its mailbox.  NotACode, NoSuchCode (nobody
    hosts under it), CodeTaken (two players hold it already).

    Whether the nameplate exists is asked with ``list`` first; a server that does not
    list (``--disallow-list``) answers an empty list even after our claim, and then a
    code naming nobody is known only when :meth:`Mailbox.get` runs out of time.
    """
    c = parse_code(code) if isinstance(code, str) else code
    mb = await Mailbox.connect(url, timeout, appid=appid)
    try:
        listed = await mb.list_nameplates(timeout)
        if listed and c.nameplate not in listed:
            raise NoSuchCode(mb.where, detail=str(c))
        mailbox = await mb.claim(c.nameplate, timeout)
        if not listed and await mb.list_nameplates(timeout):
            raise NoSuchCode(mb.where, detail=str(c))  # the server lists: ours was the only one
        await mb.open(mailbox, timeout)
    except NoSuchCode:
        with contextlib.suppress(MailboxClosed, MailboxSilent, MailboxRefused):
            await mb.release(timeout)  # the nameplate our claim made goes
        mb.abort()
        raise
    except BaseException:
        mb.abort()
        raise
    return mb
