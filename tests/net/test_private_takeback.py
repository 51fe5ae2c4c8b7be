"""Taking back in a private-deck match (docs/fairness.md, *Taking back*): two real
endpoints in memory, each with its own GameCore and PrivateDeck, every byte through the
frames (tests/core/test_private_net.py's Table), then two sessions over 127.0.0.1 with their
records on disk.

A takeback puts a shown hand card back into its holder's hand (or a side-stack card back
on its stack): both decks go back exactly as they were, the digest agrees, nothing is
shown or sent for it, and a card played again owes no share.  The hostile side is the
requester, a modified program that lies where it likes; each lie is refused with its
code, and the honest side's deck and engine are as they were."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.bots import make_bot
from p2p_spite.contracts.session import GameStarted, MoveTakenBack, TakebackAsked
from p2p_spite.core.game import Action
from p2p_spite.core.messages import DeckBytes, TakebackRequest
from p2p_spite.core.private import PrivateDeck, public_digest
from p2p_spite.core.protocol import (
    MAX_TAKEBACKS,
    Endpoint,
    Handshaken,
    LocalConfig,
    TakebackAnswered,
    TakebackRequested,
    TakenBack,
)
from p2p_spite.core.tape import TapeKind
from p2p_spite.core.wire import Refusal, RemoteProtocolError, encode
from p2p_spite.engine import HAND, PAYOFF, SIDE, Move, Played, PlayerView
from p2p_spite.engine import refusals as no
from p2p_spite.fairdeck import GameDeck, Shares, from_wire
from p2p_spite.fairdeck.table import HIDDEN
from p2p_spite.net import HostSettings, JoinSettings, host_session, join_session
from p2p_spite.net.connect import _core_from_saved
from p2p_spite.net.session import NetSession
from p2p_spite.storage import record
from p2p_spite.storage.resume import load_saved
from tests.support.net import drain, next_of, pump
from tests.support.positions import quiet_moves
from tests.support.privatetable import Seat, Table, deck_refused


def _v(view: PlayerView | None) -> PlayerView:
    """A seat's view, once its deal is shown (None before: a private deal has no view)."""
    assert view is not None
    return view


def _snap(s: Seat) -> tuple[object, ...]:
    """What a seat's deck and engine are (its own numbering of deck messages aside)."""
    d = s.fd
    c = s.core
    return (
        [h[:] for h in d.hands],
        [p[:] for p in d.center],
        [[p[:] for p in sd] for sd in d.sides],
        [p[:] for p in d.payoff],
        d.stock[:],
        d.settled,
        public_digest(c.match.game),
        c.position,
        c.head,
        c.match.game.hands[c.seat][:],  # (the other hand: stand-ins, but a card taken back is known)
        [len(h) for h in c.match.game.hands],
    )


def _to_quiet(t: Table, most: int = 400) -> tuple[Seat, Seat, list[Move]]:
    """Bots play until the seat on turn has a move it can take back: (it, the other, its quiet moves)."""
    bots = [make_bot("easy", 1), make_bot("easy", 2)]
    for _ in range(most):
        on = t.seats[t.turn()]
        q = quiet_moves(on.core.match)
        if q:
            return on, t.seats[1 - t.turn()], q
        t.play(t.turn(), bots[t.turn()].choose(_v(on.core.view())))
        assert t.error(0) is None and t.error(1) is None
    raise AssertionError("no quiet move came")


def _take_back(t: Table, on: Seat, off: Seat) -> None:
    """``on`` asks, ``off`` allows, ``on`` takes back (tests/support/net.drain does the rest)."""
    n = on.core.position - 1
    on.ep.send_takeback_request()
    t.pump()
    assert any(isinstance(e, TakebackRequested) and e.n == n for e in off.events)
    assert off.ep.answer_takeback(n, True)
    t.pump()
    assert any(isinstance(e, TakebackAnswered) and e.ok for e in on.events)
    assert any(isinstance(e, TakenBack) for e in off.events)
    assert t.error(0) is None and t.error(1) is None


