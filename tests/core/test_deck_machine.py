"""The private deck's side of the seat machine (core/deckside.py), driven directly:
no asyncio, no socket, the clock injected.  Two real endpoints in memory, each with
its core and private deck; a seat's shell here carries out the machine's effects in
their order, as NetSession._perform does (a write that fails stops the list, and
what was queued is dropped), and lets bytes go only at a ``Flush``."""

from __future__ import annotations

from typing import Any

import pytest

from p2p_spite.contracts.news import Owed, SecretNotRevealed
from p2p_spite.contracts.session import Event, Notice
from p2p_spite.core import deckside
from p2p_spite.core.effects import Effect, Flush, PeerOverdue, Show, WakeAt, WorkAhead, WriteEntry, WriteTape
from p2p_spite.core.machine import SeatMachine
from p2p_spite.core.messages import HOST, JOIN, DeckBody
from p2p_spite.core.private import PrivateDeck
from p2p_spite.core.protocol import Endpoint, LocalConfig, Phase
from p2p_spite.core.tape import TapeEntry, TapeKind
from p2p_spite.core.wire import ProtocolError, Refusal, encode
from p2p_spite.fairdeck import Reveal, to_wire
from p2p_spite.fairdeck.wire import Header
from tests.support.net import drain, pair


class Shell:
    """One seat: its endpoint and seat machine, the effects carried out in order.  The
    tape writer fails on demand (``failing``); ``wire`` holds the bytes let go, to the
    peer; ``log`` what was done, in order.  ``mute``: a modified peer whose deck sends
    nothing (it keeps its connection, and its pings)."""

    def __init__(self, ep: Endpoint, *, mute: bool = False, failing: bool = False) -> None:
        assert ep.core is not None
        self.ep = ep
        self.core = ep.core
        self.machine = SeatMachine(ep.core, peer_name="peer")
        deck = PrivateDeck.of(ep.core)
        assert deck is not None and self.machine.deck is not None
        self.deck = deck
        self.side = self.machine.deck
        self.mute = mute
        self.failing = failing
        self.tape: list[TapeEntry] = []
        self.wire = bytearray()
        self.log: list[str] = []
        self.events: list[Any] = []
        deck.attach(self)

    # the deck's port (NetSession._deck_sent)
    def send_message(self, msg: DeckBody) -> None:
        if not self.mute:
            self.perform(self.side.sent(msg, self.ep))

    def push_event(self, ev: Event) -> None:
        self.events.append(ev)

    def perform(self, effects: list[Effect]) -> bool:
        for fx in effects:
            if isinstance(fx, WriteTape):
                if self.failing:
                    self.ep.data_to_send()  # dropped: it may depend on what could not be written
                    self.log.append("failed")
                    return False
                self.tape.append(fx.entry)
                self.log.append("tape")
            elif isinstance(fx, WriteEntry):
                self.log.append("entry")
            elif isinstance(fx, Flush):
                self.wire += self.ep.data_to_send()
                self.log.append("flush")
            elif isinstance(fx, Show):
                self.events.append(fx.event)
        return True

    def receive(self, data: bytes) -> None:
        """Bytes from the peer, as Link.pump takes them: the events handled, then what the
        endpoint queued meanwhile (pongs, acks) let go."""
        self.ep.receive_data(data)
        drain(self.ep, self.events)
        self.wire += self.ep.data_to_send()

    def take(self) -> bytes:
        out, self.wire = bytes(self.wire), bytearray()
        return out

    def error(self) -> ProtocolError | None:
        e = self.events[-1] if self.events else None
        return e if isinstance(e, ProtocolError) else None


def _table(games: int = 2, *, mute: int | None = None) -> tuple[Shell, Shell]:
    h, j, _eh, _ej = pair(
        LocalConfig(HOST, "Ann", private=True, max_games=games), LocalConfig(JOIN, "Bob", private=True)
    )
    assert h.phase is Phase.PLAY and j.phase is Phase.PLAY
    return Shell(h, mute=mute == 0), Shell(j, mute=mute == 1)


def _exchange(a: Shell, b: Shell) -> None:
    for _ in range(10_000):
        moved = False
        for src, dst in ((a, b), (b, a)):
            data = src.take()
            if data:
                moved = True
                dst.receive(data)
        if not moved:
            return
    raise AssertionError("the seats never went quiet")


