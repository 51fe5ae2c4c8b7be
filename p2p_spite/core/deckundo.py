"""Taking back a move in a private-deck game: the deck's side of it (docs/fairness.md,
*Taking back*).

Only a move that showed its mover no card can be taken back (the engine's rule): a hand
card to a center -- shown to both when it was played, so going back into the hand it
is known to both, and nothing new is revealed -- or a side-stack card to a center,
which shows nothing.  Both seats do the same to their decks, in the same order: the
card's slot leaves the center's top and goes back where it came from (the hand, at the
index it left; the side stack), so both decks are again exactly as before the move.
Nothing is sent for it but the ``undo`` of a seeded match (its digest is the private
state's).  :class:`DeckUndo` keeps, for a seat's
:class:`~p2p_spite.core.private.PrivateDeck`, the moves of the turn in play whose deck
events can be rolled back, and the last one rolled back: if the connection dropped
before the peer had the undo, the peer catches this seat up with that move (its own,
with its tag), and the deck makes its events again without a message (no share is
owed: both were sent).
"""

from __future__ import annotations

from ..engine import HAND, Played
from ..engine import refusals as no
from ..engine.refusals import Illegal
from .game import Action
from .intents import InPlay, Intents, Pending


class DeckUndo:
    """Seat ``intents.seat``'s takebacks in the game ``now``: ``made``, the moves of the
    turn in play (their intents, oldest first), and ``undone``, the one last taken back
    (until another action is announced or made)."""

    def __init__(self, now: InPlay, intents: Intents) -> None:
        self.now = now
        self.intents = intents
        self.seat = intents.seat
        self.made: list[Pending] = []
        self.undone: Pending | None = None

    def reset(self) -> None:
        """A new game: nothing to take back."""
        self.made.clear()
        self.undone = None

    def committed(self, p: Pending | None) -> None:
        """An action was made (``p``: its intent; None: a resignation): the moves of the turn
        so far, if the turn goes on."""
        self.undone = None
        table = self.now.table
        assert table is not None
        st = table.state
        if p is None or st.result is not None or st.turn != p.seat:
            self.made.clear()
        else:
            self.made.append(p)

    def refusal(self, played: Played) -> Illegal | None:
        """Why the deck cannot take back ``played`` (the rules allow it) now (None: it can)."""
        deck = self.now.deck
        if deck is None or not self.now.installed:
            return no.DeckBusy()
        if deck.over or deck.left:
            return no.GameIsOver()
        if self.intents.pending is not None or not deck.settled:
            return no.DeckBusy()
        if not self.made or self.made[-1].move != played.move:
            return no.NothingToTakeBack()
        return None

    def take_back(self, played: Played) -> None:
        """Roll the deck back over ``played`` (checked: :meth:`refusal`), as the engine did."""
        deck = self.now.deck
        assert deck is not None and self.refusal(played) is None
        p = self.made.pop()
        seat, source, arg, _target, center = p.move
        slot = deck.center[center][-1]
        if source == HAND:
            assert p.slot == slot and p.at is not None
            deck.take_back(seat, slot, center, hand_at=p.at, side=None)
        else:
            deck.take_back(seat, slot, center, hand_at=None, side=arg)
        self.undone = p

    def redo(self, action: Action) -> bool:
        """Our own move last taken back comes back (the peer never had the undo: it catches us
        up with it): its deck events again, with nothing to send.  False: not that move."""
        p = self.undone
        if p is None or p.seat != self.seat or action.move != p.move or self.intents.pending is not None:
            return False
        if action.game != self.now.game:
            return False
        self.undone = None
        self.intents.begin(Pending(p.seat, p.move, p.slot))
        return True