def _finish_and_verify(t: Table, seat: int) -> None:
    """``seat`` resigns the game: both reveal, both check the whole game, and the record
    (version 2, with the deck) checks move for move."""
    t.play(seat, None)
    assert t.error(0) is None and t.error(1) is None
    a, b = t.seats
    deck = a.deck.outcomes[0]
    assert isinstance(deck, GameDeck) and deck == b.deck.outcomes[0]
    for s in t.seats:
        data = record.to_json(s.core.match, private=s.deck.outcomes)
        assert data["version"] == 2
        record.verify(record.from_json(json.loads(record.dumps(data))))


def test_a_hand_card_taken_back_rolls_both_decks_back_and_plays_again_with_no_share() -> None:
    t = Table(games=1)
    t.pump()
    on, off = t.seats[t.turn()], t.seats[1 - t.turn()]
    on, off, q = _to_quiet(t)
    before = [_snap(s) for s in t.seats]
    m = q[0]
    slot = on.fd.slot_of(m.arg)  # type: ignore[arg-type]
    assert off.fd.card(slot) is None  # hidden from the other seat until it is played
    t.play(on.core.seat, m)
    assert off.fd.card(slot) == m.arg  # played: shown to both
    sent = (len(on.frames), len(off.frames))
    _take_back(t, on, off)
    assert (len(on.frames), len(off.frames)) == sent  # nothing of the deck sent for it
    assert [_snap(s) for s in t.seats] == before
    # the card is back in its holder's hand, in its slot, known to both: nothing new to anyone
    assert on.fd.card(slot) == off.fd.card(slot) == m.arg
    assert m.arg in off.core.match.game.hands[on.core.seat]  # (the other's engine: the card, no stand-in)
    assert sum(c < HIDDEN for c in off.core.match.game.hands[on.core.seat]) == 1
    tape = on.deck.tape.entries[-1]
    assert tape.kind is TapeKind.UNDO and tape.at == on.core.position + 1
    assert off.deck.tape.entries[-1].kind is TapeKind.UNDO
    # played again: its intent, and no share (both were sent the first time)
    t.play(on.core.seat, m)
    assert (len(on.frames), len(off.frames)) == (sent[0] + 1, sent[1])
    assert on.core.position == off.core.position and on.core.head == off.core.head
    assert public_digest(on.core.match.game) == public_digest(off.core.match.game)
    _finish_and_verify(t, t.turn())


def test_back_to_the_turns_start_then_the_card_to_a_side_stack() -> None:
    """Two moves taken back one by one; then the card shown goes to a side stack (a
    discard): the end-of-game check and the record accept a shown card returned to hand."""
    t = Table(games=1)
    t.pump()
    for _ in range(20):
        on, off, q = _to_quiet(t)
        if len(q) >= 2:
            break
        t.play(on.core.seat, q[0])
        t.play(on.core.seat, next(m for m in _v(on.core.view()).legal_moves() if m.target == SIDE))
    else:  # about 0.6 of turns have fewer: 20 in a row is a 1-in-30,000 deal
        raise AssertionError("no turn with two quiet moves in 20 turns")
    before = [_snap(s) for s in t.seats]
    for m in q[:2]:
        t.play(on.core.seat, m)
    _take_back(t, on, off)
    _take_back(t, on, off)
    assert [_snap(s) for s in t.seats] == before
    # what was sent for the moves taken back goes, after a reconnection, before the action now in their place
    assert all(r.at <= on.core.position for s in t.seats for r in s.deck.mail.sent)
    card = q[0].arg
    t.play(on.core.seat, Move(on.core.seat, HAND, card, SIDE, 0))
    assert t.error(0) is None and t.error(1) is None
    assert on.core.match.game.turn == off.core.seat
    _finish_and_verify(t, t.turn())


