"""The LAN opening: what a connection to a host with a join code says before anything
else (docs/protocol.md, "The opening of a LAN connection with a join code").

SPAKE2 (RFC 9382, :mod:`~p2p_spite.tunnel.spake2`) with the join code's key as the
password, its key confirmation, then the sealed channel (:mod:`~p2p_spite.tunnel.channel`)
under its key, the game protocol inside unchanged.  The roles are the internet path's:
A the host, B the joiner (or a watcher).  Every message has a fixed length:

1. B sends its *element* at once, 74 bytes: :data:`MAGIC` (8), the role (``A`` or
   ``B``), the SPAKE2 message (65, SEC 1 uncompressed); A answers with its own once
   B's is in (so that a joiner without the code, speaking in clear, is answered with
   the game protocol's refusal).  Checked on arrival: the magic, the other role, a
   P-256 point that is not our own.
2. B sends its confirmation ``cB`` (32 bytes) as soon as A's element is in; A checks
   it (when the throttle of wrong codes lets it, :class:`~.gate.Guesses`), then answers
   one byte: :data:`WRONG` (and closes) or :data:`RIGHT` followed by ``cA`` (32), which
   B checks.  A speaks its confirmation only after B's checked out: a guesser learns
   its one guess's answer from A's refusal, counted, never sooner.
3. Both open the sealed channel under ``Ke`` (openings, sealed HELLOs), fresh
   connection nonces every time: a reconnection under the same code is a fresh run.

Sans-I/O: :class:`Opening` takes and gives bytes; :class:`LanDoor` (the host's
listener) and :class:`LanDial` (the joiner's dialing) are its asyncio shell.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable
from typing import Any, Final, TypeVar

from ..contracts.news import Connected, ConnectionDropped, DropKind
from ..core.messages import Refuse
from ..core.protocol import PeerRefused
from ..core.wire import MAX_FRAME, Refusal, RemoteProtocolError, encode
from ..tunnel.errors import ChannelError, ConfirmationError, PakeError
from ..tunnel.paths import Opened, SealedTransport, open_channel
from ..tunnel.relay import where_of
from ..tunnel.spake2 import ELEMENT_BYTES, ID_A, ID_B, MAC_BYTES, Role, Spake2, password_scalar
from .gate import HELLO_TIMEOUT, shown_address
from .link import HANDSHAKE_TIMEOUT, dial_stream

MAGIC: Final = b"P2PLAN1|"
ROLE_BYTES: Final = {Role.A: b"A", Role.B: b"B"}
ELEMENT_MESSAGE: Final = len(MAGIC) + 1 + ELEMENT_BYTES  # 74
WRONG: Final = b"\x00"
RIGHT: Final = b"\x01"
# The SPAKE2 associated data and the password's salt context: a LAN key is never an
# internet one (tunnel/rendezvous.py has its own).
LAN_AAD: Final = b"p2p-spite lan v1|SPAKE2-P256-SHA256-HKDF-HMAC|scrypt N=16384 r=8 p=1"
LAN_CONTEXT: Final = b"lan"


def lan_scalar(code_key: bytes) -> int:
    """SPAKE2's ``w`` for a join code's key (core/keys.py ``derive_code_key``): the record
    of a match keeps that key, so a resumed match opens without the code typed again."""
    return password_scalar(code_key, LAN_CONTEXT)


class NotOpening(PakeError):
    """The peer's first bytes are no opening (it speaks the game protocol in clear, or
    another program): ``seen`` holds them."""

    def __init__(self, seen: bytes) -> None:
        super().__init__("the peer's first bytes are not a LAN opening")
        self.seen = seen


class WrongCode(PakeError):
    """The host refused our confirmation: the codes differ."""


class Opening:
    """One side of one opening, sans-I/O: :meth:`receive_data` the peer's bytes, send
    :meth:`data_to_send` after each call.  The host checks the joiner's confirmation
    with :meth:`check` once :attr:`to_check`; :attr:`key` is ``Ke`` once confirmed, and
    :attr:`rest` the bytes that came after the opening (the sealed channel's).  Any
    failure raises a :class:`~p2p_spite.tunnel.errors.PakeError`."""

    def __init__(self, role: Role, w: int, *, x: int | None = None) -> None:
        self.role = role
        self._pake = Spake2(role, w, id_a=ID_A, id_b=ID_B, aad=LAN_AAD, x=x)
        self._buf = b""
        self._element_message = MAGIC + ROLE_BYTES[role] + self._pake.message
        self._out = self._element_message if role is Role.B else b""  # (A answers B's)
        self._ours = b""  # our confirmation, once the peer's element is in
        self._theirs = b""  # the joiner's confirmation (the host's side)
        self.key: bytes | None = None
        self.rest = b""

    @property
    def element_in(self) -> bool:
        """The peer's element has come, valid."""
        return bool(self._ours)

    @property
    def to_check(self) -> bool:
        return self.role is Role.A and bool(self._theirs) and self.key is None

    def data_to_send(self) -> bytes:
        out, self._out = self._out, b""
        return out

    def receive_data(self, data: bytes) -> None:
        if self.key is not None:
            self.rest += data
            return
        self._buf += data
        if not self._ours:
            self._element()
        if self._ours and self.role is Role.A:
            if len(self._buf) > MAC_BYTES:
                raise PakeError("the joiner sent more than its confirmation")
            if len(self._buf) == MAC_BYTES:
                self._theirs, self._buf = self._buf, b""
        elif self._ours and self._buf:
            self._answer()

    def _element(self) -> None:
        seen = self._buf[: len(MAGIC)]
        if seen != MAGIC[: len(seen)]:
            raise NotOpening(self._buf)
        if len(self._buf) < ELEMENT_MESSAGE:
            return
        role, element = self._buf[len(MAGIC) : len(MAGIC) + 1], self._buf[len(MAGIC) + 1 : ELEMENT_MESSAGE]
        if role != ROLE_BYTES[Role.B if self.role is Role.A else Role.A]:
            raise PakeError(f"the peer's opening names the role {role!r}, not the other one")
        self._buf = self._buf[ELEMENT_MESSAGE:]
        self._ours = self._pake.receive(element)
        self._out += self._ours if self.role is Role.B else self._element_message

    def _answer(self) -> None:
        if self._buf[:1] == WRONG:
            raise WrongCode("the host refused the join code")
        if self._buf[:1] != RIGHT:
            raise PakeError("the host's answer is neither right nor wrong")
        if len(self._buf) < 1 + MAC_BYTES:
            return
        self.key = self._pake.confirm(self._buf[1 : 1 + MAC_BYTES])
        self.rest, self._buf = self._buf[1 + MAC_BYTES :], b""

    def check(self) -> None:
        """The host: the joiner's confirmation (ConfirmationError: a wrong code, and
        :data:`WRONG` is to send; else :data:`RIGHT` and ours)."""
        assert self.to_check
        try:
            self.key = self._pake.confirm(self._theirs)
        except ConfirmationError:
            self._out += WRONG
            raise
        self._out += RIGHT + self._ours


async def _run(
    op: Opening, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, pace: Callable[[], float]
) -> Opened:
    writer.write(op.data_to_send())
    while op.key is None:
        if op.to_check:
            await asyncio.sleep(pace())  # (checked then even if the guesser hung up meanwhile)
            try:
                op.check()
            finally:
                writer.write(op.data_to_send())
            break
        data = await reader.read(ELEMENT_MESSAGE)
        if not data:
            raise ConnectionError("the connection closed during the opening")
        op.receive_data(data)
        writer.write(op.data_to_send())
    assert op.key is not None
    ch, got = await open_channel(reader, writer, op.key, op.role, HANDSHAKE_TIMEOUT, seen=op.rest, go=False)
    peer = writer.get_extra_info("peername")
    address = (str(peer[0]), int(peer[1])) if isinstance(peer, tuple) else ("?", 0)
    return Opened(ch, reader, writer, got, Connected(direct=True, where=where_of(*address)), peer)


# -- the host ----------------------------------------------------------------------------------

Refused = Callable[[Any, ConnectionDropped], None]  # (the peer's address, why it was dropped)


class Knock:
    """A connection in its opening at the host's door (gate.Door: it holds a slot of its
    address's until it is through, and may be dropped for a newer one)."""

    def __init__(self, peer: Any, writer: asyncio.StreamWriter) -> None:
        self.peer = peer
        self.greeted = False  # its element came, valid
        self.dropped_as: DropKind | None = None
        self._writer = writer

    def drop(self, kind: DropKind, why: str) -> None:
        self.dropped_as = kind
        self._writer.transport.abort()


class LanDoor:
    """The host's listener when it has a join code: every connection opens first (in a
    slot of the host's door, ``admit`` and ``leave``; each within
    :data:`~.gate.HELLO_TIMEOUT` for its element and the handshake's deadline in all),
    then its protocol (from the factory) runs inside the sealed channel.  ``pace`` is
    the throttle's wait for an address; ``refused`` is told of every connection
    dropped in its opening (a wrong code counts against its address there)."""

    def __init__(
        self,
        w: int,
        pace: Callable[[Any], float],
        refused: Refused,
        admit: Callable[[Knock], bool],
        leave: Callable[[Knock], None],
    ) -> None:
        self._w = w
        self._pace = pace
        self._refused = refused
        self._admit = admit
        self._leave = leave
        self._factory: Callable[[], asyncio.BaseProtocol] | None = None

    async def serve(self, factory: Callable[[], asyncio.BaseProtocol], sock: socket.socket) -> asyncio.Server:
        self._factory = factory
        return await asyncio.start_server(self._accepted, sock=sock)

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        knock = Knock(writer.get_extra_info("peername"), writer)
        if not self._admit(knock):
            knock.drop(DropKind.TURNED_AWAY, "every handshake slot holds an authenticated connection")
            self._refused(knock.peer, ConnectionDropped(shown_address(knock.peer), DropKind.TURNED_AWAY))
            return
        try:
            opened = await self._open(knock, reader, writer)
        except asyncio.CancelledError:  # the host stops while this one is opening: close it
            # here (asyncio's start_server would print the cancelled task as an error)
            writer.transport.abort()
            return
        finally:
            self._leave(knock)
        if opened is not None and self._factory is not None:
            SealedTransport(opened).attach(self._factory())

    async def _open(
        self, knock: Knock, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> Opened | None:
        peer = knock.peer
        op = Opening(Role.A, self._w)
        kind, code = DropKind.CLOSED, ""
        try:
            async with asyncio.timeout(HANDSHAKE_TIMEOUT):
                async with asyncio.timeout(HELLO_TIMEOUT) as first:
                    while not op.to_check and op.key is None:
                        data = await reader.read(ELEMENT_MESSAGE)
                        if not data:
                            raise ConnectionError("closed during the opening")
                        op.receive_data(data)
                        writer.write(op.data_to_send())
                        if op.element_in:  # the first deadline is met
                            knock.greeted = True
                            first.reschedule(None)
                return await _run(op, reader, writer, lambda: self._pace(peer))
        except NotOpening:  # a joiner without the code (or another program): it needs one
            writer.write(
                encode(
                    Refuse(Refusal.CODE_NEEDED, "this host needs a join code (join with --code)").to_wire()
                )
            )
            kind, code = DropKind.PROTOCOL, Refusal.CODE_NEEDED.value
        except ConfirmationError:
            kind = DropKind.WRONG_CODE
        except (PakeError, ChannelError):
            kind, code = DropKind.PROTOCOL, Refusal.PROTOCOL.value
        except TimeoutError:
            kind = DropKind.NO_HELLO if not knock.greeted else DropKind.NO_HANDSHAKE
        except (ConnectionError, OSError):
            pass
        with contextlib.suppress(Exception):
            writer.close()
        if kind is not DropKind.WRONG_CODE and knock.dropped_as is not None:
            kind = knock.dropped_as  # (a proof checked wrong counts as one, crowded out or not)
        line = ConnectionDropped(shown_address(peer), kind, code)
        self._refused(peer, line)
        return None


# -- the joiner (and a watcher) ---------------------------------------------------------------


P = TypeVar("P", bound=asyncio.Protocol)


class LanDial:
    """Dialing a host with a join code (``w``: :func:`lan_scalar` of its key): TCP, the
    opening, then the factory's protocol inside the sealed channel (a
    :data:`~.connect.Connector`).  DialFailed if no TCP connection; PeerRefused
    (``bad-code``) for a wrong code, (``no-code``) when the host speaks in clear;
    RemoteProtocolError for bytes that are no opening."""

    def __init__(self, w: int) -> None:
        self._w = w

    async def __call__(self, factory: Callable[[], P], host: str, port: int, timeout: float) -> P:
        reader, writer = await dial_stream(host, port, timeout)
        try:
            async with asyncio.timeout(HANDSHAKE_TIMEOUT):
                opened = await _run(Opening(Role.B, self._w), reader, writer, lambda: 0.0)
        except BaseException as e:
            with contextlib.suppress(Exception):
                writer.close()
            raise _joiner_error(e) from None
        protocol = factory()
        SealedTransport(opened).attach(protocol)
        return protocol


def _joiner_error(e: BaseException) -> BaseException:
    if isinstance(e, WrongCode):
        return PeerRefused("wrong join code", Refusal.BAD_CODE)
    if isinstance(e, NotOpening):
        if _clear_p2p_spite(e.seen):
            return PeerRefused("this host does not use a join code (join without --code)", Refusal.NO_CODE)
        return RemoteProtocolError("the host's first bytes are not p2p-spite's", Refusal.NOT_P2P_SPITE)
    if isinstance(e, (PakeError, ChannelError)):
        return RemoteProtocolError(f"the host's opening: {e}", Refusal.PROTOCOL)
    return e


def _clear_p2p_spite(seen: bytes) -> bool:
    """Whether ``seen`` begins a frame of the game protocol in clear (a host without a
    join code sends its hello first): a length within bounds, then a msgpack map."""
    if len(seen) < 5:
        return False
    n = int.from_bytes(seen[:4], "big")
    return 1 <= n <= MAX_FRAME and (0x80 <= seen[4] <= 0x8F or seen[4] == 0xDE)
