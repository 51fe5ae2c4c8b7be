"""Computer against computer in one process (no network)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..engine import Match, view
from . import Bot


def play_match(
    match: Match,
    bots: Sequence[Bot],
    max_games: int | None = None,
    on_game_over: Callable[[Match], None] | None = None,
) -> Match:
    """Play ``match`` with ``bots[seat]`` until it is decided or ``max_games`` are done."""
    while True:
        game = match.game
        while game.result is None:
            seat = game.turn
            match.apply(bots[seat].choose(view(game, seat)))
        if on_game_over is not None:
            on_game_over(match)
        if match.over or (max_games is not None and match.game_number >= max_games):
            return match
        match.next_game()
