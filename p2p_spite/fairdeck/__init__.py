"""The private deck ("mental poker"): neither peer can see a hidden card.

Pure and sans-I/O like ``engine/``: no sockets, no asyncio, no clock.  A
:class:`FairDeck` is one seat's side of one game; the net layer feeds it the
peer's messages (``from_wire``) and sends what ``outgoing()`` returns
(``to_wire``).  See docs/fairness.md for the scheme, its parameters, costs
and limits.
"""

from .check import GameDeck
from .dealing import DeckStream, private_game
from .deck import FairDeck
from .errors import CheatError, FairDeckError, OrderError, ProofError, WireError
from .scheme import card_of_point, card_point
from .wire import MAX_WIRE, KeyShare, Message, Reveal, Shares, Shuffle, from_wire, to_wire

__all__ = [
    "MAX_WIRE",
    "CheatError",
    "DeckStream",
    "FairDeck",
    "FairDeckError",
    "GameDeck",
    "KeyShare",
    "Message",
    "OrderError",
    "ProofError",
    "Reveal",
    "Shares",
    "Shuffle",
    "WireError",
    "card_of_point",
    "card_point",
    "from_wire",
    "private_game",
    "to_wire",
]
