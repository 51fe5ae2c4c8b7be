"""The private deck's side of a seat machine (docs/protocol.md, *The private deck*):
what the deck sends on its own, its work ahead, the deadline on what the peer owes,
the waits of a match's end on the peer's secret, a late outcome and leaving, each an
input of :class:`~p2p_spite.core.machine.SeatMachine` (``machine.deck``) that
returns effects or says what to wait for.  No I/O and no clock: the time comes with
each input, and the shell (net/session.py) keeps only the timers and the futures.
None of it runs in a match without a private deck."""

from __future__ import annotations

from ..contracts.news import Owed, SecretNotRevealed, Stalled
from ..contracts.session import Notice
from ..engine import IllegalMoveError
from ..fairdeck import OrderError
from .debts import Debts
from .effects import Amend, Effect, Flush, Show, WorkAhead, WriteTape
from .game import Action
from .handshake import Phase
from .messages import DeckBody
from .private import PrivateDeck
from .protocol import Endpoint

REVEAL_WAIT = 10.0  # seconds a private match's end waits for the peer's secret after a resignation
DECK_DEADLINE = 30.0  # seconds a private-deck message the peer owes may take (pings do not count)
DECK_CHECK = 1.0  # seconds between two looks at that deadline
DECK_DEBT = "deck"  # the debt of a private-deck peer that owes a deck message (SeatMachine.debts)


class DeckSide:
    """Seat ``deck.seat``'s private deck as the seat machine sees it.  ``playing``: moves
    may be made; ``ended``: the match is over and its record closed (the shell says
    when either changes: :meth:`SeatMachine.stage`)."""

    def __init__(self, deck: PrivateDeck, peer: str, debts: Debts) -> None:
        self.deck = deck
        self.peer = peer
        self.debts = debts
        self.playing = True
        self.ended = False
        self.held = False  # inside one of the machine's inputs: its list lets what is sent go
        self._ahead = False  # a WorkAhead is out
        self._mark: tuple[int, int, Endpoint | None] | None = None  # what moved, at the last look
        self._secret: tuple[float, bool] | None = None  # the wait for the peer's secret: until, leaving

    # -- what the deck sends ----------------------------------------------------------

    def tape(self) -> list[Effect]:
        """The tape entries noted since the last look, to write down before anything
        that depends on them is sent or made (core/private.py queues them; a secret is
        fsynced before the KEY behind it goes)."""
        return [WriteTape(e) for e in self.deck.take_unwritten()]

    def sent(self, msg: DeckBody, endpoint: Endpoint | None) -> list[Effect]:
        """The deck sends ``msg`` (core/private.py's port): queued on ``endpoint`` if it
        plays (else it goes in the resync after a reconnection, PrivateDeck.resync); the
        tape noted so far is written before the Flush that lets it go, then the deck
        works ahead while the peer answers.  Inside another input (:attr:`held`) that
        input's own list writes and flushes, after its own writes."""
        if endpoint is not None and endpoint.phase is Phase.PLAY:
            endpoint.send_message(msg)
        if self.held:
            return []
        fx = [*self.tape(), Flush()]
        if not self._ahead:
            self._ahead = True
            fx.append(WorkAhead())
        return fx

    def ahead(self) -> None:
        """A :class:`~p2p_spite.core.effects.WorkAhead`'s turn: our proven shares of the
        next cards made now, while the peer answers (nothing is sent)."""
        self._ahead = False
        if self.playing:
            self.deck.work_ahead()

    # -- our actions -----------------------------------------------------------------

    def announce(self, action: Action) -> bool:
        """Announce our ``action`` (checked legal; what it sends goes out through
        :meth:`sent`).  False: a seat left this game (both secrets are revealed, the
        peer's bye follows): no more moves.  IllegalMoveError if the deck cannot take it
        now."""
        if self.deck.left:
            return False
        try:
            self.deck.announce(action)
        except OrderError as e:
            raise IllegalMoveError(action.move or [], str(e)) from None
        return True

    def ready(self, action: Action) -> bool | None:
        """The announced ``action``: True once the cards it shows are shown (make it),
        False while they are not (wait for the deck to move), None if it is not to be
        made (the match stopped, or a leave came meanwhile)."""
        if not self.playing:
            return None
        if not self.deck.ready(action):
            return False
        return None if self.deck.left else True

    # -- what the peer owes -----------------------------------------------------------

    def owed(self, endpoint: Endpoint | None) -> Stalled | None:
        """A look at the deadline (every DECK_CHECK seconds while playing): what the peer
        owes us on ``endpoint``, if anything -- a deck message (its key, pass, a share, its
        secret) or an announced action whose cards are shown -- for
        :meth:`SeatMachine.owe`.  Each deck message or action it sends starts
        DECK_DEADLINE afresh (its debt paid here); pings do not."""
        deck = self.deck
        mark = (deck.taken, deck.core.position, endpoint)
        owes = endpoint is not None and endpoint.phase is Phase.PLAY and deck.owed_by_peer()
        if not owes or mark != self._mark:
            self.debts.paid(DECK_DEBT)
            self._mark = mark
        return Stalled(self.peer, Owed.DECK, DECK_DEADLINE) if owes else None

    @property
    def every(self) -> float:
        """Seconds between two looks at the deadline."""
        return DECK_CHECK

    # -- the end of a match ------------------------------------------------------------

    def await_reveal(self, now: float) -> None:
        """The match ended on a resignation: the peer's secret of the last game follows
        the action; the shell waits for it (:meth:`secret_wait`) at most REVEAL_WAIT."""
        self._secret = (now + REVEAL_WAIT, False)

    def leave(self, endpoint: Endpoint | None, now: float) -> bool:
        """Leaving in the middle of a game: the game is over for us, so our secret is
        revealed (sent through :meth:`sent`).  True: the shell waits (:meth:`secret_wait`,
        REVEAL_WAIT at most) for the peer's, to put the deck in the record.  Such a match
        cannot be resumed: its deck is known."""
        if not self.playing or endpoint is None or endpoint.phase is not Phase.PLAY:
            return False
        if not self.deck.leave():
            return False
        self._secret = (now + REVEAL_WAIT, True)
        return True

    def secret_wait(self, linked: bool, now: float) -> float | None:
        """Seconds the shell still waits for the peer's secret (at most until the deck
        moves); None: no more -- it came, the link is lost, a leave's session stopped,
        or the deadline passed (a leave then gives the secret up)."""
        if self._secret is None:
            return None
        until, leaving = self._secret
        if self.deck.awaiting_reveal is None or not linked or (leaving and not self.playing):
            self._secret = None
            return None
        if until <= now:
            self._secret = None
            if leaving:
                self.deck.give_up_reveal()
            return None
        return until - now

    def reveal_missed(self) -> list[Effect]:
        """After the wait of a match's end: a secret that did not come is given up, said
        plainly, and the record amended."""
        game = self.deck.awaiting_reveal
        if game is None:
            return []
        self.deck.give_up_reveal()
        return [Show(Notice(SecretNotRevealed(self.peer, game))), *self.outcome()]

    def outcome(self) -> list[Effect]:
        """A game's outcome was set (core/private.py's ``on_outcome``): after the record
        was closed, it goes in."""
        return [Amend()] if self.ended else []


__all__ = ["DECK_CHECK", "DECK_DEADLINE", "DECK_DEBT", "REVEAL_WAIT", "DeckSide"]
