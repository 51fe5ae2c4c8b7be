"""Finding a lost peer again and noticing a silent one, with no I/O and no clock (the
seat machine's; the shell owns the timers, the redial task and the dials): the grace
period a lost peer is waited for, the heartbeat's verdict on the connection of the
moment (a ping, or dropped as silent), and the refusals after which redialing is
pointless."""

from __future__ import annotations

from ..contracts.news import ConnectionLost, PeerStopped, Redialing, WeStopped
from ..contracts.session import EndCause
from .effects import DropLink, Effect, Flush, GiveUp, Redial, WaitedOut, WakeAt
from .handshake import Phase
from .protocol import Endpoint, PeerRefused
from .wire import ProtocolError, Refusal, RemoteProtocolError

# refusals after which redialing is pointless
FATAL_REFUSALS = frozenset(
    {
        Refusal.HISTORY,
        Refusal.BEHIND,
        Refusal.OTHER_MATCH,
        Refusal.BAD_CODE,
        Refusal.CODE_NEEDED,
        Refusal.NO_CODE,
        Refusal.VERSION,
        Refusal.DESYNC,
        Refusal.ILLEGAL_MOVE,
        Refusal.SEAT_TAKEN,
        Refusal.NO_MATCH,
        Refusal.NOT_P2P_SPITE,
        Refusal.FLOOD,
        Refusal.BAD_PROOF,
        Refusal.STORAGE,
        Refusal.POSITION,
        Refusal.FORGED,
        Refusal.SEQUENCE,
        Refusal.NOT_PRIVATE,
        Refusal.DECK_FORMAT,
        Refusal.DECK_ORDER,
        Refusal.BAD_SHARE,
        Refusal.BAD_SHUFFLE,
        Refusal.CHEAT,
    }
)


class Liveness:
    """How long a lost ``peer`` is waited for (``grace`` seconds; ``redials``: this side
    dials it again meanwhile, the joiner) and when a connection is taken as dead (silent
    for ``dead_after`` seconds, heard or not between the pings)."""

    def __init__(self, peer: str, *, grace: float, dead_after: float, redials: bool) -> None:
        self.peer = peer
        self.grace = grace
        self.dead_after = dead_after
        self.redials = redials
        self.grace_until: float | None = None  # the grace period's end, while the peer is away
        self._pings = 0

    def lost(self, now: float) -> tuple[Redialing, list[Effect]]:
        """The connection was lost mid-match: the news that says so, and the effects: the
        grace period's end to be woken at (once: a second loss keeps it), the redial."""
        fx: list[Effect] = []
        if self.grace_until is None:
            self.grace_until = now + self.grace
            fx.append(WakeAt(self.grace_until))
        if self.redials:
            fx.append(Redial())
        return Redialing(self.peer, self.grace, redial=self.redials), fx

    def back(self) -> None:
        """The peer is back, or the match stopped: no grace period runs."""
        self.grace_until = None

    def due(self, now: float, linked: bool) -> list[Effect]:
        """The grace period's end, if it has come: waited out, unless the peer is back
        (``linked``)."""
        if self.grace_until is None or now < self.grace_until:
            return []
        self.grace_until = None
        return [] if linked else [WaitedOut(ConnectionLost(self.peer, self.grace))]

    def beat(self, endpoint: Endpoint | None, silent: float) -> list[Effect]:
        """A heartbeat: the connection of the moment (``endpoint``: None if none, or closing)
        has been silent ``silent`` seconds: dropped past ``dead_after``, else pinged."""
        if endpoint is None or endpoint.phase is not Phase.PLAY:
            return []
        if silent > self.dead_after:
            return [DropLink(f"{self.peer} went silent")]
        self._pings += 1
        endpoint.send_ping(self._pings)
        return [Flush()]

    def redial_refused(self, e: ProtocolError) -> list[Effect]:
        """A redial's handshake was refused (``PeerRefused``: by the peer; a
        ``RemoteProtocolError``: by us): the match stops if redialing is pointless, else
        the redial goes on (nothing)."""
        if e.code not in FATAL_REFUSALS:
            return []
        if isinstance(e, PeerRefused):
            stopped = PeerStopped(self.peer, e.code.value, str(e), resuming=True)
            return [GiveUp(stopped, EndCause.PEER_REFUSED, e.code, str(e))]
        if isinstance(e, RemoteProtocolError):
            refused = WeStopped(self.peer, e.code.value, str(e), resuming=True)
            return [GiveUp(refused, EndCause.PEER_BROKE_PROTOCOL, e.code)]
        return []


__all__ = ["FATAL_REFUSALS", "Liveness"]
