"""One seat's machine: what happens to the seat (an action made or received, a change
in how many watch, a debt the peer owes, a tick of the clock) taken to the list of
effects the shell carries out (:mod:`p2p_spite.core.effects`), in their order: for
an action, the one order the durability rule needs.  No I/O and no clock: the
protocol endpoint only queues bytes, nothing queued leaves before a
:class:`~p2p_spite.core.effects.Flush`, which comes after the writes it depends on,
and the time comes with each input that needs it.
"""

from __future__ import annotations

from ..news import Stalled
from .debts import Debts
from .deckside import DECK_DEBT, DeckSide
from .effects import Effect, Flush, MakeDurable, PeerOverdue, Show, WakeAt, WriteEntry
from .game import Committed, GameCore
from .handshake import Phase
from .private import PrivateDeck
from .protocol import ActionReceived, Endpoint
from .watchcount import CountTold, WatcherCounts
from .wire import Refusal


class SeatMachine:
    """The effects of what happens to one seat: its :class:`GameCore` (``core``), what the
    peer (``peer``: its name) owes it, and, the host's, how many watch (``watchers``: at
    most; 0: none).  A private deck's match has its side (``deck``: core/deckside.py)."""

    def __init__(self, core: GameCore, *, watchers: int = 0, peer: str = "") -> None:
        self.core = core
        self.counted = CountTold(watchers)  # how many watch, told to the joiner
        self.debts = Debts()  # what the peer owes on the connection of the moment
        deck = PrivateDeck.of(core)
        self.deck = DeckSide(deck, peer, self.debts) if deck is not None else None

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
        debts not paid by now, a count that waited; then the next wake-up, if one is
        due (the shell keeps one, the earliest, so each tick asks again)."""
        fx: list[Effect] = []
        deck = self.deck
        if deck is not None and deck.playing:  # (first: a deck message that came pays its debt)
            owed = deck.owed(endpoint)
            if owed is not None:
                fx += self.owe(DECK_DEBT, owed, Refusal.STALLED, now)
        fx += [PeerOverdue(what, code) for what, code in self.debts.due(now)]
        fx += self.counted.tick(_conn(endpoint), now)
        if (deadline := self.debts.next_deadline) is not None:
            fx.append(WakeAt(deadline))
        if deck is not None and deck.playing:
            fx.append(WakeAt(now + deck.every))
        return fx

    def stage(self, *, playing: bool, ended: bool) -> None:
        """Where the match is (the shell's life): ``playing``, moves may be made; ``ended``,
        it is over and its record closed (a private game's late outcome amends it)."""
        if self.deck is not None:
            self.deck.playing, self.deck.ended = playing, ended

    def quiet(self) -> None:
        """Nothing more is told unasked (the match was handed on, or is closing)."""
        self.counted.stop()

    def tape(self) -> list[Effect]:
        """A private deck's tape noted so far, to write down (DeckSide.tape)."""
        return self.deck.tape() if self.deck is not None else []


def _conn(endpoint: Endpoint | None) -> WatcherCounts | None:
    return endpoint.watchers if endpoint is not None else None


__all__ = ["SeatMachine"]
