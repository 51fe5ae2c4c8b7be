"""A what-if: a recorded match taken up again at any of its positions.

:func:`whatif_match` builds, from a verified match (:func:`p2p_spite.storage.record.verify`),
a fresh :class:`~p2p_spite.engine.Match` standing at game ``game`` after its first
``pos`` moves: the same seed, deal and stock, the scores of the games before, and the
earlier games known by their results only.  Play goes on from there under the same
rules; the engine being deterministic from the seed and the moves, every hidden card
(the stock, the pay-off piles, a reshuffle's order) is as it was in the record for as
long as the same moves are made, and as the seed deals it after that.

A private-deck record (docs/fairness.md) reveals each game's whole deal (``deck``: all
104 cards in SPEC's layout) and the reshuffles that game made, no more: a reshuffle of
other cards (a different line of play completes other centers) has no order in the
record.  :class:`OpenDeckStream` then shuffles from the match seed's stream, as a
seeded game would (:data:`PRIVATE_NOTE` is what the interface says of it).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ..engine import Match
from ..engine.cards import Card
from ..engine.rng import Stream
from ..engine.state import WIN_RESIGN
from ..fairdeck.dealing import DeckStream


class OpenDeckStream(DeckStream):
    """A private deck's stream in a what-if: each reshuffle takes the record's next order
    when it is an order of the very cards being shuffled, else (and from then on) a
    shuffle of the match seed's stream."""

    __slots__ = ()

    @classmethod
    def of(cls, s: DeckStream, seed: bytes, game: int) -> OpenDeckStream:
        out = cls(seed, game, s.orders)
        out.index, out.used = s.index, s.used
        return out

    def copy(self) -> OpenDeckStream:
        other = OpenDeckStream.__new__(OpenDeckStream)
        other._key, other._prefix, other.index = self._key, self._prefix, self.index
        other.orders, other.used = self.orders, self.used
        return other

    def shuffle(self, items: list[Card]) -> None:
        if self.used < len(self.orders) and sorted(self.orders[self.used]) == sorted(items):
            super().shuffle(items)
            return
        self.used = len(self.orders)  # (the record's orders no longer apply)
        Stream.shuffle(self, items)


@dataclass(frozen=True, slots=True)
class WhatIfStart:
    """Where a what-if starts: game ``game`` after ``pos`` of its moves (see :func:`start_of`)."""

    game: int
    pos: int


class NoPositionToPlay(ValueError):
    """A position no game goes on from: the match was over there, or (``private``) the
    game after it is one the record does not hold, and a private deck's record reveals
    no deal but those of its games."""

    def __init__(self, why: str, private: bool = False) -> None:
        super().__init__(why)
        self.private = private


def start_of(match: Match, game: int, pos: int) -> WhatIfStart:
    """The position a what-if from (``game``, ``pos``) starts at: that one, or, at the end
    of a game the moves ended (a win, an empty stock), the next game's deal (after the
    record's last game: as the seed deals it).  NoPositionToPlay when the match was
    decided there, or that deal is a private deck's the record does not reveal."""
    moves = match.moves[game - 1]
    if not 0 <= pos <= len(moves):
        raise ValueError(f"game {game} has no position {pos}")
    st = match.fresh_game(game)
    for m in moves[:pos]:
        st.apply(m)
    if st.result is None:
        return WhatIfStart(game, pos)  # (a resignation after these moves is not made)
    if game < len(match.moves):
        return WhatIfStart(game + 1, 0)
    if match.over:
        raise NoPositionToPlay(f"the match ends with game {game}")
    if isinstance(st.stream, DeckStream):
        raise NoPositionToPlay(f"the record reveals no deal for game {game + 1}", private=True)
    return WhatIfStart(game + 1, 0)  # (dealt from the seed, as the match would have gone on)


def whatif_match(match: Match, game: int, pos: int, players: tuple[str, str] | None = None) -> Match:
    """A match standing where ``match`` (every game kept) stood at game ``game`` after
    ``pos`` moves: the earlier games played as recorded (their results and scores), this
    game's deal and moves; ``players``: its names (default the record's).  A private
    deck's stream becomes an :class:`OpenDeckStream`.  ValueError if that game is over
    there (see :func:`start_of`)."""
    recorded = len(match.moves)
    if not match.keeps_all or not 1 <= game <= recorded + (pos == 0):
        raise ValueError(f"no game {game} in this match")
    out = Match(match.seed, match.target, players or match.players)
    for n in range(1, game + 1):
        if n > 1:
            out.next_game()
        out.use_deal(functools.partial(match.fresh_game, n))
        moves = match.moves[n - 1] if n <= recorded else []
        for m in moves if n < game else moves[:pos]:
            out.apply(m)
        result = match.results[n - 1] if n < game else None
        if out.game.result is None and result is not None and result.reason == WIN_RESIGN:
            out.resign(1 - result.winner)  # type: ignore[operator]
    st = out.game
    if st.result is not None:
        raise ValueError(f"game {game} is over after {pos} moves")
    if isinstance(st.stream, DeckStream):
        st.stream = OpenDeckStream.of(st.stream, match.seed, game)
    return out


__all__ = ["NoPositionToPlay", "OpenDeckStream", "WhatIfStart", "start_of", "whatif_match"]
