"""Playing again on the same connection, with no I/O (docs/protocol.md, *Playing again*).

Once a match is over each side answers "another match?" once (``rematch``).  When both
said yes, the endpoint reads the peer's frames up to its next ``hello`` and hands that
frame and the rest over to the next match's endpoint (:class:`Handover`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .game import GameCore
from .messages import Message, RematchAnswer
from .wire import LocalProtocolError, Refusal, RemoteProtocolError


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
