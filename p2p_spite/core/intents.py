"""The action under way in a private-deck game: announced, its cards shown, then made.

The seat on turn *announces* its next action (an intent: the move and, for a hand card,
its slot) before making it.  Its :class:`Pending` goes through three :class:`Stage` s:
both decks take the move's events and show the cards it shows (a completed center stack
is reshuffled jointly); the move is tried on a copy of the engine, to learn what it
draws and whether it ends the game; once the deck is settled it may be made.
:class:`Intents` holds it for a seat's :class:`~p2p_spite.core.private.PrivateDeck`
(which sends what the deck owes between the stages), checks the peer's intents before
any card is shown for them, and keeps a resignation the peer asked for meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from ..engine import CENTER, HAND, GameState, IllegalMoveError, Move
from ..fairdeck import FairDeck, OrderError
from ..fairdeck.table import HIDDEN, SeatGame
from .game import Action, GameCore
from .messages import DeckIntent
from .wire import Refusal, RemoteProtocolError


class InPlay:
    """The game whose deck is being played, which a seat's private deck and its parts share:
    ``game`` (0: none yet), its ``deck``, its ``table`` once the deal is shown, and
    ``dealt``, the last game whose deal the match plays on."""

    __slots__ = ("core", "game", "deck", "table", "dealt")

    def __init__(self, core: GameCore) -> None:
        self.core = core
        self.game = 0
        self.deck: FairDeck | None = None
        self.table: SeatGame | None = None
        self.dealt = 0

    @property
    def installed(self) -> bool:
        """The match's current game is dealt from this deck (its GameStarted is out)."""
        return self.dealt == self.core.match.game_number and self.table is not None


class Stage(IntEnum):
    """Where an announced action stands."""

    BEGUN = 0  # its cards are being shown
    TRIED = 1  # tried on a copy of the engine: its draws taken
    READY = 2  # settled: it may be made


@dataclass(slots=True)
class Pending:
    """An action announced and not yet made."""

    seat: int
    move: Move
    slot: int | None  # the hand card's slot
    stage: Stage = Stage.BEGUN
    at: int | None = None  # where the hand card was in the deck's hand (a takeback puts it back there)