def test_a_deck_message_sent_on_its_own_is_written_to_the_tape_before_its_bytes_can_go() -> None:
    """The deal's first message (our KEY, outside any action) comes after our secret on
    the tape: the effects write it, then let the bytes go, then work ahead."""
    h, _j, _eh, _ej = pair(LocalConfig(HOST, "Ann", private=True), LocalConfig(JOIN, "Bob", private=True))
    machine = SeatMachine(h.core, peer_name="Bob") if h.core is not None else None
    assert machine is not None and machine.deck is not None
    deck = PrivateDeck.of(machine.core)
    assert deck is not None
    seen: list[list[Effect]] = []

    class Port:
        def send_message(self, msg: DeckBody) -> None:
            assert machine is not None and machine.deck is not None
            seen.append(machine.deck.sent(msg, h))

        def push_event(self, ev: Event) -> None:
            pass

    deck.attach(Port())
    first = seen[0]
    kinds = [type(fx) for fx in first]
    assert kinds == [WriteTape, Flush, WorkAhead], kinds
    tape = first[0]
    assert isinstance(tape, WriteTape) and tape.entry.kind is TapeKind.SECRET and tape.entry.game == 1
    key = h.data_to_send()
    assert key, "the KEY is queued for the Flush, not sent by the machine"
    assert all(WorkAhead not in map(type, fx) for fx in seen[1:]), "one WorkAhead at a time"


def test_a_deck_message_whose_tape_cannot_be_written_never_leaves() -> None:
    """A failing tape writer: the list stops at the write, the KEY queued behind it is
    dropped, and the peer gets no byte of it."""
    h, j, _eh, _ej = pair(LocalConfig(HOST, "Ann", private=True), LocalConfig(JOIN, "Bob", private=True))
    a = Shell(h, failing=True)  # its first write, the secret before the KEY, fails
    assert a.log[0] == "failed" and "flush" not in a.log, a.log
    assert a.take() == b"" and h.data_to_send() == b""
    b = Shell(j)
    _exchange(a, b)
    assert b.deck.taken == 0  # nothing of the host's deck reached the joiner
    assert a.tape == []


def test_a_deck_message_sent_during_an_action_goes_after_the_actions_entry() -> None:
    """A resignation's secret is sent while the action settles: the list writes the
    action's entry before the Flush that lets both go (the machine holds the deck's
    own Flush meanwhile)."""
    a, b = _table(games=2)
    _exchange(a, b)
    assert a.deck.installed and b.deck.installed
    mover = a if a.core.match.game.turn == a.core.seat else b
    action = mover.core.check_resign(mover.core.seat)
    assert mover.side.announce(action) and mover.side.ready(action) is True
    mover.log.clear()
    done = mover.core.commit(action)
    fx = mover.machine.settle(done, mover.ep)
    kinds = [type(f) for f in fx]
    assert Flush in kinds and kinds.index(WriteEntry) < kinds.index(Flush), kinds
    assert mover.log == [], "nothing was let go while the action settled"
    assert mover.ep.data_to_send(), "the action and the reveal wait for the list's Flush"


def _resigned(games: int) -> tuple[Shell, Shell]:
    """The first game dealt, then resigned by the seat on turn (the honest side); the
    other (the hostile side) is muted from then on: it never reveals."""
    a, b = _table(games=games)
    _exchange(a, b)
    assert a.deck.installed and b.deck.installed
    honest = a if a.core.match.game.turn == a.core.seat else b
    hostile = b if honest is a else a
    hostile.mute = True
    action = honest.core.check_resign(honest.core.seat)
    assert honest.side.announce(action)
    done = honest.core.commit(action)
    assert honest.perform(honest.machine.settle(done, honest.ep))
    honest.perform(honest.machine.deal())
    _exchange(honest, hostile)
    assert honest.error() is None and hostile.error() is None
    return honest, hostile


def test_a_peer_that_never_reveals_is_given_up_at_the_deadline_while_it_pings_and_chats() -> None:
    honest, hostile = _resigned(games=2)
    assert honest.deck.owed_by_peer() and honest.deck.ends.prev is not None  # its secret of game 1
    t0 = 1000.0
    fx = honest.machine.linked(honest.ep, t0)
    assert WakeAt(t0 + deckside.DECK_CHECK) in fx
    now, k = t0, 0
    overdue: list[PeerOverdue] = []
    while not overdue:
        now += deckside.DECK_CHECK
        assert now <= t0 + deckside.DECK_DEADLINE + 2 * deckside.DECK_CHECK, "never given up"
        hostile.ep.send_ping(k)  # alive, and chatting now and then: neither pays the debt
        if k % 10 == 0:
            hostile.ep.send_chat(f"still here ({k})")
        k += 1
        honest.receive(hostile.ep.data_to_send())
        assert honest.error() is None
        fx = honest.machine.tick(honest.ep, now)
        overdue = [f for f in fx if isinstance(f, PeerOverdue)]
        assert any(isinstance(f, WakeAt) for f in fx), "each tick asks for the next"
    assert now >= t0 + deckside.DECK_DEADLINE, now - t0
    (late,) = overdue
    assert late.what.owed is Owed.DECK and late.code is Refusal.STALLED
    assert late.what.seconds == deckside.DECK_DEADLINE


