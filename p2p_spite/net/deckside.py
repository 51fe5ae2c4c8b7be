"""A private-deck match's side of a :class:`~.session.NetSession`: the deck's way
out (the session's link of the moment), its deadlines, and the waits of a match's
end on the peer's secret (docs/protocol.md, *The private deck*).  None of it runs in
a match without a private deck."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

from ..contracts.errors import StorageError, storage_problem
from ..contracts.news import Owed as OwedKind
from ..contracts.news import RecordNotAmended, SecretNotRevealed, Stalled
from ..contracts.session import Event, Notice
from ..core.game import Action, GameCore
from ..core.machine import SeatMachine
from ..core.messages import DeckBody
from ..core.private import PrivateDeck
from ..core.protocol import Phase
from ..core.wire import Refusal
from ..engine import IllegalMoveError
from ..fairdeck import OrderError
from ..storage.keeper import RecordKeeper
from .link import Link

REVEAL_WAIT = 10.0  # seconds a private match's end waits for the peer's secret after a resignation
DECK_DEADLINE = 30.0  # seconds a private-deck message the peer owes may take (pings do not count)
DECK_CHECK = 1.0  # seconds between two looks at that deadline
DECK_DEBT = "deck"  # the debt of a private-deck peer that owes a deck message (SeatMachine.debts)


class DeckSession(Protocol):
    """What the private deck's side reads of its :class:`~.session.NetSession`."""

    core: GameCore
    machine: SeatMachine
    keeper: RecordKeeper | None
    peer_name: str

    @property
    def link(self) -> Link | None: ...

    @property
    def ended(self) -> bool: ...

    @property
    def closed_for_play(self) -> bool: ...

    def put(self, ev: Event) -> None: ...

    def owe(self, key: str, what: Stalled, code: Refusal) -> None: ...


class DeckSide:
    """The private deck of ``session``'s match.  As the deck's port, what it sends goes
    on the link of the moment; what it sends while the link is lost goes again after
    the reconnection (PrivateDeck.resync)."""

    def __init__(self, session: DeckSession, deck: PrivateDeck) -> None:
        self.session = session
        self.deck = deck
        self.wake = asyncio.Event()  # the deck moved on (or the session stopped)
        self._ahead = False  # work ahead is scheduled
        self._watch: asyncio.Task[None] | None = None
        deck.on_outcome = self._outcome_came
        with contextlib.suppress(RuntimeError):  # (no event loop: nothing to wait for)
            self._watch = asyncio.get_running_loop().create_task(self._watch_deck())

    # -- the deck's port ------------------------------------------------------------

    def send_message(self, msg: DeckBody) -> None:
        link = self.session.link
        if link is not None and link.endpoint.phase is Phase.PLAY:
            link.endpoint.send_message(msg)
            link.flush()
        self._work_ahead_soon()

    def push_event(self, ev: Event) -> None:
        self.session.put(ev)

    # -- what the session asks ------------------------------------------------------

    def stop(self) -> None:
        self.wake.set()
        if self._watch is not None:
            self._watch.cancel()

    def write_pending(self) -> None:
        """The one place the private deck's tape is written down (core/private.py queues
        it, it does no I/O): a secret fsynced, each entry before anything that depends on
        it is sent (Link.flush calls this before the bytes leave) and before the action
        made after it.  StorageError if the journal cannot be written."""
        entries = self.deck.take_unwritten()
        keeper = self.session.keeper
        if keeper is not None:
            for e in entries:
                keeper.deck_tape(e)

    async def announced(self, action: Action) -> bool:
        """Announce ``action`` and wait until the cards it shows are shown (False: the
        session stopped meanwhile)."""
        deck, session = self.deck, self.session
        if deck.left:
            return False  # a seat left this game (its secret is revealed): the peer's bye follows
        try:
            deck.announce(action)
        except OrderError as e:
            raise IllegalMoveError(action.move or [], str(e)) from None
        deck.on_change = self.wake.set
        while not deck.ready(action):
            if session.closed_for_play:
                return False
            self.wake.clear()
            await self.wake.wait()
        return not session.closed_for_play and not deck.left  # (a leave came meanwhile: no more moves)

    async def wait_reveal(self) -> None:
        """The match ended on a resignation: the peer's secret of the last game follows
        the action.  Wait for it (at most REVEAL_WAIT seconds, pings do not count), then
        put it in the record, or say plainly that it did not come."""
        deck, session = self.deck, self.session
        await self._wait_secret(REVEAL_WAIT, give_up=False)
        game = deck.awaiting_reveal
        if game is not None:
            deck.give_up_reveal()
            session.put(Notice(SecretNotRevealed(session.peer_name, game)))
            self.late_outcome()

    async def leave(self) -> None:
        """Leaving in the middle of a game: the game is over for us, so we reveal our
        secret and wait (REVEAL_WAIT at most) for the peer's, to put the deck in the
        record.  Such a match cannot be resumed: its deck is known."""
        link = self.session.link
        if self.session.closed_for_play or link is None or link.endpoint.phase is not Phase.PLAY:
            return
        if self.deck.leave():
            await self._wait_secret(REVEAL_WAIT, give_up=True)

    async def _wait_secret(self, seconds: float, *, give_up: bool) -> None:
        """Wait (at most ``seconds``) while the peer's secret is awaited and the link is up
        (``give_up``: a leave, which also stops when the session does, and gives the
        secret up at the deadline)."""
        deck, session = self.deck, self.session
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while deck.awaiting_reveal is not None and session.link is not None:
            if give_up and session.closed_for_play:
                return
            left = deadline - loop.time()
            if left <= 0:
                if give_up:
                    deck.give_up_reveal()
                return
            self.wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), left)

    def late_outcome(self) -> None:
        """A private game's outcome set after the record was closed: put it in."""
        keeper = self.session.keeper
        if self.session.ended and keeper is not None:
            try:
                keeper.amend()
            except StorageError as e:
                self.session.put(Notice(RecordNotAmended(storage_problem(e))))

    # -- inside ---------------------------------------------------------------------

    def _outcome_came(self) -> None:
        self.wake.set()
        self.late_outcome()

    def _work_ahead_soon(self) -> None:
        """Once what was just sent is on its way, work ahead while the peer answers."""
        if not self._ahead:
            self._ahead = True
            asyncio.get_running_loop().call_soon(self._work_ahead)

    def _work_ahead(self) -> None:
        self._ahead = False
        if not self.session.closed_for_play:
            self.deck.work_ahead()

    async def _watch_deck(self) -> None:
        """Every wait on the peer's private deck has a deadline: while the peer owes a
        message (its key, pass, a share, its secret, an announced action whose cards are
        shown), each deck message or action it sends starts DECK_DEADLINE seconds afresh
        (a debt in the session's ``machine.debts``, which pings do not pay); none in time stops
        the match."""
        deck, session = self.deck, self.session
        mark: tuple[int, int, object] | None = None
        stalled = Stalled(session.peer_name, OwedKind.DECK, DECK_DEADLINE)
        while not session.closed_for_play:
            await asyncio.sleep(DECK_CHECK)
            link = session.link
            now = (deck.taken, session.core.position, link)
            owes = link is not None and link.endpoint.phase is Phase.PLAY and deck.owed_by_peer()
            if not owes or now != mark:
                session.machine.debts.paid(DECK_DEBT)
                mark = now
            if owes:
                session.owe(DECK_DEBT, stalled, Refusal.STALLED)


__all__ = ["DECK_CHECK", "DECK_DEADLINE", "REVEAL_WAIT", "DeckSide"]
