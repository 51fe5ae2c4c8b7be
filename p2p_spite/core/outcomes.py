"""The end of a private-deck game: what the record says of its deck.

When a game ends (won, drawn, resigned, or left in the middle) both seats reveal their
game secrets and each checks the whole game (``FairDeck``'s end-of-game check): the
record then holds the game's :class:`~p2p_spite.fairdeck.GameDeck` -- or, if the check
caught a cheat, its evidence, or, if the peer never revealed its secret, a line that
says so.  :class:`Outcomes` keeps that for each game, and the previous game's deck while
the peer's secret of it is still to come.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from ..fairdeck import CheatError, FairDeck, GameDeck
from .intents import InPlay
from .wire import Refusal, RemoteProtocolError

# what a game's entry in the record holds: its deck, or the evidence of a cheat (None: not known yet)
GameOutcome = GameDeck | dict[str, Any] | None


class Outcomes:
    """Seat ``seat``'s outcomes, by game - 1 (``outcomes``: the record's decks, the same
    list for the whole match); ``prev``: the last game's deck, while the peer's secret of
    it is to come; ``came`` is called when an outcome is set (it may come late)."""

    def __init__(self, seat: int, now: InPlay, came: Callable[[], None]) -> None:
        self.other = 1 - seat
        self.now = now
        self.outcomes: list[GameOutcome] = []
        self.prev: FairDeck | None = None
        self._came = came

    def _pad(self, game: int) -> None:
        while len(self.outcomes) < game:
            self.outcomes.append(None)

    def moved(self) -> bool:
        """An action was made in the game in play (the engine applied it, the table shows
        it): True if it ended the game, whose deck (as far as it is known: after a
        resignation, both reveal now) goes into the record."""
        now = self.now
        table, deck = now.table, now.deck
        assert table is not None and deck is not None
        if deck.left and deck.result is not None:  # an action that crossed a leave: the deck with it
            try:
                again = deck.recheck()
            except CheatError as e:
                self.set(now.game, e.evidence)
            else:
                self.set(now.game, again)
        if table.state.result is None:
            return False
        if not deck.over:  # a resignation: now that it is made, both reveal (after_action)
            deck.end()
        self._pad(now.game)
        self.outcomes[now.game - 1] = deck.result
        return True

    def set(self, game: int, outcome: GameOutcome) -> None:
        """The outcome of ``game`` is known (a game left in the middle keeps only the
        reshuffles its moves made)."""
        self._pad(game)
        table = self.now.table
        if isinstance(outcome, GameDeck) and game == self.now.game and table is not None:
            # a game left in the middle: only the reshuffles its moves made (one may have been
            # made for a move announced and never made)
            outcome = GameDeck(outcome.deal, outcome.reshuffles[: table.state.stream.used])  # type: ignore[attr-defined]
        self.outcomes[game - 1] = outcome
        self._came()

    def convict(self, e: CheatError, game: int) -> NoReturn:
        """The deck caught a cheat in ``game``: its evidence goes into the record, and the
        peer is refused (RemoteProtocolError)."""
        self.set(game, e.evidence)
        if e.kind == "shuffle-proof":
            rnd = e.evidence.get("round")
            what = "the deal" if rnd == 0 else f"reshuffle {rnd}"
            raise RemoteProtocolError(
                f"its shuffle of {what} has no valid proof (seat {e.seat}): no card was shown for it, "
                "and the evidence is in the record",
                Refusal.BAD_SHUFFLE,
            )
        raise RemoteProtocolError(f"the private deck shows a cheat: {e}", Refusal.CHEAT)

    @property
    def awaiting_reveal(self) -> int | None:
        """The game whose end this seat has made and whose peer secret has not come yet
        (after a resignation the reveals follow the action), or None."""
        for deck in (self.prev, self.now.deck):
            if deck is not None and deck.over and deck.result is None:
                g = deck.head.game
                if g > len(self.outcomes) or self.outcomes[g - 1] is None:
                    return g
        return None

    def give_up_reveal(self) -> None:
        """The peer did not reveal its secret in time: the record says so instead of the deck."""
        g = self.awaiting_reveal
        if g is not None:
            self.give_up(g)

    def give_up(self, game: int) -> None:
        """The peer's secret of ``game`` will not come: the record says so."""
        self.set(
            game,
            {
                "kind": "unrevealed",
                "seat": self.other,
                "reason": f"seat {self.other} did not reveal its game secret, so the deck order of game "
                f"{game} is not known (every card shown was proven when it was shown)",
                "game": game,
            },
        )
        if self.prev is not None and self.prev.head.game == game:
            self.prev = None
