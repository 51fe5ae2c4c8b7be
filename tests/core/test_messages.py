"""core/messages.py: every message type's to_wire/from_wire, and the checks from_wire makes."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from p2p_spite.core import messages as m
from p2p_spite.core.wire import FrameDecoder, Refusal, RemoteProtocolError, encode
from p2p_spite.engine import CENTER, HAND, PAYOFF, Move

H = bytes(range(32))
EXAMPLES: list[m.Message] = [
    m.Hello(2, m.JOIN, "Bob", bytes(16), True, bytes(range(16)), True),
    m.Hello(2, m.HOST, "Ann", bytes(16), False),
    m.Hello(2, m.JOIN, "Bob", bytes(16), False, watchers=True),
    m.Proof(H),
    m.Setup(bytes(16), H, 50, None, ("Ann", "Bob"), False),
    m.Setup(bytes(16), None, 7, 3, ("Ann", "Bob"), True),
    m.Setup(bytes(16), None, 7, 3, ("Ann", "Bob"), False, private=True),
    m.Commit(H),
    m.Reveal(H),
    m.Sync(12, H),
    m.MoveAction(3, H, H, Move(1, HAND, 52, CENTER, 0)),
    m.MoveAction(3, H, None, Move(0, PAYOFF, None, CENTER, 2)),
    m.ResignAction(4, H, H, 2, 1),
    m.ResignAction(4, H, None, 1, 0),
    m.ResignRequest(5),
    m.TakebackRequest(6),
    m.TakebackAnswer(6, True),
    m.TakebackAnswer(0, False),
    m.TakebackAnswer(0, False, rule=True),
    m.Undo(6, H),
    m.RematchAnswer(bytes(range(16)), True),
    m.RematchAnswer(bytes(16), False),
    m.Watchers(0, 1),
    m.Watchers(32, 32),
    m.Ack(9),
    m.Chat("hi there"),
    m.Ping(7),
    m.Pong(7),
    m.Bye("match over"),
    m.Refuse(Refusal.DESYNC, "the states disagree"),
    m.Deck(m.DeckBytes(1, 0, b"x" * 40)),
    m.Deck(m.DeckIntent(2, 7, Move(1, HAND, 5, CENTER, 2), 45)),
]


def _through_the_wire(msg: m.Message) -> dict[str, Any]:
    dec = FrameDecoder()
    dec.feed(encode(msg.to_wire()))
    out = dec.next_message()
    assert out is not None
    return out


@pytest.mark.parametrize("msg", EXAMPLES, ids=lambda x: type(x).__name__)
def test_every_message_survives_the_wire_unchanged(msg: m.Message) -> None:
    raw = _through_the_wire(msg)
    assert raw["t"] == msg.T and m.MESSAGES[msg.T] is type(msg)
    assert type(msg).from_wire(raw) == msg


def test_every_type_has_an_example_and_a_distinct_wire_name() -> None:
    assert {type(x) for x in EXAMPLES} == set(m.MESSAGES.values())
    assert len(m.MESSAGES) == len({c.T for c in m.MESSAGES.values()})


def test_the_key_order_is_the_documented_one() -> None:
    """msgpack keeps a map's order: it is part of the bytes both peers and the tests pin."""
    mv = m.MoveAction(0, H, H, Move(1, HAND, 52, CENTER, 1)).to_wire()
    assert list(mv) == ["t", "n", "d", "a", "m"]
    assert list(m.ResignAction(4, H, None, 1, 1).to_wire()) == ["t", "n", "d", "g", "s"]
    hello = m.Hello(2, m.HOST, "Ann", bytes(16), False).to_wire()
    assert list(hello) == ["t", "proto", "app", "role", "name", "nonce", "code", "match", "deal"]
    setup = m.Setup(bytes(16), None, 50, None, ("A", "B"), False).to_wire()
    assert list(setup) == ["t", "match", "seed", "target", "games", "players", "resume"]  # not private
    assert msgpack.packb(m.Ack(3).to_wire()) == msgpack.packb({"t": "ack", "n": 3})
    assert list(m.TakebackRequest(3).to_wire()) == ["t", "n"]
    assert list(m.TakebackAnswer(3, True).to_wire()) == ["t", "n", "ok"]
    assert list(m.TakebackAnswer(3, False, rule=True).to_wire()) == ["t", "n", "ok", "rule"]
    assert list(m.Undo(3, H).to_wire()) == ["t", "n", "d"]
    assert list(m.RematchAnswer(bytes(16), True).to_wire()) == ["t", "match", "yes"]
    joiner = m.Hello(2, m.JOIN, "Bob", bytes(16), False, watchers=True).to_wire()
    assert list(joiner) == ["t", "proto", "app", "role", "name", "nonce", "code", "match", "deal", "watchers"]
    assert msgpack.packb(m.Watchers(2, 4).to_wire()) == msgpack.packb({"t": "watchers", "n": 2, "most": 4})


def _refused(cls: type[m.Message], raw: dict[str, Any]) -> Refusal:
    with pytest.raises(RemoteProtocolError) as e:
        cls.from_wire(raw)
    return e.value.code


