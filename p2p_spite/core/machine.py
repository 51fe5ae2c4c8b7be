"""One seat's machine: what happens to the seat (an action made or received, a change
in how many watch, a debt the peer owes, a takeback asked, answered or done, an answer
to another match, a connection lost, caught up or silent, a tick of the clock) taken
to the list of effects the shell carries out (:mod:`p2p_spite.core.effects`), in
their order: for an action, the one order the durability rule needs.  No I/O and no
clock: the protocol endpoint only queues bytes, nothing queued leaves before a
:class:`~p2p_spite.core.effects.Flush`, which comes after the writes it depends on,
and the time comes with each input that needs it.
"""

from __future__ import annotations

from typing import Final

from ..contracts.news import Owed, Stalled
from ..contracts.session import Rematch, RematchAnswered, TakebackAsked, TakebackRefused, Takebacks
from ..engine import IllegalMoveError, Played
from ..engine.refusals import Illegal, TakebackOffline, TakebackWaiting, TooManyTakebacks
from .debts import Debts
from .deckside import DECK_DEBT, DeckSide
from .effects import (
    Effect,
    Flush,
    MakeDue,
    MakeDurable,
    PeerHolds,
    PeerOverdue,
    Show,
    StartNext,
    Unseen,
    WakeAt,
    Withdraw,
    WriteEntry,
)
from .game import Action, Committed, GameCore
from .handshake import Phase
from .liveness import Liveness
from .private import PrivateDeck
from .protocol import ActionReceived, Endpoint
from .rematch import SeatRematch
from .takebacks import (
    MAX_TAKEBACKS,
    UNDO_ACK,
    UNDO_ACK_DEADLINE,
    TakebackAnswered,
    TakebackRequested,
    TakenBack,
)
from .watchcount import CountTold, WatcherCounts
from .wire import Refusal

CATCH_UP: Final = "catch-up"  # the debt of a peer whose sync claimed actions this side lacks


