"""Two seats of a private-deck match in memory, every byte through the frames: each a
real Endpoint with its own GameCore and PrivateDeck, and a port a test may tamper with
(the hostile side is a modified program).  Used by tests/core/test_private_net.py and
tests/net/test_private_takeback.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from p2p_spite.bots import make_bot
from p2p_spite.contracts.session import Event
from p2p_spite.core.game import Action, GameCore
from p2p_spite.core.messages import HOST, JOIN, Deck, DeckBody
from p2p_spite.core.private import PrivateDeck
from p2p_spite.core.protocol import Endpoint, LocalConfig, Phase
from p2p_spite.core.wire import ProtocolError, Refusal
from p2p_spite.engine import Move
from p2p_spite.fairdeck import FairDeck
from p2p_spite.storage.keeper import RecordKeeper
from tests.support.net import pair, pump, settled

Tamper = Callable[[dict[str, Any]], list[dict[str, Any]]]


def deck_body(wire: dict[str, Any]) -> DeckBody:
    """A deck message from its wire map (checked as a receiver checks it)."""
    return Deck.from_wire(wire).body


class Seat:
    """One side: its endpoint, core and private deck, and the events it saw."""

    def __init__(self, ep: Endpoint, tape: RecordKeeper | None = None) -> None:
        self.ep = ep
        core = ep.core
        assert core is not None
        deck = PrivateDeck.of(core)
        assert deck is not None
        self.core: GameCore = core
        self.deck: PrivateDeck = deck
        self.events: list[Any] = []
        self.tamper: Tamper | None = None
        self.frames: list[dict[str, Any]] = []  # every deck message this side sent
        self.tape = tape
        self.deck.attach(self)

    def write_pending(self) -> None:
        """What the shell does before bytes leave (NetSession.write_pending)."""
        for e in self.deck.take_unwritten():
            if self.tape is not None:
                self.tape.deck_tape(e)

    def send_message(self, body: DeckBody) -> None:
        """The deck's way out: each message as its wire map (what a test tampers with)."""
        self.write_pending()
        msg = Deck(body).to_wire()
        for m in self.tamper(msg) if self.tamper is not None else [msg]:
            self.frames.append(m)
            self.ep.send_message(deck_body(m))

    def push_event(self, ev: Event) -> None:
        self.events.append(ev)

    @property
    def fd(self) -> FairDeck:
        assert self.deck.now.deck is not None
        return self.deck.now.deck


class Table:
    def __init__(self, host_tape: RecordKeeper | None = None, games: int | None = None) -> None:
        host = LocalConfig(HOST, "Ann", private=True, max_games=games)
        h, j, eh, ej = pair(host, LocalConfig(JOIN, "Bob", private=True))
        assert h.phase is Phase.PLAY and j.phase is Phase.PLAY, (eh, ej)
        self.seats = [Seat(h, host_tape), Seat(j)]

    def pump(self) -> None:
        a, b = self.seats
        ea, eb = pump(a.ep, b.ep, rounds=10_000)
        a.write_pending()
        b.write_pending()
        a.events += ea
        b.events += eb

    def error(self, seat: int) -> ProtocolError | None:
        evs = self.seats[seat].events
        return evs[-1] if evs and isinstance(evs[-1], ProtocolError) else None

    def play(self, seat: int, move: Move | None) -> None:
        """``seat`` announces ``move`` (None: resigns), the deck messages flow, then it makes it."""
        s = self.seats[seat]
        core = s.core
        action = Action(core.match.game_number, seat, move)
        if move is not None:
            core.check_move(move, seat)
        s.deck.announce(action)
        self.pump()
        if not s.deck.ready(action) or self.error(0) or self.error(1):
            return  # refused (the error is in the events)
        s.events += settled(s.ep, core.commit(action))
        self.pump()

    def turn(self) -> int:
        return self.seats[0].core.match.game.turn

    def bots_play(self, moves: int) -> None:
        bots = [make_bot("easy", 1), make_bot("easy", 2)]
        for _ in range(moves):
            if any(self.error(s) for s in (0, 1)) or self.seats[0].core.finished:
                return
            g = self.seats[0].core.match.game
            if g.result is not None or not self.seats[0].deck.installed:
                return
            t = g.turn
            v = self.seats[t].core.view()
            assert v is not None  # (dealt: seat 0 has its deal installed, and so both)
            self.play(t, bots[t].choose(v))


@pytest.mark.slow
def deck_refused(t: Table, seat: int, code: Refusal) -> None:
    """Seat ``seat`` of ``t`` refused what it was sent, with ``code``."""
    e = t.error(seat)
    assert e is not None, f"seat {seat} took it"
    assert e.code == code, e
