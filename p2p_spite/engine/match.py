"""A match: games to a target score, all from one seed (SPEC section 1)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from typing import Any

from . import refusals as no
from . import takeback
from .moves import Move, as_move
from .refusals import Illegal
from .rng import SEED_BYTES
from .state import WIN_RESIGN, GameState, IllegalMoveError, Played, Result, RulesError

DEFAULT_TARGET = 50


class MatchOverError(RulesError):
    """An action on a match that is already decided."""


def new_seed() -> bytes:
    """A fresh random match seed (for a match nobody needs to agree on)."""
    return secrets.token_bytes(SEED_BYTES)


class Match:
    """The games of a match, their moves and the scores.

    ``games[-1]`` is the game being played.  When it ends, the scores are
    updated; the next game starts only when :meth:`next_game` is called, so a
    driver can show the finished game first.

    ``games`` and ``moves`` hold every game, or, after :meth:`keep_current_only`,
    only the current one (its number is ``first_kept``): a long match played over
    the network then keeps of its finished games only their results.
    """

    def __init__(
        self,
        seed: bytes,
        target: int = DEFAULT_TARGET,
        players: Sequence[str] = ("", ""),
    ) -> None:
        if len(seed) != SEED_BYTES:
            raise ValueError(f"a seed is {SEED_BYTES} bytes, not {len(seed)}")
        if type(target) is not int or target < 1:
            raise ValueError(f"the target must be a positive integer, not {target!r}")
        self.seed = seed
        self.target = target
        self.players = (str(players[0]), str(players[1]))
        self.scores = [0, 0]
        self.games: list[GameState] = [GameState.deal(seed, 1)]
        self.moves: list[list[Move]] = [[]]
        self.first_kept = 1  # the number of games[0]
        self._dropped: list[Result | None] = []  # the results of the games no longer kept
        self._dropped_moves = 0
        self._current_only = False
        self._dealers: dict[int, Callable[[], GameState]] = {}
        # what the moves of the current turn did, in order (from the discard that began it):
        # what taking them back needs.  Empty: none known (a move applied without play()).
        self._turn: list[Played] = []

    @property
    def game(self) -> GameState:
        return self.games[-1]

    @property
    def game_number(self) -> int:
        return self.first_kept - 1 + len(self.games)

    @property
    def results(self) -> list[Result | None]:
        """Every game's result (None: still being played)."""
        return [*self._dropped, *(g.result for g in self.games)]

    @property
    def keeps_all(self) -> bool:
        """Are all the games' states and moves kept (see :meth:`keep_current_only`)?"""
        return self.first_kept == 1

    @property
    def winner(self) -> int | None:
        """The seat that reached the target, if any."""
        for seat in (0, 1):
            if self.scores[seat] >= self.target:
                return seat
        return None

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def total_moves(self) -> int:
        return self._dropped_moves + sum(len(m) for m in self.moves)

    def keep_current_only(self) -> None:
        """From now on keep only the current game's state and moves: the finished games
        are forgotten but for their results (``results``, ``scores`` and ``total_moves``
        still cover the whole match).  Memory then stays flat however long the match."""
        self._current_only = True
        self._forget_finished()

    def _forget_finished(self) -> None:
        k = len(self.games) - 1
        if k <= 0:
            return
        self._dropped.extend(g.result for g in self.games[:k])
        self._dropped_moves += sum(len(m) for m in self.moves[:k])
        del self.games[:k]
        del self.moves[:k]
        self.first_kept += k
        for n in [n for n in self._dealers if n < self.first_kept]:
            del self._dealers[n]

    def apply(self, move: Sequence[Any]) -> Move:
        """Play a move in the current game; return it as a Move."""
        game = self.games[-1]
        game.apply(move)
        m = as_move(move)  # 5 items: apply checked
        self.moves[-1].append(m)
        self._turn.clear()
        if game.result is not None:
            self._score(game.result)
        return m

    def took(self, moves: Sequence[Sequence[Any]]) -> None:
        """The moves a caller just applied to the current game itself, in order, each
        accepted by :meth:`GameState.apply` (a record replayed on the hot path): kept
        as the game's moves, and its result scored if they ended it."""
        self.moves[-1].extend(map(as_move, moves))
        self._turn.clear()
        result = self.games[-1].result
        if result is not None:
            self._score(result)

    def play(self, move: Sequence[Any]) -> Played:
        """:meth:`apply`, returning what the move did (:meth:`GameState.play`)."""
        game = self.games[-1]
        played = game.play(move)
        self.moves[-1].append(played.move)
        if played.turn_passed:
            self._turn.clear()
        self._turn.append(played)
        if played.result is not None:
            self._score(played.result)
        return played

    def takeback_refusal(self, seat: int) -> Illegal | None:
        """Why ``seat`` cannot take back the last move of the current game now (None: it
        can): only the seat on turn can, a move of its turn under way that showed it no
        card (:meth:`GameState.takeback_refusal`)."""
        game = self.game
        last = self._turn[-1] if self._turn else None
        if game.result is not None:
            return no.GameIsOver()
        if game.turn != seat:
            if last is not None and last.move.seat == seat and last.turn_passed:
                return no.EndedTurn()
            return no.NotYourTurn(game.turn, seat)
        if last is None or last.move.seat != seat:
            return no.NothingToTakeBack()
        return takeback.refusal(game, last)

    def last_played(self) -> Played | None:
        """What the last move of the current turn did (None: no move this turn, or not known)."""
        return self._turn[-1] if self._turn else None

    def take_back(self, seat: int) -> Played:
        """``seat`` takes back the last move of the current game: the game is exactly as
        before it, and the move is no longer among the game's moves.  Returns what the
        move had done.  IllegalMoveError (nothing changed) if it cannot (:meth:`takeback_refusal`)."""
        why = self.takeback_refusal(seat)
        if why is not None:
            last = self.last_played()
            raise IllegalMoveError(last.move if last is not None else [], why)
        played = self._turn[-1]
        takeback.take_back(self.game, played)
        self._turn.pop()
        self.moves[-1].pop()
        return played

    def resign(self, seat: int) -> Result:
        result = self.game.resign(seat)
        self._score(result)
        return result

    def _score(self, result: Result) -> None:
        if result.winner is not None:
            self.scores[result.winner] += result.points

    def undo(self) -> None:
        """Take back the last action of the current game: its last move, or its
        resignation.  The game is dealt again and its other moves replayed, so
        the result is exactly the state before that action."""
        game, moves = self.game, self.moves[-1]
        result = game.result
        if result is None or result.reason != WIN_RESIGN:
            if not moves:
                raise RulesError("nothing to take back in this game")
            moves.pop()
        if result is not None and result.winner is not None:
            self.scores[result.winner] -= result.points
        fresh = self.fresh_game(self.game_number)
        for m in moves:
            fresh.apply(m)
        self.games[-1] = fresh
        self._turn.clear()

    def use_deal(self, dealer: Callable[[], GameState]) -> None:
        """Deal the current game, before its first move, with ``dealer`` instead
        of from the seed (a private deck: docs/fairness.md).  ``dealer()`` gives
        the same fresh game each time it is called."""
        if self.moves[-1] or self.game.result is not None:
            raise RulesError("only a game with no move yet can be dealt again")
        fresh = dealer()
        if fresh.game != self.game_number:
            raise ValueError(f"that deal is of game {fresh.game}, not {self.game_number}")
        self._dealers[self.game_number] = dealer
        self.games[-1] = fresh
        self._turn.clear()

    def fresh_game(self, number: int) -> GameState:
        """Game ``number`` as it was dealt, before any move."""
        dealer = self._dealers.get(number)
        return dealer() if dealer is not None else GameState.deal(self.seed, number)

    def next_game(self) -> GameState:
        """Deal the next game once the current one is over."""
        if self.over:
            raise MatchOverError("the match is over")
        if self.game.result is None:
            raise RulesError("the current game is still being played")
        self.games.append(GameState.deal(self.seed, self.game_number + 1))
        self.moves.append([])
        self._turn.clear()
        if self._current_only:
            self._forget_finished()
        return self.game
