"""The private deck over the protocol: two real endpoints in memory, each with its
own GameCore and PrivateDeck (core/private.py), every byte through the frames.

The hostile side is a modified program: it sends what it likes through its port.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.contracts.errors import SessionClosed
from p2p_spite.contracts.news import CannotKeepRecord
from p2p_spite.contracts.session import EndCause, Event, GameStarted, SessionFailed
from p2p_spite.core.game import Action, GameCore
from p2p_spite.core.messages import HOST, JOIN, DeckBytes, DeckIntent
from p2p_spite.core.private import PrivateDeck, public_digest
from p2p_spite.core.protocol import LocalConfig
from p2p_spite.core.wire import Refusal, encode
from p2p_spite.engine import CENTER, HAND, SIDE, GameState, Match, Move, Played
from p2p_spite.engine.refusals import Illegal
from p2p_spite.fairdeck import MAX_WIRE, Reveal, Shares, Shuffle, from_wire, to_wire
from p2p_spite.fairdeck import group as grp
from p2p_spite.fairdeck.scheme import _reencrypt, card_point
from p2p_spite.fairdeck.table import HIDDEN
from p2p_spite.net import HostSettings, JoinSettings, host_session, join_session
from p2p_spite.net.session import NetSession
from p2p_spite.storage import record
from p2p_spite.storage.keeper import RecordKeeper
from tests.adversary.peeking import named_by_one_key
from tests.support.net import pair
from tests.support.privatetable import Seat, Table, deck_body, deck_refused


def test_a_private_game_over_the_protocol_shows_each_side_only_its_cards() -> None:
    t = Table(games=1)
    t.pump()
    a, b = t.seats
    assert [type(e) for e in a.events] == [GameStarted] and [type(e) for e in b.events] == [GameStarted]
    for s in t.seats:
        v = s.core.view()
        assert v is not None
        assert all(c < HIDDEN for c in v.hand) and len(v.hand) == 5
        other = s.core.match.game.hands[1 - s.core.seat]
        assert all(c >= HIDDEN for c in other), "the other hand is only stand-ins"
    t.bots_play(3000)  # (it stops when the game ends: two easy bots may need well over 400 plies)
    assert t.error(0) is None and t.error(1) is None
    ga, gb = (s.core.match.games[0] for s in t.seats)
    assert ga.result is not None and ga.result == gb.result
    assert a.core.position == b.core.position and a.core.head == b.core.head
    deck = a.deck.outcomes[0]
    assert deck is not None and deck == b.deck.outcomes[0]
    # the record of that game checks move for move from the revealed deck
    data = record.to_json(a.core.match, private=a.deck.outcomes)
    assert data["version"] == 2 and data["games"][0]["deck"] == list(deck.deal)  # type: ignore[union-attr]
    data["games"] = data["games"][:1]
    data["scores"] = list(a.core.match.scores)
    record.verify(record.from_json(json.loads(record.dumps(data))))


def _deal(t: Table) -> None:
    t.pump()
    assert all(s.deck.installed for s in t.seats)


def test_a_false_share_is_refused_at_once() -> None:
    t = Table()
    hostile = t.seats[1]

    def lie(msg: dict[str, Any]) -> list[dict[str, Any]]:
        b = msg.get("b")
        if b is not None:
            m = from_wire(b)
            if isinstance(m, Shares):
                sh = m.shares[0]
                bad = replace(sh, d=grp.add(sh.d, grp.G))  # a share of another card
                msg = {**msg, "b": to_wire(replace(m, shares=(bad, *m.shares[1:])))}
        return [msg]

    hostile.tamper = lie
    t.pump()
    deck_refused(t, 0, Refusal.BAD_SHARE)
    assert not t.seats[0].deck.installed  # nothing of it was taken


@pytest.mark.parametrize(
    "attack",
    [
        "early game",
        "late game",
        "twice, different",
        "gap",
        "wrong seat",
        "oversized",
        "other's move",
        "no intent",
    ],
)
def test_deck_messages_at_the_wrong_moment_or_wrong_are_refused(attack: str) -> None:
    t = Table()
    _deal(t)
    honest, hostile = t.seats[t.turn()], t.seats[1 - t.turn()]  # the hostile side is off turn
    last = hostile.frames[-1]
    n = len(hostile.frames)
    if attack == "early game":
        msg = {**last, "g": 2, "i": 0}
    elif attack == "late game":
        msg = {**last, "g": 0}
    elif attack == "twice, different":
        other = hostile.frames[0]
        msg = {**other, "i": n - 1}
    elif attack == "gap":
        msg = {**last, "i": n + 1}
    elif attack == "wrong seat":  # a message made as if by the receiver's seat
        key = from_wire(honest.frames[0]["b"])
        msg = {"t": "deck", "g": 1, "i": n, "b": to_wire(key)}
    elif attack == "oversized":
        msg = {"t": "deck", "g": 1, "i": n, "b": bytes(MAX_WIRE + 1)}
    elif attack == "other's move":  # announcing a move while the other seat is on turn
        v = honest.core.view()
        assert v is not None
        mv = v.legal_moves()[0]
        msg = {"t": "deck", "g": 1, "i": n, "m": list(mv), "s": None}
    else:  # an action that was never announced
        mv = Move(hostile.core.seat, HAND, 0, SIDE, 0)
        hostile.ep._out += encode({"t": "move", "n": 0, "m": list(mv), "d": bytes(32), "a": bytes(32)})
        msg = None
    if msg is not None:
        hostile.ep._out += encode(msg)
    before = honest.fd.cards.copy()
    t.pump()
    want = {
        "early game": Refusal.DECK_ORDER,
        "late game": Refusal.MALFORMED,
        "twice, different": Refusal.DECK_ORDER,
        "gap": Refusal.DECK_ORDER,
        "wrong seat": Refusal.DECK_ORDER,
        "oversized": Refusal.DECODE,
        "other's move": Refusal.FORGED,
        "no intent": Refusal.ILLEGAL_MOVE,
    }[attack]
    deck_refused(t, honest.core.seat, want)
    assert honest.fd.cards == before


def test_a_message_sent_again_the_same_is_skipped() -> None:
    t = Table()
    _deal(t)
    hostile = t.seats[1]
    for m in hostile.frames[:3]:
        hostile.ep.send_message(deck_body(m))
    t.pump()
    assert t.error(0) is None
    t.bots_play(6)
    assert t.error(0) is None and t.error(1) is None
    for _ in range(100):  # but not again and again (a reconnection resends each once)
        hostile.ep.send_message(deck_body(hostile.frames[0]))
    t.pump()
    deck_refused(t, 0, Refusal.FLOOD)


def test_an_announced_hand_card_must_be_the_card_its_slot_holds() -> None:
    t = Table()
    _deal(t)
    mover = t.seats[t.turn()]
    seat = mover.core.seat
    slot = mover.fd.hands[seat][0]
    real = mover.fd.card(slot)
    assert real is not None
    # claim a card that fits anywhere (a King on center 0) but is not the one in the slot
    king = next(c for c in (12, 25, 38, 51, 64, 77, 90, 103) if c != real)
    move = Move(seat, HAND, king, CENTER, 0)
    n = mover.deck.mail.next_index
    mover.ep.send_message(DeckIntent(1, n, move, slot))
    mover.deck.intents.pending = None
    mover.fd.play_hand(seat, slot, "center", 0)  # the liar's own deck shows its card
    for m in mover.fd.outgoing():
        mover.ep.send_message(DeckBytes(1, n + 1, to_wire(m)))
    t.pump()
    deck_refused(t, 1 - seat, Refusal.ILLEGAL_MOVE)


@pytest.mark.parametrize("attack", ["duplicate", "own-order"])
def test_a_false_deal_pass_is_refused_before_any_card_is_shown(tmp_path: Path, attack: str) -> None:
    """The joiner makes the deal's last pass.  A modified joiner that slips in a copy of
    a card, or that replaces its pass by fresh encryptions of an order it chose (so it
    would know every card), is refused the moment its pass arrives: the host makes no
    share, names the seat, and keeps the evidence in its record."""
    path = tmp_path / "h.json"
    holder: list[RecordKeeper] = []

    def keeper(core: GameCore) -> RecordKeeper:
        deck = PrivateDeck.of(core)
        assert deck is not None
        k = RecordKeeper(path, core.match, core.match_id, None, private=deck.outcomes)
        holder.append(k)
        return k

    h, j, _eh, _ej = pair(LocalConfig(HOST, "Ann", private=True), LocalConfig(JOIN, "Mallory", private=True))
    assert h.core is not None and j.core is not None
    t = Table.__new__(Table)
    t.seats = [Seat(h, keeper(h.core)), Seat(j)]
    hostile = t.seats[1]
    fd = hostile.fd
    original = fd._shuffle

    def cheating_shuffle() -> Shuffle:
        msg = original()
        if msg.round != 0:
            return msg
        joint = fd._joint
        assert joint is not None
        cheat = list(msg.deck)
        if attack == "duplicate":
            cheat[0] = _reencrypt(cheat[1], (grp.base_g().mul(99), joint.mul(99)))  # seat 0's pay-off bottom
        else:  # stacked: seat 1's pay-off A, 2, 3, ... in order, each card a fresh encryption
            order = list(range(104))
            cheat = [(grp.base_g().mul(5 + c), grp.add(card_point(c), joint.mul(5 + c))) for c in order]
        fd.rounds[0].passes[1] = tuple(cheat)
        fd.cts[:104] = cheat
        return replace(msg, deck=tuple(cheat))

    fd._shuffle = cheating_shuffle  # type: ignore[method-assign]
    t.pump()
    deck_refused(t, 0, Refusal.BAD_SHUFFLE)
    host_deck = t.seats[0].fd
    assert not host_deck.dealt and len(host_deck.rounds[0].passes) == 1
    ev = t.seats[0].deck.outcomes[0]
    assert isinstance(ev, dict) and ev["kind"] == "shuffle-proof" and ev["seat"] == 1 and ev["round"] == 0
    sent = [from_wire(f["b"]) for f in t.seats[0].frames if f.get("b") is not None]
    assert not [m for m in sent if isinstance(m, Shares)], "the host showed a card"
    holder[0].close()
    game = json.loads(path.read_text())["games"][0]
    assert game["cheat"] == ev and "deck" not in game


@pytest.mark.slow
def test_a_peer_keeping_every_message_of_the_net_names_no_hidden_card() -> None:
    """The net adds intents, actions and state digests to fairdeck's messages: none of
    them names a card the receiver may not see, and the digests do not depend on one."""
    t = Table()
    t.pump()
    t.bots_play(30)
    for me in t.seats:
        them = t.seats[1 - me.core.seat]
        named = named_by_one_key(
            me.fd, [(them.core.seat, f["b"]) for f in them.frames if f.get("b") is not None]
        )
        assert named == me.fd.cards  # exactly what the protocol showed
        cards_in_moves = {f["m"][2] for f in them.frames if f.get("m") and f["m"][1] == HAND}
        assert cards_in_moves <= set(me.fd.cards.values())
    st = t.seats[0].core.match.game.copy()
    d = public_digest(st)
    st.hands = [[HIDDEN + 999] * len(h) for h in st.hands]  # any other hands of the same sizes
    assert public_digest(st) == d


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_tape_line_that_cannot_be_written_ends_the_match_with_the_storage_ending(tmp_path: Path) -> None:
    """The deck only queues its tape; the session writes it before the bytes that depend
    on it leave (Link.flush): a full disk there stops the match with the storage ending,
    one line, no traceback, and the intent that could not be written is not sent."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        escaped: list[dict[str, Any]] = []
        loop.set_exception_handler(lambda _loop, ctx: escaped.append(ctx))
        port: asyncio.Future[int] = loop.create_future()
        host_task = asyncio.create_task(
            host_session(
                HostSettings(
                    bind="127.0.0.1", port=0, name="Ann", private=True, record_path=tmp_path / "h.json"
                ),
                on_listening=lambda h, p: port.set_result(p),
                on_warning=None,
            )
        )
        joiner = await join_session(
            JoinSettings(
                host="127.0.0.1", port=await port, name="Bob", private=True, record_path=tmp_path / "j.json"
            )
        )
        host = await host_task
        sessions = (host, joiner)
        for s in sessions:
            ev = await asyncio.wait_for(s.next_event(), 30)
            assert isinstance(ev, GameStarted), ev
        mover = sessions[host.core.match.game.turn]
        other = sessions[1 - mover.core.seat]
        deck = PrivateDeck.of(mover.core)
        assert mover.keeper is not None and deck is not None
        full = os.open("/dev/full", os.O_WRONLY)
        assert mover.keeper._fd is not None
        os.close(mover.keeper._fd)  # from now on its journal is on a full disk
        mover.keeper._fd = full
        sent = len(deck.mail.sent)
        with contextlib.suppress(SessionClosed):
            await asyncio.wait_for(mover.play(mover.core.match.game.legal_moves()[0]), 10)
        failed = await asyncio.wait_for(_failure(mover), 10)
        assert isinstance(failed.news, CannotKeepRecord) and "No space left" in failed.news.problem.why
        assert failed.ending is not None and failed.ending.cause is EndCause.STORAGE
        assert len(deck.mail.sent) > sent  # the intent was made ...
        theirs = await asyncio.wait_for(_failure(other), 10)
        assert theirs.ending is not None and theirs.ending.cause is not EndCause.STORAGE
        peer = PrivateDeck.of(other.core)
        assert peer is not None and len(peer.mail._received[1]) == sent  # ... not sent
        assert peer.intents.pending is None
        assert not escaped, escaped
        for s in sessions:
            await s.close("quit")

    asyncio.run(asyncio.wait_for(main(), 90))