def test_an_undo_lost_with_the_connection_leaves_the_move_on_both_decks() -> None:
    """The requester took the move back, its deck too, but its undo never arrived: on the
    new connection the other side catches it up with the move (its own, with its tag), and
    its deck makes the move's events again with nothing sent: both decks hold the move."""
    t = Table(games=1)
    t.pump()
    on, off, q = _to_quiet(t)
    m = q[0]
    t.play(on.core.seat, m)
    standing = [_snap(s) for s in t.seats]
    n = on.core.position - 1
    on.ep.send_takeback_request()
    t.pump()
    assert off.ep.answer_takeback(n, True)
    on.ep.receive_data(off.ep.data_to_send())
    evs: list[Any] = []
    drain(on.ep, evs)  # it takes back (the core and the deck) and sends its undo ...
    assert any(isinstance(e, TakebackAnswered) for e in evs) and on.core.position == n
    on.ep.data_to_send()  # ... which is lost with the connection
    assert off.core.position == n + 1 and on.deck.undo.undone is not None
    eps = [Endpoint(LocalConfig(s.ep.hs.role, s.ep.config.name, private=True), s.core) for s in t.seats]
    for ep in eps:
        ep.initiate()
    got = pump(eps[0], eps[1])
    hello = [next(e for e in g if isinstance(e, Handshaken)) for g in got]
    t.seats = [Seat(ep) for ep in eps]  # (each deck's port is the new connection)
    for s, h in zip(t.seats, hello, strict=True):
        s.deck.resync(s.ep, h.peer_position)
    t.pump()
    assert t.error(0) is None and t.error(1) is None
    on, off = t.seats[on.core.seat], t.seats[off.core.seat]
    assert on.core.position == off.core.position == n + 1 and on.core.head == off.core.head
    assert [_snap(s) for s in t.seats] == standing
    _finish_and_verify(t, t.turn())


def test_an_undo_the_peer_acknowledged_cannot_come_back_at_a_sync() -> None:
    """The other side acknowledged the undo, then (hostile) claims at the next sync that it
    never had it: it tries to catch the requester up with the move taken back (the
    requester's own, with its own tag).  Refused (forged): the move stays taken back."""
    t = Table(games=1)
    t.pump()
    on, off, q = _to_quiet(t)
    t.play(on.core.seat, q[0])
    n = on.core.position - 1
    on.ep.send_takeback_request()
    t.pump()
    assert off.ep.answer_takeback(n, True)
    on.ep.receive_data(off.ep.data_to_send())
    evs: list[Any] = []
    drain(on.ep, evs)  # it takes back and sends its undo, which the hostile side reads ...
    assert any(isinstance(e, TakebackAnswered) for e in evs) and on.core.position == n
    on.ep.data_to_send()
    _raw_in(on, {"t": "ack", "n": n})  # ... and acknowledges, but keeps the move
    drain(on.ep, evs)
    assert not on.ep.takebacks.undo_unacked and off.core.position == n + 1
    after = _snap(on)
    eps = [Endpoint(LocalConfig(s.ep.hs.role, s.ep.config.name, private=True), s.core) for s in t.seats]
    for ep in eps:
        ep.initiate()
    got = pump(eps[0], eps[1])
    hello = [next(e for e in g if isinstance(e, Handshaken)) for g in got]
    t.seats = [Seat(ep) for ep in eps]
    for s, h in zip(t.seats, hello, strict=True):
        s.deck.resync(s.ep, h.peer_position)
    t.pump()
    deck_refused(t, on.core.seat, Refusal.FORGED)
    assert _snap(t.seats[on.core.seat]) == after


def _raw_in(s: Seat, msg: dict[str, Any]) -> None:
    s.ep.receive_data(encode(msg))


# -- hostile requesters ---------------------------------------------------------------------


def _raw(s: Seat, msg: dict[str, Any]) -> None:
    s.ep._out += encode(msg)


def _allowed(t: Table, on: Seat, off: Seat) -> int:
    """``on`` asked, ``off`` allowed; ``on``'s own side never takes it back (it is hostile)."""
    n = on.core.position - 1
    _raw(on, {"t": "takeback", "n": n})
    t.pump()
    assert off.ep.answer_takeback(n, True)
    off_out = off.ep.data_to_send()  # the answer, which the hostile side reads or not
    assert off_out
    return n