def test_a_deck_message_from_the_peer_starts_its_deadline_afresh() -> None:
    """The debt is paid by what the peer sends of the deck, not by the clock: a deal that
    moves on is never given up, however long it takes."""
    a, b = _table(games=1)
    honest = a
    honest.machine.linked(honest.ep, 0.0)
    now = 0.0
    fx = honest.machine.tick(honest.ep, now)  # the joiner owes its KEY from the start
    assert honest.machine.debts.owes(deckside.DECK_DEBT)
    now += deckside.DECK_DEADLINE - 1
    _exchange(a, b)  # its messages come (the whole deal)
    fx = honest.machine.tick(honest.ep, now)
    fx += honest.machine.tick(honest.ep, now + deckside.DECK_DEADLINE)
    assert not [f for f in fx if isinstance(f, PeerOverdue)]


def test_the_end_of_a_match_waits_for_the_secret_only_so_long_then_says_so() -> None:
    """A one-game match resigned: its end waits REVEAL_WAIT for the peer's secret (the
    shell's timer: secret_wait says how long is left), then gives it up, tells the
    driver, and amends the record once it is closed."""
    honest, _hostile = _resigned(games=1)
    side = honest.side
    assert honest.deck.awaiting_reveal == 1
    honest.machine.stage(playing=False, ended=True)
    side.await_reveal(50.0)
    assert side.secret_wait(True, 50.0) == deckside.REVEAL_WAIT
    assert side.secret_wait(True, 55.0) == pytest.approx(deckside.REVEAL_WAIT - 5)
    assert side.secret_wait(True, 50.0 + deckside.REVEAL_WAIT) is None
    fx = side.reveal_missed()
    assert fx[0] == Show(Notice(SecretNotRevealed("peer", 1)))
    assert [type(f).__name__ for f in fx[1:]] == ["Amend"]
    assert honest.deck.awaiting_reveal is None and side.reveal_missed() == []


def _reveal(s: Shell, game: int) -> bytes:
    """``s``'s secret of game 1 as a reveal of ``game``, as the wire carries it."""
    (entry,) = [e for e in s.deck.tape.entries if e.kind is TapeKind.SECRET and e.game == 1]
    return to_wire(Reveal(Header(s.core.match_id, game, s.core.seat), entry.secret))


@pytest.mark.parametrize("attack", ["twice", "wrong game", "early", "twice in a game"])
def test_a_reveal_twice_early_or_for_the_wrong_game_is_refused(attack: str) -> None:
    """After the first game's resignation the peer owes its secret of game 1: sent twice
    (the second under the next number), or labelled as game 2's, it is refused; so is a
    reveal of game 2 while game 1 is played, and a second reveal after a leave (a reveal
    in the middle of a game is a leave: once)."""
    if attack in ("early", "twice in a game"):
        honest, hostile = _table(games=2)
        _exchange(honest, hostile)
        n = len(honest.deck.mail._received[1])
        if attack == "early":
            frames = [{"t": "deck", "g": 2, "i": 0, "b": _reveal(hostile, 2)}]
        else:
            frames = [{"t": "deck", "g": 1, "i": n + k, "b": _reveal(hostile, 1)} for k in (0, 1)]
    else:
        honest, hostile = _resigned(games=2)
        n = len(honest.deck.mail._received[1])
        if attack == "twice":
            frames = [{"t": "deck", "g": 1, "i": n + k, "b": _reveal(hostile, 1)} for k in (0, 1)]
        else:
            frames = [
                {"t": "deck", "g": 2, "i": len(honest.deck.mail._received[2]), "b": _reveal(hostile, 2)}
            ]
    for k, frame in enumerate(frames):
        honest.receive(encode(frame))
        if k < len(frames) - 1:
            assert honest.error() is None, (attack, honest.error())  # the first is taken
    e = honest.error()
    assert e is not None, f"{attack}: taken"
    assert e.code is Refusal.DECK_ORDER, (attack, e)