async def _failure(s: NetSession) -> SessionFailed:
    while True:
        ev = await s.next_event()
        if isinstance(ev, SessionFailed):
            return ev


def test_a_resignation_announced_instead_of_made_is_refused_and_shows_nothing() -> None:
    """A resignation is made, not announced: an intent to resign is refused, and the honest
    side reveals nothing for it (before, such an announcement made it send its secret)."""
    t = Table()
    _deal(t)
    turn = t.turn()
    hostile, honest = t.seats[turn], t.seats[1 - turn]
    before = len(honest.frames)
    hostile.ep._out += encode({"t": "deck", "g": 1, "i": hostile.deck.mail.next_index, "m": None, "s": None})
    t.pump()
    deck_refused(t, 1 - turn, Refusal.DECK_ORDER)
    sent = [from_wire(f["b"]) for f in honest.frames[before:] if f.get("b") is not None]
    assert not [m for m in sent if isinstance(m, Reveal)]
    assert honest.fd.result is None and not honest.fd.over


def test_a_peer_that_reveals_in_the_middle_of_a_game_cannot_play_on() -> None:
    """A modified peer reveals its secret mid-game (a leave) to get ours back, then
    announces a move as if the game went on: refused, so knowing both secrets buys it
    no move."""
    t = Table()
    _deal(t)
    turn = t.turn()
    hostile, honest = t.seats[turn], t.seats[1 - turn]
    hostile.fd.leave()
    hostile.deck._pump()  # its reveal goes out; the honest side answers with its own
    t.pump()
    assert honest.fd.left and honest.fd.peer_revealed and hostile.fd.peer_revealed
    move = hostile.core.match.game.legal_moves()[0]
    slot = hostile.fd.slot_of(move.arg) if move.source == HAND and move.arg is not None else None
    hostile.ep.send_message(DeckIntent(1, hostile.deck.mail.next_index, move, slot))
    t.pump()
    deck_refused(t, 1 - turn, Refusal.DECK_ORDER)
    assert honest.deck.intents.pending is None


def test_the_private_deck_of_a_core_is_its_deck_or_none() -> None:
    t = Table()
    seat = t.seats[0]
    assert PrivateDeck.of(seat.core) is seat.deck
    seeded = GameCore(Match(b"s" * 32), 0, bytes(16))
    assert PrivateDeck.of(seeded) is None

    class Other:  # some other deck on the core: a bug, said at once
        installed = True

        def before_commit(self, action: Action) -> None: ...
        def digest_after(self, action: Action) -> bytes: ...  # type: ignore[empty-body]
        def digest(self, st: GameState) -> bytes: ...  # type: ignore[empty-body]
        def committed(self, action: Action) -> None: ...
        def after_action(self) -> None: ...
        def next_game(self) -> list[Event]: ...  # type: ignore[empty-body]
        def takeback_refusal(self, played: Played) -> Illegal | None: ...
        def taken_back(self, played: Played, at: int) -> None: ...
        def resign_requested(self, game: int) -> bool: ...  # type: ignore[empty-body]

    seeded.private = Other()
    with pytest.raises(TypeError, match="not a PrivateDeck"):
        PrivateDeck.of(seeded)