ATTACKS = [
    "intent-crosses-the-undo",
    "request-while-its-intent-is-under-way",
    "lying-digest",
    "digest-of-the-move-standing",
    "the-card-again-from-another-slot",
    "another-card-from-the-cards-slot",
    "its-share-again",
    "flood",
    "pay-off",
    "after-its-discard",
]


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_hostile_requester_is_refused_and_changes_nothing(attack: str) -> None:
    t = Table()
    t.pump()
    on, off, q = _to_quiet(t)
    seat = on.core.seat
    m = q[0]
    if attack == "pay-off":
        bots = [make_bot("easy", 1), make_bot("easy", 2)]
        for _ in range(400):
            on = t.seats[t.turn()]
            pay = [mv for mv in _v(on.core.view()).legal_moves() if mv.source == PAYOFF]
            if pay:
                break
            t.play(t.turn(), bots[t.turn()].choose(_v(on.core.view())))
        else:
            raise AssertionError("no pay-off move came in 400 moves")
        off = t.seats[1 - on.core.seat]
        t.play(on.core.seat, pay[0])
        assert t.seats[0].core.match.game.result is None  # (its first pay-off card: never its last)
        before = _snap(off)
        _raw(on, {"t": "takeback", "n": on.core.position - 1})
        t.pump()
        deck_refused(t, off.core.seat, Refusal.TAKEBACK)
        assert _snap(off) == before
        return
    if attack == "after-its-discard":
        t.play(seat, next(mv for mv in _v(on.core.view()).legal_moves() if mv.target == SIDE))
        before = _snap(off)
        _raw(on, {"t": "takeback", "n": on.core.position - 1})
        t.pump()
        deck_refused(t, off.core.seat, Refusal.UNEXPECTED)
        assert _snap(off) == before
        return
    t.play(seat, m)
    n = on.core.position - 1
    slot = off.fd.center[m.slot][-1]
    code: Refusal
    if attack == "intent-crosses-the-undo":
        _allowed(t, on, off)
        nxt = q[1] if len(q) > 1 else next(mv for mv in _v(on.core.view()).legal_moves() if mv.target == SIDE)
        on.deck.announce(Action(1, seat, nxt))  # its next action announced: the allowance is void
        t.pump()
        assert t.error(off.core.seat) is None
        before = _snap(off)
        _raw(on, {"t": "undo", "n": n, "d": off.core.digest_after_takeback(seat)})
        code = Refusal.FORGED
    elif attack == "request-while-its-intent-is-under-way":
        nxt = q[1] if len(q) > 1 else next(mv for mv in _v(on.core.view()).legal_moves() if mv.target == SIDE)
        on.deck.announce(Action(1, seat, nxt))
        t.pump()
        before = _snap(off)
        _raw(on, {"t": "takeback", "n": n})
        code = Refusal.DECK_ORDER
    elif attack in ("lying-digest", "digest-of-the-move-standing"):
        _allowed(t, on, off)
        before = _snap(off)
        # a lie, or the private state's digest with the move still standing
        d = bytes(32) if attack == "lying-digest" else public_digest(off.core.match.game)
        _raw(on, {"t": "undo", "n": n, "d": d})
        code = Refusal.DESYNC
    elif attack == "flood":
        for _ in range(MAX_TAKEBACKS):
            _raw(on, {"t": "takeback", "n": n})
            t.pump()
            assert off.ep.answer_takeback(n, False)
            off.ep.data_to_send()  # (the hostile side reads no answer)
        before = _snap(off)
        _raw(on, {"t": "takeback", "n": n})
        code = Refusal.FLOOD
    else:  # an honest takeback first, then a lie about the card back in the hand
        _take_back(t, on, off)
        before = _snap(off)
        i = on.deck.mail.next_index
        if attack == "the-card-again-from-another-slot":
            other = next(s for s in on.fd.hands[seat] if s != slot)
            _raw(on, {"t": "deck", "g": 1, "i": i, "m": list(m), "s": other})
            code = Refusal.ILLEGAL_MOVE
        elif attack == "another-card-from-the-cards-slot":
            hidden = next(c for c in _v(on.core.view()).hand if c != m.arg)
            lie = Move(seat, HAND, hidden, m.target, m.slot)
            _raw(on, {"t": "deck", "g": 1, "i": i, "m": list(lie), "s": slot})
            code = Refusal.ILLEGAL_MOVE
        else:  # its share of the card, again: no share is awaited for it
            share = next(
                sent.msg.data
                for sent in on.deck.mail.sent
                if isinstance(sent.msg, DeckBytes) and _has_slot(sent.msg.data, slot)
            )
            _raw(on, {"t": "deck", "g": 1, "i": i, "b": share})
            code = Refusal.DECK_ORDER
    cards = dict(off.fd.cards)
    sent = len(off.frames)
    t.pump()
    deck_refused(t, off.core.seat, code)
    assert _snap(off) == before and off.fd.cards == cards
    assert len(off.frames) == sent  # the honest side showed nothing for it