class SeatMachine:
    """The effects of what happens to one seat: its :class:`GameCore` (``core``), what the
    peer owes it, and, the host's, how many watch (``watchers``: at most; 0: none); how
    many actions the peer holds (``held``), the takebacks, the answers to another match,
    and how long a lost peer is waited for (``live``: its name ``peer_name``)."""

    def __init__(
        self,
        core: GameCore,
        *,
        watchers: int = 0,
        peer_name: str = "",
        held: int = 0,
        live: Liveness | None = None,
    ) -> None:
        self.core = core
        self.counted = CountTold(watchers)  # how many watch, told to the joiner
        self.debts = Debts()  # what the peer owes on the connection of the moment
        deck = PrivateDeck.of(core)  # a private deck's match has its side (core/deckside.py)
        self.deck = DeckSide(deck, peer_name, self.debts) if deck is not None else None
        self.peer_name = peer_name  # (named in the news of a debt not paid)
        self.held = held  # the peer holds the first ``held`` actions (acknowledged, or it acted after them)
        self.takeback = SeatTakebacks()  # taking back: requests both ways, our undo until acked
        self.rematch = SeatRematch()  # another match on this connection: both answers
        # a lost peer waited for (none by default), a silent one noticed (never by default)
        self.live = live or Liveness(peer_name, grace=0.0, dead_after=float("inf"), redials=False)

    def settle(
        self, done: Committed, endpoint: Endpoint | None, received: ActionReceived | None = None
    ) -> list[Effect]:
        """The action just committed to the core (ours, or ``received`` from the peer over
        ``endpoint``, the connection of the moment if any): the tape noted so far and the
        action written down; then, if the endpoint plays, ours sent (a private deck's
        resignation secret after it) or the peer's acknowledged, the tape that noted and
        the bytes let go; then the record's checkpoint at a game's end, then the events.
        The shell stops at the first effect that fails; once it has carried them all out,
        :meth:`deal` deals the next game."""
        core = self.core
        n = core.position - 1
        # the peer's tag is kept for its own actions (ours come back only while it catches us up)
        tag = received.tag if received is not None and core.authors[-1] != core.seat else None
        fx: list[Effect] = [*self.tape(), WriteEntry(n, done.action, tag)]
        live = endpoint if endpoint is not None and endpoint.phase is Phase.PLAY else None
        if live is not None and received is None:
            live.send_action(n)
        if self.deck is not None:  # a resignation's secret goes after it (and before our ack) ...
            self.deck.held = True  # ... let go by this list's Flush, after the entry is written
            try:
                self.deck.deck.after_action()
            finally:
                self.deck.held = False
        if live is not None:
            if received is not None:
                live.acknowledge()
            fx += self.tape()
            fx.append(Flush())
        evs = core.events(done)
        if core.match.game.result is not None:
            fx.append(MakeDurable(core.match))
        fx += [Show(ev) for ev in evs]
        return fx

    def deal(self) -> list[Effect]:
        """After :meth:`settle`'s effects: the next game dealt if one ended and the match
        goes on (its start shown; a private deck's once its deal is made)."""
        return [Show(ev) for ev in self.core.deal_next()]

    def watchers(self, count: int, endpoint: Endpoint | None, now: float) -> list[Effect]:
        """``count`` watch now: shown, and told to the peer over ``endpoint`` (throttled)."""
        return self.counted.set(count, _conn(endpoint), now)

    def linked(self, endpoint: Endpoint, now: float) -> list[Effect]:
        """A connection to the peer, new or back: what it may not know yet is told (and a
        private deck's deadline looked at from now on, :meth:`tick`)."""
        fx = self.counted.tell(endpoint.watchers, now)
        if self.deck is not None and self.deck.playing:
            fx.append(WakeAt(now + self.deck.every))
        return fx

    def owe(self, key: str, what: Stalled, code: Refusal, now: float) -> list[Effect]:
        """The peer owes ``key`` within ``what.seconds`` (:meth:`Debts.owe`); paying it
        (``debts.paid``) is the only way to meet its deadline."""
        deadline = self.debts.owe(key, what, code, now)
        return [WakeAt(deadline)] if deadline is not None else []

    def tick(self, endpoint: Endpoint | None, now: float) -> list[Effect]:
        """The time a :class:`~p2p_spite.core.effects.WakeAt` asked for has come: the
        debts not paid by now, a count that waited, the grace period's end (the peer
        still away: waited out); then the next wake-up, if one is
        due (the shell keeps one, the earliest, so each tick asks again)."""
        fx: list[Effect] = []
        deck = self.deck
        if deck is not None and deck.playing:  # (first: a deck message that came pays its debt)
            owed = deck.owed(endpoint)
            if owed is not None:
                fx += self.owe(DECK_DEBT, owed, Refusal.STALLED, now)
        fx += [PeerOverdue(what, code) for what, code in self.debts.due(now)]
        fx += self.counted.tick(_conn(endpoint), now)
        fx += self.live.due(now, linked=endpoint is not None)
        wakes = [t for t in (self.debts.next_deadline, self.live.grace_until) if t is not None]
        if deck is not None and deck.playing:
            wakes.append(now + deck.every)
        if wakes:
            fx.append(WakeAt(min(wakes)))
        return fx

    def stage(self, *, playing: bool, ended: bool) -> None:
        """Where the match is (the shell's life): ``playing``, moves may be made; ``ended``,
        it is over and its record closed (a private game's late outcome amends it)."""
        if self.deck is not None:
            self.deck.playing, self.deck.ended = playing, ended

    # -- what the peer holds -------------------------------------------------------

    def peer_holds(self, n: int) -> list[Effect]:
        """The peer holds the first ``n`` actions (it acknowledged them, or made one after
        them; a lower ``n`` changes nothing)."""
        if n <= self.held:
            return []
        self.held = n
        return [PeerHolds(n)]

    def acked(self, n: int, endpoint: Endpoint) -> list[Effect]:
        """The peer's ack of the first ``n`` actions over ``endpoint``: once it has our undo,
        that debt is paid, and an action kept for after the undo is made now."""
        fx = self.peer_holds(n)
        if not endpoint.takebacks.undo_unacked:
            self.debts.paid(UNDO_ACK)
        tb = self.takeback
        due, tb.due_after_undo = tb.due_after_undo, None
        return [*fx, MakeDue(due)] if due is not None else fx

    # -- taking back (docs/protocol.md, *Taking back*) -----------------------------

    def ask_takeback(self, endpoint: Endpoint | None) -> tuple[Played, list[Effect]]:
        """Ask the peer over ``endpoint`` to let us take back our last move of this turn:
        the move asked about, and the request sent (IllegalMoveError, nothing sent, if it
        cannot be taken back now).  The answer comes to :meth:`takeback_received`."""
        core = self.core
        why: Illegal | None = core.takeback_refusal(core.seat)
        if why is None:
            if endpoint is None or endpoint.phase is not Phase.PLAY or endpoint.catching_up:
                why = TakebackOffline()
            elif endpoint.takebacks.asking:
                why = TakebackWaiting()
            elif endpoint.takebacks.asked >= MAX_TAKEBACKS:
                why = TooManyTakebacks(MAX_TAKEBACKS)
        if why is not None or endpoint is None:
            raise IllegalMoveError([], why or TakebackOffline())
        played = core.match.last_played()
        assert played is not None
        endpoint.send_takeback_request()
        self.takeback.asking = played
        return played, self._sent()

    def answer_takeback(self, yes: bool, endpoint: Endpoint | None) -> tuple[bool, list[Effect]]:
        """The driver's answer to the peer's request (TakebackAsked), over the connection
        of the moment (None: none, or the session stopped).  False, nothing sent: it is
        void (never asked, answered already, the peer played on, or the connection it
        came on is gone)."""
        tb = self.takeback
        req, tb.peer_request = tb.peer_request, None
        if req is None or endpoint is not req[0] or endpoint.phase is not Phase.PLAY:
            return False, []
        return endpoint.answer_takeback(req[1], yes), self._sent()

    def undo_waits(self, endpoint: Endpoint | None) -> bool:
        """Must an action of ours wait?  Until the peer has acknowledged our last undo, or a
        new connection (``endpoint``, the one of the moment) settled it, so that both
        histories go on from the same action."""
        tb = self.takeback
        if tb.undo_on is None:
            return False
        if endpoint is not None and (endpoint is not tb.undo_on or not endpoint.takebacks.undo_unacked):
            tb.undo_on = None
            return False
        return True

    def acting(self) -> None:
        """We make an action: it voids our request."""
        self.takeback.asking = None

    def peer_acted(self) -> list[Effect]:
        """The peer made an action (committed): it voids its request, and it holds every
        action before it."""
        self.takeback.peer_request = None
        return self.peer_holds(self.core.position)

    def action_due(self, endpoint: Endpoint, action: Action) -> list[Effect]:
        """An action of ours is due (ActionDue): made now, or kept until the peer has our
        undo."""
        if endpoint.takebacks.undo_unacked:
            self.takeback.due_after_undo = action
            return []
        return [MakeDue(action)]

    def takeback_received(
        self, ev: TakebackRequested | TakebackAnswered | TakenBack, endpoint: Endpoint, now: float
    ) -> list[Effect]:
        """The peer's request (shown, or answered by our standing rule), its answer to ours
        (a yes: taken back, written down, the undo sent, its ack owed), or its undo (written
        down, acknowledged, shown)."""
        core, tb = self.core, self.takeback
        peer = 1 - core.seat
        if isinstance(ev, TakebackRequested):
            if tb.takebacks is Takebacks.ASK:
                tb.peer_request = (endpoint, ev.n)
                return [Show(TakebackAsked(peer, ev.played))]
            endpoint.answer_takeback(ev.n, tb.takebacks is Takebacks.ALWAYS, rule=True)
            return self._sent()
        if isinstance(ev, TakenBack):  # (done in the core by the endpoint, its tape noted)
            fx: list[Effect] = [*self.tape(), Withdraw(ev.n)]
            endpoint.acknowledge()
            return [*fx, *self._sent(), *self._taken_back(peer, ev.played)]
        tb.asking = None
        if not ev.ok:
            return [Show(TakebackRefused(peer, rule=ev.rule))]
        n = ev.n
        if core.position - 1 != n or core.takeback_refusal(core.seat) is not None:
            return []  # (cannot happen: our action after the request voided it)
        fx = self.tape()  # (the tape so far: the journal started afresh holds it once)
        played = core.take_back(core.seat)
        fx.append(Withdraw(n))
        endpoint.send_undo(n)
        fx += self._sent()
        tb.undo_on = endpoint
        # our next action waits for the peer's ack of the undo: a debt with a deadline, which
        # its pings do not put off (a link lost forgives it: the next sync settles the undo)
        stalled = Stalled(self.peer_name, Owed.UNDO_ACK, UNDO_ACK_DEADLINE)
        fx += self.owe(UNDO_ACK, stalled, Refusal.STALLED, now)
        return fx + self._taken_back(core.seat, played)

    def takeback_lost(self) -> list[Effect]:
        """The connection is lost: the peer asks again, if it still wants to; our request
        is gone (shown refused)."""
        tb = self.takeback
        tb.peer_request = tb.due_after_undo = None
        if tb.asking is None:
            return []
        tb.asking = None
        return [Show(TakebackRefused(1 - self.core.seat, lost=True))]

    def _taken_back(self, seat: int, played: Played) -> list[Effect]:
        self.held = min(self.held, self.core.position)  # the action taken back is nobody's now
        return [*(Show(ev) for ev in self.core.taken_back(seat, played)), Unseen()]

    def _sent(self) -> list[Effect]:
        """What the endpoint queued goes (after the tape it may depend on)."""
        return [*self.tape(), Flush()]

    # -- the connection of the moment: the peer's catch-up, a resignation asked for ----

    def owe_catch_up(self, endpoint: Endpoint | None, seconds: float, now: float) -> list[Effect]:
        """The peer's sync claimed actions we lack: each must come within ``seconds`` of
        the one before (its pings do not put it off; owed already: its deadline holds)."""
        if endpoint is None or not endpoint.catching_up:
            return []
        return self.owe(CATCH_UP, Stalled(self.peer_name, Owed.CATCH_UP, seconds), Refusal.POSITION, now)

    def caught_action(self, endpoint: Endpoint, seconds: float, now: float, *, closed: bool) -> list[Effect]:
        """An action the peer's sync claimed came: the next has its deadline afresh; after
        the last, a resignation we asked for is asked again."""
        if not self.debts.owes(CATCH_UP):
            return []
        self.debts.paid(CATCH_UP)
        if endpoint.catching_up:
            return self.owe_catch_up(endpoint, seconds, now)
        return self.resign_again(endpoint, closed=closed)

    def resign_pending(self, endpoint: Endpoint | None, *, closed: bool) -> list[Effect]:
        """A new connection (not catching up): a resignation we asked for while the
        connection was down (or before a crash) is ours to make if we are on turn, else
        asked again.  (While it catches up the endpoint makes it due itself: ActionDue.)"""
        g = self.core.match.game
        if not self._resigning(closed) or (endpoint is not None and endpoint.catching_up):
            return []
        if g.turn == self.core.seat:
            return [MakeDue(Action(g.game, self.core.seat), unseen=False)]
        return self.resign_again(endpoint, closed=closed)

    def resign_again(self, endpoint: Endpoint | None, *, closed: bool) -> list[Effect]:
        """Off turn in a game we asked to resign: the peer is asked (again) over
        ``endpoint``, if it plays (``closed``: the session is closed for play)."""
        g = self.core.match.game
        if not self._resigning(closed) or g.turn == self.core.seat:
            return []
        if endpoint is None or endpoint.phase is not Phase.PLAY:
            return []
        endpoint.send_resign_request(g.game)
        return self._sent()

    def _resigning(self, closed: bool) -> bool:
        """We asked to resign the game in play, and the match goes on."""
        core, g = self.core, self.core.match.game
        return not closed and not core.finished and g.result is None and g.game in core.requests

    # -- another match on this connection (docs/protocol.md, *Playing again*) ---------

    def rematch_answer(
        self, yes: bool, endpoint: Endpoint | None, ended: bool
    ) -> tuple[Rematch | None, list[Effect]]:
        """Our answer to another match, once the match has ``ended``, over ``endpoint``
        (None: no connection, or no next match may follow on it): how it settled at once
        (None: our yes waits for the peer's answer, then :meth:`SeatRematch.waited`), and
        the effects: our answer sent, the next match started if the peer said yes first."""
        rm = self.rematch
        if rm.ours is not None or not ended:
            return Rematch.NOT_OFFERED, []
        rm.ours = yes
        live = endpoint is not None and endpoint.phase is Phase.PLAY and not rm.gone
        fx: list[Effect] = []
        if live and rm.theirs is not False:
            assert endpoint is not None
            endpoint.send_rematch(yes)
            fx = self._sent()  # (our yes before the next match's hello)
            if yes:
                return None, fx + self._start_next()
        if rm.theirs is False:
            return Rematch.DECLINED, fx
        return (Rematch.GONE if yes else Rematch.NOT_OFFERED), fx

    def rematch_received(self, yes: bool) -> list[Effect]:
        """The peer's answer (checked by the endpoint: once, after the end, for this match):
        shown if we have not answered yet; a yes to our yes starts the next match."""
        rm = self.rematch
        rm.theirs = yes
        fx: list[Effect] = [Show(RematchAnswered(yes))] if rm.ours is None else []
        return fx + self._start_next()

    def _start_next(self) -> list[Effect]:
        rm = self.rematch
        if not rm.agreed or rm.started:
            return []
        rm.started = True
        return [StartNext()]

    def quiet(self) -> None:
        """Nothing more is told unasked (the match was handed on, or is closing)."""
        self.counted.stop()
        self.live.back()  # (no grace period either)

    def tape(self) -> list[Effect]:
        """A private deck's tape noted so far, to write down (DeckSide.tape)."""
        return self.deck.tape() if self.deck is not None else []


class SeatTakebacks:
    """A seat's takebacks across its connections (the seat machine's): how it answers the
    peer's requests (``takebacks``), whether the peer is the computer (the shell then waits
    for its answer), the peer's request waiting for the driver's answer (with the endpoint
    it came on), our own request waiting for the peer's answer, the endpoint our last undo
    went out on until the peer acknowledged it, and an action of ours due meanwhile."""

    def __init__(self) -> None:
        self.takebacks = Takebacks.ASK
        self.peer_answers_at_once = False
        self.peer_request: tuple[Endpoint, int] | None = None
        self.asking: Played | None = None
        self.undo_on: Endpoint | None = None
        self.due_after_undo: Action | None = None


def _conn(endpoint: Endpoint | None) -> WatcherCounts | None:
    return endpoint.watchers if endpoint is not None else None


__all__ = ["SeatMachine"]