class Intents:
    """Seat ``core.seat``'s view of the action under way in the game ``now`` (``pending``),
    whichever seat announced it."""

    def __init__(self, core: GameCore, now: InPlay) -> None:
        self.core = core
        self.now = now
        self.seat = core.seat
        self.other = 1 - core.seat
        self.pending: Pending | None = None
        self._asked = 0  # a game whose resignation the peer asked for while our move was under way

    def own_pending(self) -> Action | None:
        """Our action announced and not made yet (a restarted seat makes it: it is binding)."""
        p = self.pending
        if p is None or p.seat != self.seat:
            return None
        return Action(self.now.game, p.seat, p.move)

    def ready(self, action: Action) -> bool:
        """Is ``action`` announced, and every card it shows shown?"""
        p, now = self.pending, self.now
        if action.move is None:  # a resignation shows no card: it waits only for a quiet deck
            return p is None and now.installed and action.game == now.game
        return (
            p is not None
            and p.stage == Stage.READY
            and p.seat == action.seat
            and p.move == action.move
            and action.game == now.game
        )

    # -- announcing --------------------------------------------------------------------

    def announce(self, action: Action) -> Pending | None:
        """Our next action (checked legal by the caller), to announce: its Pending, or None
        if there is nothing to announce (announced already, or a resignation, which is
        made, not announced).  OrderError if the deck cannot take it now."""
        now = self.now
        if not now.installed or action.game != now.game:
            raise OrderError("the deal is not shown yet")
        if self.pending is not None:
            if self.pending.seat == action.seat and self.pending.move == action.move:
                return None  # announced already (the shell asks again after a reconnection)
            raise OrderError("another action is under way")
        move = action.move
        if move is None:
            return None  # a resignation is made, not announced: nothing is revealed before it is made
        deck, table = now.deck, now.table
        assert deck is not None and table is not None
        if not deck.settled:
            raise OrderError("cards are still being shown")
        return Pending(action.seat, move, table.slot_of(move))

    def take(self, msg: DeckIntent) -> None:
        """The peer, on turn, announces its next action (RemoteProtocolError: refuse it)."""
        now = self.now
        if not now.installed:
            raise RemoteProtocolError("an action announced before the deal is shown", Refusal.DECK_ORDER)
        deck, table = now.deck, now.table
        assert deck is not None and table is not None
        if deck.peer_revealed:  # (only a move announced before it may still be made)
            raise RemoteProtocolError("an action announced after its game secret", Refusal.DECK_ORDER)
        st = table.state
        if st.result is not None:
            raise RemoteProtocolError("an action announced after the game ended", Refusal.DECK_ORDER)
        if st.turn != self.other:
            raise RemoteProtocolError("an action announced by the seat that is not on turn", Refusal.FORGED)
        if self.pending is not None or not deck.settled:
            raise RemoteProtocolError("an action announced while another is under way", Refusal.DECK_ORDER)
        move, slot = msg.move, msg.slot
        if move.seat != self.other:
            raise RemoteProtocolError("an action announced for the other seat", Refusal.FORGED)
        if move.source == HAND:
            if slot is None or slot not in deck.hands[self.other]:
                raise RemoteProtocolError(
                    "deck: a hand move names a slot of the mover's hand", Refusal.DECK_ORDER
                )
            # a card both know (played, then taken back) lies in one slot, and that slot holds it
            shown, known = deck.card(slot), deck.shown_slot(move.arg) if type(move.arg) is int else None
            if (shown is not None and shown != move.arg) or (known is not None and known != slot):
                raise RemoteProtocolError(
                    f"the move names card {move.arg} in slot {slot}, but the deck shows "
                    f"{'card ' + str(shown) if shown is not None else 'it in slot ' + str(known)}",
                    Refusal.ILLEGAL_MOVE,
                )
        elif slot is not None:
            raise RemoteProtocolError("deck: only a hand move names a slot", Refusal.MALFORMED)
        # Check the move before any card is shown for it (an illegal pay-off move must
        # not make us show the card under the top): a hand card is taken as named here,
        # and checked against its share before the move is made.
        trial = self._trial(move, slot, move.arg if slot is not None else None)
        reason = trial.check(move)
        if reason is not None:
            raise RemoteProtocolError(f"an illegal move announced: {reason}", Refusal.ILLEGAL_MOVE)
        self.begin(Pending(self.other, move, slot))

    # -- the engine's events, in the same order on both seats ------------------------------

    def _trial(self, move: Move, slot: int | None, card: int | None) -> GameState:
        """A copy of the engine with every shown card in place (and ``card`` for the stand-in of ``slot``)."""
        table = self.now.table
        assert table is not None
        trial = table.state.copy()
        table.refresh(trial)
        if slot is not None and card is not None:
            hand = trial.hands[move.seat]
            if HIDDEN + slot in hand:
                hand[hand.index(HIDDEN + slot)] = card
        return trial

    def begin(self, p: Pending) -> None:
        """``p`` is announced: the deck takes its events (the cards it shows are to be shown)."""
        deck, table = self.now.deck, self.now.table
        assert deck is not None and table is not None and p.move is not None
        try:
            seat, source, arg, target, index = p.move
            if source == HAND:
                assert p.slot is not None
                hand = deck.hands[seat]
                p.at = hand.index(p.slot) if p.slot in hand else None
                deck.play_hand(seat, p.slot, target, index)
            elif p.move.source == "payoff":
                deck.play_payoff(seat, index)
            else:
                assert arg is not None
                deck.play_side(seat, arg, index)
            if target == CENTER and 0 <= index < 3 and len(table.state.center[index]) == 11:
                deck.complete(index)
        except OrderError as e:
            raise RemoteProtocolError(
                f"an action the private deck cannot take: {e}", Refusal.DECK_ORDER
            ) from None
        self.pending = p

    def _try(self, p: Pending) -> None:
        """Its cards are shown and any reshuffle made: try the move on a copy of the
        engine, and let the deck draw what it draws (and end the game if it does)."""
        deck = self.now.deck
        assert deck is not None
        card = deck.card(p.slot) if p.slot is not None else None
        if p.slot is not None and card != p.move.arg:
            raise RemoteProtocolError(
                f"the move names card {p.move.arg}, but slot {p.slot} holds card {card}", Refusal.ILLEGAL_MOVE
            )
        trial = self._trial(p.move, p.slot, card)
        before = [len(h) for h in trial.hands]
        try:
            trial.apply(p.move)
        except IllegalMoveError as e:
            raise RemoteProtocolError(
                f"an illegal move announced: {e.reason}", Refusal.ILLEGAL_MOVE
            ) from None
        if p.slot is not None:
            before[p.seat] -= 1
        for s in (0, 1):
            for stand_in in trial.hands[s][before[s] :]:
                slot = deck.draw(s)
                if stand_in != HIDDEN + slot:  # the engine and the deck disagree: a bug, not the peer
                    raise AssertionError(f"the engine drew {stand_in}, the deck slot {slot}")
        if trial.result is not None:
            deck.end()
        p.stage = Stage.TRIED

    def advance(self) -> bool:
        """Try the action under way if its cards are shown and no reshuffle runs: True if
        it was (the deck then owes what it draws)."""
        deck, p = self.now.deck, self.pending
        assert deck is not None
        shown = p is not None and (p.slot is None or deck.card(p.slot) is not None)
        if p is not None and p.stage == Stage.BEGUN and not deck.shuffling and shown:
            self._try(p)
            return True
        return False

    def settle(self) -> bool:
        """The action tried and the deck settled (and, if it ends the game, the deck
        checked, or a seat left): it may be made.  True if it just became ready."""
        deck, p = self.now.deck, self.pending
        assert deck is not None
        if (
            p is not None
            and p.stage == Stage.TRIED
            and deck.settled
            and (not deck.over or deck.result or deck.left)
        ):
            p.stage = Stage.READY
            return True
        return False

    # -- a resignation the peer asks for -----------------------------------------------------

    def resign_requested(self, game: int) -> bool:
        """The peer, off turn, asks us (on turn) to make its resignation of ``game``: True if
        we can now; else (our own announced move is under way) it is made once that move is."""
        if self.pending is None:
            return True
        self._asked = game
        return False

    def due_request(self) -> Action | None:
        """The peer's resignation asked for while our move was under way, once it can be made."""
        g = self.core.match.game
        if self._asked != g.game or self.pending is not None or g.result is not None or self.core.finished:
            return None
        if g.turn != self.seat:
            self._asked = 0  # the turn passed to the peer: it resigns itself
            return None
        self._asked = 0
        return self.core.check_resign(self.other, self.seat)
