"""The rules of Spite & Malice: pure, deterministic, no I/O.

``GameState.legal_moves()`` and ``GameState.apply(move)`` are the heart; a seat
sees a game only through ``view(state, seat)``.
"""

from .cards import ACE, KING, QUEEN, Card, card_str, card_symbol, parse_card, rank, suit
from .match import DEFAULT_TARGET, Match, MatchOverError, new_seed
from .moves import CENTER, HAND, PAYOFF, SIDE, Move, Pile, move_from_json
from .refusals import Illegal
from .rng import Stream, parse_seed
from .rules import fits, needs, stands_for
from .state import (
    DRAW_STOCK,
    WIN_PAYOFF,
    WIN_RESIGN,
    EndReason,
    GameOverError,
    GameState,
    IllegalMoveError,
    Played,
    Result,
    RulesError,
)
from .view import PlayerView, PublicView, public_view, view, world_from_view

__all__ = [
    "ACE",
    "CENTER",
    "DEFAULT_TARGET",
    "DRAW_STOCK",
    "HAND",
    "KING",
    "PAYOFF",
    "QUEEN",
    "SIDE",
    "WIN_PAYOFF",
    "WIN_RESIGN",
    "Card",
    "EndReason",
    "GameOverError",
    "GameState",
    "Illegal",
    "IllegalMoveError",
    "Match",
    "MatchOverError",
    "Move",
    "Pile",
    "Played",
    "PlayerView",
    "PublicView",
    "Result",
    "RulesError",
    "Stream",
    "card_str",
    "card_symbol",
    "fits",
    "move_from_json",
    "needs",
    "new_seed",
    "parse_card",
    "parse_seed",
    "public_view",
    "rank",
    "stands_for",
    "suit",
    "view",
    "world_from_view",
]