def _has_slot(b: bytes, slot: int) -> bool:
    m = from_wire(b)
    return isinstance(m, Shares) and any(sh.slot == slot for sh in m.shares)


@pytest.mark.slow
def test_the_rules_refuse_a_takeback_of_a_move_that_showed_its_mover_a_card() -> None:
    """A refill (the hand emptied: cards drawn, shown to the mover) or a completed center
    (the reshuffle) cannot be taken back in a private game either: the request is refused
    (``takeback``) before anything changes.  (Asked of the honest side's ledger at each such
    move of bot games.  A game can end with neither: the stock runs out at some 60 plies
    when no center completes, so the bots play on into the match's next games, up to six,
    until a game has shown one.)"""
    t = Table(games=6)
    t.pump()
    bots = [make_bot("easy", 1), make_bot("easy", 2)]
    seen: set[str] = set()
    shown_in: int | None = None  # the game that showed the first of them
    for _ in range(12_000):
        m = t.seats[0].core.match
        if m.game.result is not None or seen == {"drew", "completed"}:
            break  # (the match is over, or both were seen)
        if shown_in is not None and m.game_number > shown_in:
            break  # (a game showed one, and it is over)
        on = t.seats[t.turn()]
        t.play(on.core.seat, bots[on.core.seat].choose(_v(on.core.view())))
        assert t.error(0) is None and t.error(1) is None
        off = t.seats[1 - on.core.seat]
        last: Played | None = off.core.match.last_played()
        if last is None or last.turn_passed or off.core.match.game.result is not None:
            continue
        kind = "drew" if last.drew else "completed" if last.completed else None
        if kind is None:
            continue
        before = _snap(off)
        with pytest.raises(RemoteProtocolError) as e:
            off.ep.takebacks.on_request(TakebackRequest(off.core.position - 1), off.core)
        assert e.value.code is Refusal.TAKEBACK
        want = no.RefilledHand() if kind == "drew" else no.CompletedCenter(last.move.slot)
        assert off.core.takeback_refusal(on.core.seat) == want == on.core.takeback_refusal(on.core.seat)
        assert _snap(off) == before
        seen.add(kind)
        if shown_in is None:
            shown_in = off.core.match.game_number
    assert seen, "six bot games with no refill and no completed center"


def test_our_own_takeback_is_refused_while_our_next_move_is_under_way() -> None:
    t = Table()
    t.pump()
    on, off, q = _to_quiet(t)
    t.play(on.core.seat, q[0])
    assert on.core.takeback_refusal(on.core.seat) is None
    off.tamper = lambda msg: []  # the other side's shares do not come: the cards stay being shown
    nxt = next(mv for mv in _v(on.core.view()).legal_moves() if mv.source == HAND and mv.target == SIDE)
    on.deck.announce(Action(1, on.core.seat, nxt))
    assert on.core.takeback_refusal(on.core.seat) == no.DeckBusy()


# -- sessions over 127.0.0.1, records on disk, a restart ---------------------------------------


async def _private_pair(tmp: Path) -> tuple[NetSession, NetSession]:
    port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    host_task = asyncio.create_task(
        host_session(
            HostSettings(
                bind="127.0.0.1",
                port=0,
                name="Ann",
                target=20,
                record_path=tmp / "h.json",
                private=True,
                games=1,
            ),
            on_listening=lambda h, p: port.set_result(p),
            on_warning=None,
        )
    )
    joiner = await join_session(
        JoinSettings(host="127.0.0.1", port=await port, name="Bob", record_path=tmp / "j.json", private=True)
    )
    return await host_task, joiner


