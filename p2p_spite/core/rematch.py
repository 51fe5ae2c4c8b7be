"""Playing again on the same connection, with no I/O (docs/protocol.md, *Playing again*).

Once a match is over each side answers "another match?" once (``rematch``).  When both
said yes, the endpoint reads the peer's frames up to its next ``hello`` and hands that
frame and the rest over to the next match's endpoint (:class:`Handover`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..contracts.news import AgainRefused
from ..contracts.session import Rematch
from .game import GameCore
from .messages import Message, RematchAnswer
from .wire import LocalProtocolError, ProtocolError, Refusal, RemoteProtocolError


@dataclass(frozen=True, slots=True)
class RematchReceived:
    """The peer's answer to "another match?" (checked: once, after the end, this match)."""

    yes: bool


@dataclass(frozen=True, slots=True)
class Handover:
    """Both said yes and the peer's next ``hello`` came: ``data`` (that frame and what
    follows) belongs to the next match's handshake; this endpoint is closed."""

    data: bytes


class RematchLedger:
    """Both sides' answers to another match, on one connection.  ``send`` queues a message."""

    def __init__(self, send: Callable[[Message], None]) -> None:
        self._send = send
        self.ours: bool | None = None  # our answer, once the match is over
        self.theirs: bool | None = None  # the peer's

    @property
    def both_yes(self) -> bool:
        return bool(self.ours and self.theirs)

    def answer(self, core: GameCore, yes: bool) -> None:
        """This side's answer (once, once the match is over)."""
        if not core.finished:
            raise LocalProtocolError("another match is offered only once this one is over")
        if self.ours is not None:
            raise LocalProtocolError("another match was answered already")
        self.ours = yes
        self._send(RematchAnswer(core.match_id, yes))

    def on_answer(self, msg: RematchAnswer, core: GameCore) -> RematchReceived:
        """The peer's answer: after the end, once, for this match."""
        if not core.finished:
            raise RemoteProtocolError("an offer of another match before this one is over", Refusal.SEQUENCE)
        if self.theirs is not None:
            raise RemoteProtocolError("a second answer to another match", Refusal.SEQUENCE)
        if msg.match != core.match_id:
            raise RemoteProtocolError("an answer to another match for another match id", Refusal.OTHER_MATCH)
        self.theirs = msg.yes
        return RematchReceived(msg.yes)


class SeatRematch:
    """A seat's answer to another match and the peer's, across the match's connections
    (the seat machine's): ``ours`` and ``theirs`` once given, ``gone`` (the peer left, or
    the connection was lost, before the next match), ``started`` (both said yes: the next
    match's hello went out), ``refused`` (the next match was refused before any deal: why)."""

    def __init__(self) -> None:
        self.ours: bool | None = None
        self.theirs: bool | None = None
        self.gone = False
        self.started = False
        self.refused: AgainRefused | None = None

    @property
    def agreed(self) -> bool:
        return bool(self.ours and self.theirs)

    def waited(self) -> Rematch | None:
        """After our yes waited for the peer: how it settled (None: both said yes and the
        next match's hello went out: its handshake decides)."""
        if self.theirs is False:
            return Rematch.DECLINED
        if self.gone or not self.started:
            return Rematch.GONE if self.refused is None else Rematch.REFUSED
        return None

    def broken(self, e: ProtocolError, peer: str, *, ours: bool, begun: bool) -> None:
        """Refused (``ours``: by this side, else by the peer) after both said yes and before
        the next match began (``begun``): the next match is refused, ``peer`` named."""
        if self.refused is None and not begun:
            self.refused = AgainRefused(peer, e.code.value, str(e), ours=ours)