@pytest.mark.parametrize(
    ("cls", "raw"),
    [
        (m.Proof, {"t": "proof", "mac": b"x" * 31}),
        (m.Proof, {"t": "proof"}),
        (m.Commit, {"t": "commit", "c": "not bytes"}),
        (m.Sync, {"t": "sync", "pos": -1, "hist": H}),
        (m.Sync, {"t": "sync", "pos": True, "hist": H}),
        (m.Sync, {"t": "sync", "pos": 10_000_001, "hist": H}),
        (m.MoveAction, {"t": "move", "n": 0, "d": H, "m": [0, "pocket", 1, "center", 0]}),
        (m.MoveAction, {"t": "move", "n": 0, "d": H, "a": b"short", "m": [0, "hand", 1, "center", 0]}),
        (m.MoveAction, {"t": "move", "n": 1.0, "d": H, "m": [0, "hand", 1, "center", 0]}),
        (m.ResignAction, {"t": "resign", "n": 0, "d": H, "g": 0, "s": 1}),
        (m.ResignAction, {"t": "resign", "n": 0, "d": H, "g": 1, "s": 2}),
        (m.ResignRequest, {"t": "resign-request", "g": 10_001}),
        (m.RematchAnswer, {"t": "rematch", "match": bytes(15), "yes": True}),
        (m.RematchAnswer, {"t": "rematch", "match": bytes(16), "yes": 1}),
        (m.RematchAnswer, {"t": "rematch", "match": bytes(16)}),
        (m.Ack, {"t": "ack", "n": "3"}),
        (m.Watchers, {"t": "watchers", "n": -1, "most": 4}),  # negative
        (m.Watchers, {"t": "watchers", "n": 5, "most": 4}),  # above the host's own limit
        (m.Watchers, {"t": "watchers", "n": 2**64, "most": 4}),  # huge
        (m.Watchers, {"t": "watchers", "n": 33, "most": 33}),  # a limit no host has
        (m.Watchers, {"t": "watchers", "n": 0, "most": 0}),  # a host letting nobody in counts none
        (m.Watchers, {"t": "watchers", "n": True, "most": 4}),  # wrong type
        (m.Watchers, {"t": "watchers", "n": 1.0, "most": 4}),
        (m.Watchers, {"t": "watchers", "n": "1", "most": 4}),
        (m.Watchers, {"t": "watchers", "n": 1}),  # no limit
        (m.TakebackRequest, {"t": "takeback", "n": 10_000_001}),
        (m.TakebackAnswer, {"t": "takeback-answer", "n": 0, "ok": None}),
        (m.TakebackAnswer, {"t": "takeback-answer", "n": 0, "ok": False, "rule": 1}),
        (m.Undo, {"t": "undo", "n": 0, "d": H[:31]}),
        (m.Chat, {"t": "chat", "text": "x" * 2001}),
        (m.Ping, {"t": "ping", "k": 2**53 + 1}),
        (m.Setup, {"t": "setup", "match": bytes(16), "seed": None, "target": 0, "games": None,
                   "players": ["A", "B"], "resume": False}),
        (m.Setup, {"t": "setup", "match": bytes(16), "seed": None, "target": 5, "games": 0,
                   "players": ["A", "B"], "resume": False}),
        (m.Setup, {"t": "setup", "match": bytes(16), "seed": None, "target": 5, "games": None,
                   "players": ["A", "B", "C"], "resume": False}),
        (m.Setup, {"t": "setup", "match": bytes(16), "seed": H, "target": 5, "games": None,
                   "players": ["A", "B"], "resume": True}),
        (m.Hello, {"t": "hello", "app": m.APP, "proto": True, "role": "join"}),
        (m.Hello, {"t": "hello", "app": m.APP, "proto": 2, "role": "join", "name": "x" * 41,
                   "nonce": bytes(16), "code": False}),
        (m.Hello, {"t": "hello", "app": m.APP, "proto": 2, "role": "join", "name": "B",
                   "nonce": bytes(16), "code": 1}),
        (m.Hello, {"t": "hello", "app": m.APP, "proto": 2, "role": "join", "name": "B",
                   "nonce": bytes(16), "code": False, "match": bytes(15)}),
    ],
)  # fmt: skip
def test_a_bad_field_is_refused_as_malformed(cls: type[m.Message], raw: dict[str, Any]) -> None:
    assert _refused(cls, raw) is Refusal.MALFORMED


def test_hello_says_version_and_role_before_looking_at_the_rest() -> None:
    """A peer of another version may shape its other fields differently: it hears
    'version', not 'malformed'; a wrong role is 'role'; not our app, 'not-p2p-spite'."""
    other = {"t": "hello", "app": m.APP, "proto": 3, "role": "join", "nonce": "whatever"}
    with pytest.raises(RemoteProtocolError) as e:
        m.Hello.from_wire(other, proto=2, role=m.JOIN)
    assert e.value.code is Refusal.VERSION
    assert "the joiner speaks version 3, the host speaks version 2" in str(e.value)
    wrong_role = {**other, "proto": 2, "role": "host"}
    with pytest.raises(RemoteProtocolError) as e:
        m.Hello.from_wire(wrong_role, proto=2, role=m.JOIN)
    assert e.value.code is Refusal.ROLE
    assert _refused(m.Hello, {"t": "hello", "app": "other", "proto": 2}) is Refusal.NOT_P2P_SPITE


def test_text_from_the_peer_is_made_printable_and_short() -> None:
    assert m.Chat.from_wire({"t": "chat", "text": "a\x1b[2Jb" + "c" * 900}).text == "a [2Jb" + "c" * 494
    assert m.Bye.from_wire({"t": "bye", "reason": ["not", "text"]}).reason == ""
    r = m.Refuse.from_wire({"t": "refuse", "code": "a-new-word", "msg": 5})
    assert (r.code, r.msg) == (Refusal.OTHER, "no reason given")
    h = {"t": "hello", "app": m.APP, "proto": 2, "role": "host", "name": "An\nn", "nonce": bytes(16),
         "code": False, "deal": "yes"}  # fmt: skip
    hello = m.Hello.from_wire(h)
    assert (hello.name, hello.deal, hello.match) == ("An n", False, None)