def _deck_state(core: Any) -> tuple[object, ...]:
    deck = PrivateDeck.of(core)
    assert deck is not None and deck.now.deck is not None
    d = deck.now.deck
    return (
        [h[:] for h in d.hands],
        [p[:] for p in d.center],
        [[p[:] for p in sd] for sd in d.sides],
        d.stock[:],
        dict(d.cards),
        d.settled,
        deck.mail.next_index,
        [s.msg for s in deck.mail.sent],
        deck.tape.entries,
        core.position,
        core.head,
        public_digest(core.match.game),
        [h[:] for h in core.match.game.hands],
        deck.undo.made,
    )


@pytest.mark.slow
@pytest.mark.parametrize("then", ["again", "discarded"])
def test_a_private_takeback_over_tcp_survives_a_restart_and_both_records_verify(
    tmp_path: Path, then: str
) -> None:
    """Two sessions over 127.0.0.1: a hand card taken back; each side's record and journal,
    read back as ``--resume`` reads them (the process killed right there), rebuild exactly
    the deck, engine and tape that the live side holds; the game goes on, the card is played
    again (or discarded instead: another action where the one taken back was, which a restart
    makes from the tape and takes back again), the game ends, and both records pass the
    check ``replay --check`` makes."""

    async def main() -> None:
        host, joiner = await _private_pair(tmp_path)
        for s in (host, joiner):
            await next_of(s, GameStarted)  # the deal shown
        bots = {s.seat: make_bot("easy", s.seat + 1) for s in (host, joiner)}
        for _ in range(400):
            g = host.core.match.game
            on = host if g.turn == host.seat else joiner
            if quiet_moves(on.core.match):
                break
            await on.play(bots[on.seat].choose(_v(on.view())))
            await _settled(host, joiner)
        off = joiner if on is host else host
        m = quiet_moves(on.core.match)[0]
        await on.play(m)
        await _settled(host, joiner)
        asked = await on.take_back()
        assert asked is not None and asked.move == m
        q = await next_of(off, TakebackAsked)
        assert q.played.move == m
        assert await off.answer_takeback(True)
        await next_of(on, MoveTakenBack)
        await next_of(off, MoveTakenBack)
        await _settled(host, joiner)
        for s in (host, joiner):  # killed now: --resume rebuilds it exactly
            saved = load_saved(Path(s.record_path or ""))
            again = _core_from_saved(saved, s.seat)
            assert _deck_state(again) == _deck_state(s.core)
            assert len(saved.actions) == s.core.position  # the move is not in the record
        if then == "again":
            await on.play(m)  # the card again: its intent, no share
        else:
            await on.play(Move(on.seat, HAND, m.arg, SIDE, 0))
        await _settled(host, joiner)
        for s in (host, joiner):
            saved = load_saved(Path(s.record_path or ""))
            assert _deck_state(_core_from_saved(saved, s.seat)) == _deck_state(s.core)
        await (on if then == "again" else off).resign()
        for s in (host, joiner):
            await asyncio.wait_for(_ended(s), 20)
        await asyncio.gather(host.close(), joiner.close())

    asyncio.run(asyncio.wait_for(main(), 120))
    texts = [(tmp_path / n).read_text() for n in ("h.json", "j.json")]
    assert texts[0] == texts[1]
    rec = record.from_json(json.loads(texts[0]))
    assert rec.private and rec.games[0].deck is not None
    record.verify(rec)


async def _settled(*sessions: NetSession) -> None:
    """Until both cores are at the same action and neither deck has anything under way."""
    for _ in range(2000):
        a, b = sessions
        da, db = PrivateDeck.of(a.core), PrivateDeck.of(b.core)
        assert da is not None and db is not None
        if (
            a.core.position == b.core.position
            and da.intents.pending is None
            and db.intents.pending is None
            and a.acked == a.core.position
            and b.acked == b.core.position
            and all(s.link is not None and not s.link.endpoint.takebacks.undo_unacked for s in sessions)
        ):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the sessions did not settle")


async def _ended(s: NetSession) -> None:
    while not s.ended:
        await asyncio.sleep(0.02)
