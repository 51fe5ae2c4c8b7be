"""Taking back a move, with no I/O (docs/protocol.md, *Taking back*).

The player on turn asks to take back its last action (``takeback``), the other answers
(``takeback-answer``), and on a yes the asker takes it back in its core and tells the
peer (``undo``).  :class:`TakebackLedger` keeps both directions' requests for one
connection, checks each of the peer's messages against them and the rules, and says
what the endpoint should tell its shell.  An action voids the request it crosses.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from ..engine import Played
from ..engine import refusals as no
from .game import Committed, GameCore
from .messages import Message, TakebackAnswer, TakebackRequest, Undo
from .wire import LocalProtocolError, Refusal, RemoteProtocolError

# takeback requests: at most this many in one turn of the requester's (allowed or not)
MAX_TAKEBACKS: Final = 5
UNDO_ACK: Final = "undo-ack"  # the debt of a peer that has our undo and has not acknowledged it
UNDO_ACK_DEADLINE = 15.0  # seconds it may take (its pings do not count)


@dataclass(frozen=True, slots=True)
class TakebackRequested:
    """The peer, on turn, asks to take back its action ``n`` (checked: its last move of the
    turn, one that showed no card; ``played``: what it did).  Answer with
    :meth:`TakebackLedger.answer` (the peer's next action voids the request)."""

    n: int
    played: Played


@dataclass(frozen=True, slots=True)
class TakebackAnswered:
    """The peer's answer to our request to take back action ``n``: on ``ok``, take it back
    (the core, written down), then :meth:`Endpoint.send_undo` (``rule``: the peer's standing
    rule answered, not its player)."""

    n: int
    ok: bool
    rule: bool = False


@dataclass(frozen=True, slots=True)
class TakenBack:
    """The peer took back its action ``n`` (we allowed it): done in the core; write it
    down, then :meth:`Endpoint.acknowledge` it, then show it (``played``: what it had done)."""

    n: int
    played: Played


class TakebackLedger:
    """The takebacks of one connection, both ways.  ``send`` queues a message."""

    def __init__(self, send: Callable[[Message], None]) -> None:
        self._send = send
        # ours: the request waiting for its answer, the last one a move of ours voided (its
        # answer is ignored), our requests this turn, and our undo until the peer acks it
        self._asked: int | None = None
        self._voided: int | None = None
        self._own_asks = 0
        self._undo_unacked = False
        # the peer's: its request waiting for our answer, the action we let it take back,
        # and its requests in its turn
        self._peer_asked: int | None = None
        self._allowed: int | None = None
        self._peer_asks = 0

    # -- this side -----------------------------------------------------------------

    @property
    def asking(self) -> bool:
        """Our takeback request waits for the peer's answer."""
        return self._asked is not None

    @property
    def asked(self) -> int:
        """Our takeback requests in this turn of ours (at most MAX_TAKEBACKS)."""
        return self._own_asks

    @property
    def undo_unacked(self) -> bool:
        """Our undo went out and the peer has not acknowledged it yet: no action of ours
        may follow it before then (docs/protocol.md, *Taking back*)."""
        return self._undo_unacked

    def request(self, core: GameCore, catching_up: bool) -> int:
        """Ask to take back our last action (checked by the caller: ``core.takeback_refusal``);
        returns its number."""
        if self._asked is not None or self._own_asks >= MAX_TAKEBACKS or catching_up:
            raise LocalProtocolError("a takeback cannot be asked for now")
        n = core.position - 1
        self._asked = n
        self._own_asks += 1
        self._send(TakebackRequest(n))
        return n

    def answer(self, n: int, ok: bool, rule: bool = False) -> bool:
        """Answer the peer's request to take back action ``n`` (False: it is void, nothing
        sent; ``rule``: by this side's standing rule)."""
        if self._peer_asked != n:
            return False
        self._peer_asked = None
        self._allowed = n if ok else None
        self._send(TakebackAnswer(n, ok, rule))
        return True

    def undo_sent(self, n: int, core: GameCore) -> None:
        """We took back action ``n`` (in the core, written down): tell the peer."""
        self._undo_unacked = True
        self._send(Undo(n, core.state_digest()))

    def ours_announced(self) -> None:
        """Our next action is announced (a private deck's intent): it voids our request, as
        the action will."""
        if self._asked is not None:
            self._voided, self._asked = self._asked, None

    def ours_sent(self, core: GameCore) -> None:
        """An action of ours went out: it voids our request; at our turn's end, the count
        starts again."""
        if self._asked is not None:
            self._voided, self._asked = self._asked, None
        g = core.match.game
        if g.result is not None or g.turn != core.seat:
            self._own_asks = 0

    # -- the peer ------------------------------------------------------------------

    def peers_action(self, done: Committed, core: GameCore) -> None:
        """The peer's action came: it voids its request; at its turn's end, its count starts again."""
        self._peer_asked = self._allowed = None
        if done.played is None or done.played.turn_passed or core.match.game.result is not None:
            self._peer_asks = 0

    def peers_intent(self) -> None:
        """The peer announced its next action (a private deck's intent): it voids its request
        (the cards shown for it stand, whatever the answer)."""
        self._peer_asked = self._allowed = None

    def acked(self) -> bool:
        """An ack came (the peer's acks of actions before our undo came before its answer):
        True if it acknowledges our undo."""
        held, self._undo_unacked = self._undo_unacked, False
        return held

    def on_request(self, msg: TakebackRequest, c: GameCore) -> TakebackRequested:
        """The peer, on turn, asks to take back its action ``n``: checked as strictly as an
        action (nothing of ours changes), then answered by the shell."""
        peer, n = 1 - c.seat, msg.n
        g = c.match.game
        if c.finished or g.result is not None:
            raise RemoteProtocolError("a takeback request after the game ended", Refusal.UNEXPECTED)
        if g.turn != peer:
            raise RemoteProtocolError("a takeback request off the sender's turn", Refusal.UNEXPECTED)
        if self._peer_asked is not None:
            raise RemoteProtocolError(
                "a second takeback request before the first was answered", Refusal.UNEXPECTED
            )
        if n != c.position - 1:
            raise RemoteProtocolError(
                f"a takeback of action {n}: the last action is {c.position - 1}", Refusal.TAKEBACK
            )
        why = c.takeback_refusal(peer)
        if isinstance(why, no.DeckBusy | no.GameIsOver):  # (a private deck: an action under way, a leave)
            code = Refusal.DECK_ORDER if isinstance(why, no.DeckBusy) else Refusal.UNEXPECTED
            raise RemoteProtocolError(f"a takeback while {why}", code)
        if why is not None:
            raise RemoteProtocolError(f"a takeback the rules refuse: {why}", Refusal.TAKEBACK)
        if self._peer_asks >= MAX_TAKEBACKS:
            raise RemoteProtocolError(
                f"more than {MAX_TAKEBACKS} takeback requests in one turn", Refusal.FLOOD
            )
        self._peer_asks += 1
        self._peer_asked, self._allowed = n, None
        played = c.match.last_played()
        assert played is not None
        return TakebackRequested(n, played)

    def on_answer(self, msg: TakebackAnswer) -> TakebackAnswered | None:
        """The peer's answer to our request (None: a move of ours voided it)."""
        n = msg.n
        if self._asked == n:
            self._asked = None
            return TakebackAnswered(n, msg.ok, msg.rule)
        if self._voided == n:
            self._voided = None  # our move crossed it: the answer is void
            return None
        raise RemoteProtocolError(f"an answer to a takeback of action {n} not asked for", Refusal.UNEXPECTED)

    def on_undo(self, msg: Undo, c: GameCore) -> Played:
        """The peer takes back its action ``n``: only the one we let it take back, with no
        action since, and to the state our own takeback gives.  Done in the core."""
        peer, n = 1 - c.seat, msg.n
        if self._allowed != n or n != c.position - 1 or c.takeback_refusal(peer) is not None:
            raise RemoteProtocolError(f"an undo of action {n} that this side did not allow", Refusal.FORGED)
        if not hmac.compare_digest(c.digest_after_takeback(peer), msg.d):
            raise RemoteProtocolError(
                f"the game states disagree after taking back action {n} (desync): the match is stopped",
                Refusal.DESYNC,
            )
        self._allowed = None
        return c.take_back(peer)
