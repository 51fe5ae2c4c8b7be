"""The private deck's numbered messages, both ways, of this game and the one before.

On the wire every private-deck message is numbered ``i`` = 0, 1, 2, ... per sender and
game (docs/protocol.md, ``deck``).  A seat's :class:`DeckMail` keeps what it sent, with
the number of actions made when it went, to send it again after a reconnection
(:meth:`DeckMail.resync`), and what it took from the peer, to skip a number it has
when the same bytes come again (:meth:`DeckMail.check`) -- but only so many times.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Protocol

from .game import GameCore
from .messages import DeckBody
from .wire import Refusal, RemoteProtocolError

REPEATS: Final = 64  # messages a peer may send twice on a connection, beyond what it had sent


class Resend(Protocol):
    """A new connection's endpoint, before play goes on: what was sent goes again."""

    def send_message(self, msg: DeckBody) -> None: ...

    def send_action(self, n: int) -> None: ...


@dataclass(slots=True)
class Sent:
    game: int
    at: int  # the core's position when it was sent: it goes before action number ``at``
    msg: DeckBody


class DeckMail:
    """Seat ``core.seat``'s private-deck messages: ``next_index``, the number of its next
    one in the current game; ``sent``, what it sent; ``taken``, how many it took from the
    peer (the shell's deadline watches it move)."""

    def __init__(self, core: GameCore) -> None:
        self.core = core
        self.next_index = 0
        self.sent: list[Sent] = []  # what this seat sent in this game and the one before
        self.taken = 0
        self._received: dict[int, list[DeckBody]] = {}  # game -> the deck messages taken, in order
        self._repeats = REPEATS  # messages the peer may send again on this connection (after a cut)

    def open(self, game: int) -> None:
        """Game ``game``'s deck starts: its numbers from 0; the games before the last are forgotten."""
        self.next_index = 0
        self.sent = [s for s in self.sent if s.game == game - 1]
        self._received = {g: v for g, v in self._received.items() if g == game - 1}
        self._received[game] = []

    def keep(self, game: int, msg: DeckBody) -> None:
        """``msg`` of ``game`` is sent now (before action number ``core.position``)."""
        self.sent.append(Sent(game, self.core.position, msg))

    def rewind(self, position: int) -> None:
        """Action ``position`` was taken back: what was sent after it goes, in a resync,
        before the action that takes its place (it was sent before that one)."""
        for rec in self.sent:
            rec.at = min(rec.at, position)

    def resync(self, port: Resend, peer_position: int) -> None:
        """Send again what this seat sent, between the actions the peer lacks (from
        ``peer_position`` on; they were sent in that order).  The peer skips what it has."""
        self._repeats = REPEATS + sum(len(v) for v in self._received.values())
        n = peer_position
        end = self.core.position
        for rec in self.sent:
            while n < min(rec.at, end):
                port.send_action(n)
                n += 1
            port.send_message(rec.msg)
        while n < end:
            port.send_action(n)
            n += 1

    def check(self, msg: DeckBody, game: int) -> list[DeckBody] | None:
        """A deck message from the peer during ``game``: the messages of its game taken so
        far, which it comes next to (:meth:`took`), or None if it is one of them sent
        again (skip it).  RemoteProtocolError if it is out of order, or differs from the
        one it repeats, or the peer repeats too much."""
        g, i = msg.game, msg.index
        seen = self._received.get(g)
        if seen is None:
            raise RemoteProtocolError(
                f"a private-deck message for game {g} during game {game}", Refusal.DECK_ORDER
            )
        if i < len(seen):
            if seen[i] != msg:
                raise RemoteProtocolError(
                    f"private-deck message {i} of game {g} sent twice, different", Refusal.DECK_ORDER
                )
            self._repeats -= 1
            if self._repeats < 0:
                raise RemoteProtocolError("private-deck messages sent again and again", Refusal.FLOOD)
            return None  # sent again after a reconnection: we have it
        if i > len(seen):
            raise RemoteProtocolError(
                f"private-deck message {i} of game {g} before message {len(seen)}", Refusal.DECK_ORDER
            )
        return seen

    def took(self, seen: list[DeckBody], msg: DeckBody) -> None:
        """``msg`` is taken: it joins ``seen`` (what :meth:`check` gave for it)."""
        seen.append(msg)
        self.taken += 1
