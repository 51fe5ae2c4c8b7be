"""A watcher's connection, sans I/O: the host's door for it and the watcher's endpoint,
linked in memory.  Every message of docs/protocol.md, *Watchers*: early, late, twice,
lying, flooding, and a watcher that sends the match's own messages."""

from __future__ import annotations

import contextlib
import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.contracts.news import WatchStop
from p2p_spite.contracts.spectator import TableShown, Watching
from p2p_spite.core.messages import HOST, Hello
from p2p_spite.core.protocol import PROTOCOL_VERSION, NeedData, PeerRefused
from p2p_spite.core.watch import (
    DoorPhase,
    HostBye,
    Table,
    WatchEndpoint,
    WatcherDoor,
    WatcherIn,
    WatcherLeft,
    WatchPhase,
    table_frame,
    watching_frame,
)
from p2p_spite.core.wire import Refusal, RemoteProtocolError, encode
from p2p_spite.engine import HAND, SIDE, GameState, Match, Move, public_view, view
from tests.support.net import messages

SEED = bytes(range(32))


def host_hello(code: bool = False) -> bytes:
    return encode(Hello(PROTOCOL_VERSION, HOST, "Ann", secrets.token_bytes(16), code).to_wire())


def events(next_event: Callable[[], object]) -> list[object]:
    out = []
    while not isinstance(ev := next_event(), NeedData):
        out.append(ev)
    return out


def linked(
    allowed: bool = True, hello_code: bool = False
) -> tuple[WatcherDoor, WatchEndpoint, list[object], list[object]]:
    """A door and a watcher through the whole handshake (as far as it goes; a join code,
    if any, was the opening's: tests/test_lan_opening.py and test_one_channel.py)."""
    door, w = WatcherDoor(allowed), WatchEndpoint()
    w.initiate()
    w.receive_data(host_hello(hello_code))
    at_door: list[object] = []
    at_watcher: list[object] = []
    for _ in range(4):
        door.receive_data(w.data_to_send())
        with contextlib.suppress(RemoteProtocolError):
            at_door += events(door.next_event)
        w.receive_data(door.data_to_send())
        try:
            at_watcher += events(w.next_event)
        except (PeerRefused, RemoteProtocolError) as e:
            at_watcher.append(e)
    return door, w, at_door, at_watcher


def table(state: GameState, move: Move | None = None, card: int | None = None) -> TableShown:
    return TableShown(public_view(view(state, 0)), (0, 0), move, card)


def test_a_watcher_is_let_in_and_shown_the_match() -> None:
    door, w, at_door, at_watcher = linked()
    assert at_door == [WatcherIn()] and at_watcher == []
    assert door.phase is DoorPhase.IN and w.phase is WatchPhase.WAITING
    g = Match(SEED).game
    door.show(watching_frame(("Ann", "Bob"), 50, None, False))
    door.show(table_frame(table(g)))
    w.receive_data(door.data_to_send())
    seen = events(w.next_event)
    assert seen == [Watching(("Ann", "Bob"), 50, None, False), table(g)]


def test_a_watch_that_would_prove_a_code_inside_is_refused() -> None:
    """The code is the opening's: a ``watch`` saying ``code: true`` (a watcher that would
    send a MAC of the code inside, as older versions did) is refused ``no-code``."""
    door, w = WatcherDoor(True), WatchEndpoint()
    door.receive_data(
        encode({"t": "watch", "proto": 2, "app": "p2p-spite", "nonce": bytes(16), "code": True})
    )
    with pytest.raises(RemoteProtocolError) as e:
        door.next_event()
    assert e.value.code is Refusal.NO_CODE and door.phase is DoorPhase.CLOSED
    assert [m["t"] for m in messages(door.data_to_send())] == ["refuse"]  # (no challenge)
    w.initiate()
    assert [m["code"] for m in messages(w.data_to_send())] == [False]


def test_a_host_whose_hello_asks_for_a_code_is_refused_by_the_watcher() -> None:
    _door, w, _at_door, at_watcher = linked(hello_code=True)
    refused = at_watcher[0]
    assert isinstance(refused, PeerRefused) and refused.code is Refusal.CODE_NEEDED
    assert w.phase is WatchPhase.CLOSED


@pytest.mark.parametrize("t", ["challenge", "auth"])
def test_the_old_code_messages_are_unknown_to_both_ends(t: str) -> None:
    """No challenge or MAC of the code is part of the protocol any more: a host that
    sends one is refused by the watcher, a watcher that sends one by the host."""
    msg = {"t": t, "nonce": bytes(16)} if t == "challenge" else {"t": t, "mac": bytes(32)}
    door, w, at_door, _ = linked()
    assert at_door == [WatcherIn()] and w.phase is WatchPhase.WAITING
    door.receive_data(encode(msg))
    with pytest.raises(RemoteProtocolError) as e:
        door.next_event()
    assert e.value.code is Refusal.UNKNOWN_TYPE
    w.receive_data(encode(msg))
    with pytest.raises(RemoteProtocolError) as e:
        w.next_event()
    assert e.value.code is Refusal.UNKNOWN_TYPE and w.closed


def test_a_host_that_lets_nobody_watch_says_so() -> None:
    door = WatcherDoor(allowed=False)
    w = WatchEndpoint()
    w.initiate()
    door.receive_data(w.data_to_send())
    with pytest.raises(RemoteProtocolError) as e:
        door.next_event()
    assert e.value.code is Refusal.NO_WATCHERS


def test_a_watcher_of_another_version_is_told_both() -> None:
    door = WatcherDoor(True)
    w = WatchEndpoint(proto=PROTOCOL_VERSION + 1)
    w.initiate()
    door.receive_data(w.data_to_send())
    with pytest.raises(RemoteProtocolError, match="version mismatch") as e:
        door.next_event()
    assert e.value.code is Refusal.VERSION


GAME: list[dict[str, Any]] = [
    {"t": "move", "n": 0, "d": bytes(32), "a": bytes(32), "m": [0, "hand", 5, "side", 0]},
    {"t": "resign", "n": 0, "d": bytes(32), "g": 1, "s": 0},
    {"t": "resign-request", "g": 1},
    {"t": "chat", "text": "psst: Bob holds two Kings"},
    {"t": "ack", "n": 3},
    {"t": "sync", "pos": 0, "hist": bytes(32)},
    {
        "t": "hello",
        "proto": 2,
        "app": "p2p-spite",
        "role": "join",
        "name": "x",
        "nonce": bytes(16),
        "code": False,
    },
    {"t": "deck", "g": 1, "i": 0, "b": b"x"},
]


@pytest.mark.parametrize("msg", GAME, ids=[m["t"] for m in GAME])
def test_a_watcher_that_sends_a_message_of_the_match_is_refused(msg: dict[str, Any]) -> None:
    for first in (True, False):  # let in, or its first message
        door = WatcherDoor(True)
        w = WatchEndpoint()
        w.initiate()
        door.receive_data((w.data_to_send() if first else b"") + encode(msg))
        with pytest.raises(RemoteProtocolError) as e:
            events(door.next_event)
        assert e.value.code is Refusal.WATCHER
        assert door.phase is DoorPhase.CLOSED


@pytest.mark.parametrize(
    "late",
    [
        {"t": "watch", "proto": 2, "app": "p2p-spite", "nonce": bytes(16), "code": False},
        {"t": "table"},
        {"t": "no-such-message"},
    ],
    ids=["watch-twice", "table-from-a-watcher", "unknown"],
)
def test_a_message_out_of_place_is_refused(late: dict[str, Any]) -> None:
    door, _w, at_door, _ = linked()
    assert at_door == [WatcherIn()]
    door.receive_data(encode(late))
    with pytest.raises(RemoteProtocolError) as e:
        door.next_event()
    want = Refusal.UNKNOWN_TYPE if late["t"] in ("no-such-message", "table") else Refusal.UNEXPECTED
    assert e.value.code is want


def test_pings_are_answered_a_few_a_second_and_a_flood_is_refused() -> None:
    now = [0.0]
    door = WatcherDoor(True, clock=lambda: now[0])
    w = WatchEndpoint()
    w.initiate()
    door.receive_data(w.data_to_send())
    assert events(door.next_event) == [WatcherIn()]
    door.receive_data(b"".join(encode({"t": "ping", "k": k}) for k in range(20)))
    assert events(door.next_event) == []
    pongs = [m for m in messages(door.data_to_send()) if m["t"] == "pong"]
    assert len(pongs) == 8  # the burst; the rest ignored
    door.receive_data(b"".join(encode({"t": "ping", "k": k}) for k in range(300)))
    with pytest.raises(RemoteProtocolError) as e:
        events(door.next_event)
    assert e.value.code is Refusal.FLOOD


def test_a_flood_of_pongs_is_refused_as_one_of_pings_is() -> None:
    now = [0.0]
    door = WatcherDoor(True, clock=lambda: now[0])
    w = WatchEndpoint()
    w.initiate()
    door.receive_data(w.data_to_send())
    assert events(door.next_event) == [WatcherIn()]
    door.receive_data(b"".join(encode({"t": "pong", "k": k}) for k in range(200)))
    assert events(door.next_event) == []  # (within the burst)
    door.receive_data(b"".join(encode({"t": "pong", "k": k}) for k in range(100)))
    with pytest.raises(RemoteProtocolError) as e:
        events(door.next_event)
    assert e.value.code is Refusal.FLOOD


def test_a_watcher_says_bye() -> None:
    door, w, _, _ = linked()
    w.bye("enough")
    door.receive_data(w.data_to_send())
    assert door.next_event() == WatcherLeft("enough")
    assert door.phase is DoorPhase.CLOSED
    with pytest.raises(Exception, match="not let in"):
        door.show(b"")


def test_a_table_goes_over_the_wire_unchanged_and_holds_no_hidden_card() -> None:
    m = Match(SEED)
    g = m.game
    hidden = {c for h in g.hands for c in h} | set(g.stock) | {c for p in g.payoff for c in p[:-1]}
    mv = Move(g.turn, HAND, g.hands[g.turn][0], SIDE, 0)
    card = g.card_of(mv)
    m.apply(mv)
    shown = table(g, mv, card)
    raw = messages(table_frame(shown))[0]
    assert Table.from_wire(raw).shown == shown
    values = [v for v in raw.values() if isinstance(v, int)]
    cards = [c for sd in raw["sides"] for st in sd for c in st] + [c for st in raw["center"] for c in st]
    assert not set(cards) & hidden - {card}
    assert all(isinstance(v, int) for v in values) and SEED not in table_frame(shown)


def _lie(**change: Any) -> dict[str, Any]:
    raw = messages(table_frame(table(Match(SEED).game)))[0]
    raw.update(change)
    return raw


@pytest.mark.parametrize(
    "raw",
    [
        _lie(stock=60),  # the cards do not add up to 104
        _lie(tops=[5, 5]),  # one card in two places
        _lie(center=[bytes([1] * 12), b"", b""]),  # a center of 12 cards
        _lie(tops=[None, 3]),  # a pay-off pile without its top
        _lie(sides=[[bytes([200]), b"", b"", b""], [b"", b"", b"", b""]]),  # no such card
        _lie(turn=2),
        _lie(m=[0, "hand", 5, "side", 0]),  # a move without its card
        _lie(end=[0, 99, "payoff"]),
        _lie(f=8),  # a flag nobody defined
        _lie(f=True),
        _lie(f=4),  # "taken back", with no move
    ],
)
def test_a_lying_table_is_refused_by_the_watcher(raw: dict[str, Any]) -> None:
    with pytest.raises(RemoteProtocolError):
        Table.from_wire(raw)


def test_a_table_of_an_earlier_game_is_refused() -> None:
    m = Match(SEED)
    m.resign(0)
    m.next_game()
    door, w, _, _ = linked()
    door.show(watching_frame(("Ann", "Bob"), 50, None, False))
    door.show(table_frame(table(m.game)))
    door.show(table_frame(table(Match(SEED).game)))  # game 1 again
    w.receive_data(door.data_to_send())
    assert len(events_until_error(w)) == 2


def events_until_error(w: WatchEndpoint) -> list[object]:
    out: list[object] = []
    with pytest.raises(RemoteProtocolError) as e:
        while True:
            ev = w.next_event()
            assert not isinstance(ev, NeedData)
            out.append(ev)
    assert e.value.code is Refusal.SEQUENCE
    return out


def test_the_host_says_bye_at_the_end() -> None:
    door, w, _, _ = linked()
    door.bye(HostBye.saying(WatchStop.OVER))
    sent = door.data_to_send()
    assert messages(sent) == [{"t": "bye", "reason": "the match is over", "why": "over"}]
    w.receive_data(sent)
    assert w.next_event() == HostBye(WatchStop.OVER, "", "the match is over")
    assert door.closed and w.closed


def bye_heard(**wire: object) -> HostBye:
    """What a watcher let in makes of the host's ``bye`` with the fields ``wire``."""
    _, w, _, _ = linked()
    w.receive_data(encode({"t": "bye", **wire}))
    ev = w.next_event()
    assert isinstance(ev, HostBye) and w.closed
    return ev


def test_a_player_who_left_is_named_in_a_field_of_the_hosts_bye() -> None:
    bye = HostBye.saying(WatchStop.PEER_LEFT, "Bob")
    assert bye.to_wire() == {
        "t": "bye",
        "reason": "the match stopped: Bob left the match",
        "why": "peer-left",
        "name": "Bob",
    }
    assert list(bye.to_wire()) == ["t", "reason", "why", "name"]  # (the documented order)
    assert bye_heard(**bye.to_wire()) == bye
    unnamed = HostBye.saying(WatchStop.PEER_LEFT)
    assert "name" not in unnamed.to_wire()
    assert unnamed.reason == "the match stopped: the other player left the match"
    assert bye_heard(why="peer-left", name="\x1b[2JEve") == HostBye(WatchStop.PEER_LEFT, " [2JEve")


@pytest.mark.parametrize("stop", [s for s in WatchStop if s is not WatchStop.UNKNOWN])
def test_every_code_is_heard_as_its_code_whatever_the_words(stop: WatchStop) -> None:
    said = HostBye.saying(stop)
    assert said.to_wire()["why"] == stop.value and said.reason  # (words for older watchers)
    assert bye_heard(reason="words that say something else", why=stop.value).why is stop
    assert bye_heard(why=stop.value) == HostBye(stop)  # (no words: the code is enough)


@pytest.mark.parametrize(
    "wire",
    [
        {"reason": "the match stopped: Bob left the match"},  # an older host: its words, not read back
        {"reason": "the match stopped: Bob left the match", "why": "meteor"},  # a newer host's code
        {"reason": "the match stopped: Bob left the match", "why": "unknown"},
        {"reason": "the match stopped: Bob left the match", "why": "meteor", "name": "Bob"},
    ],
)
def test_a_code_not_known_is_heard_as_unknown_with_the_hosts_words(wire: dict[str, object]) -> None:
    assert bye_heard(**wire) == HostBye(WatchStop.UNKNOWN, "", "the match stopped: Bob left the match")


@pytest.mark.parametrize(
    "wire",
    [
        {"why": 3},
        {"why": b"peer-left"},
        {"why": ""},
        {"why": "x" * 33},
        {"why": "peer-left", "name": "B" * 41},
        {"why": "peer-left", "name": 7},
        {"why": "storage", "name": "Bob"},  # a name only with peer-left
        {"name": "Bob"},  # a name without a code
    ],
)
def test_a_malformed_bye_is_refused_by_the_watcher(wire: dict[str, object]) -> None:
    _, w, _, _ = linked()
    w.receive_data(encode({"t": "bye", "reason": "bye", **wire}))
    with pytest.raises(RemoteProtocolError) as e:
        w.next_event()
    assert e.value.code is Refusal.MALFORMED and w.closed
    assert [f["t"] for f in messages(w.data_to_send())] == ["refuse"]


def test_the_documents_frame_of_a_bye_is_the_hosts_byte_for_byte() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    m = re.search(r"byte for byte \(80 bytes:.*?\n\n((?:    [0-9a-f ]+\n)+)", doc, re.S)
    assert m is not None, "the watcher's bye example is gone from docs/protocol.md"
    documented = bytes.fromhex(m.group(1))
    assert documented == encode(HostBye.saying(WatchStop.PEER_LEFT, "Bob").to_wire())
    assert len(documented) == 80


def test_a_host_cannot_say_unknown_nor_name_a_player_who_did_not_leave() -> None:
    for stop, name in ((WatchStop.UNKNOWN, ""), (WatchStop.STORAGE, "Bob")):
        with pytest.raises(Exception, match="cannot say"):
            HostBye.saying(stop, name)


@pytest.mark.parametrize("early", ["watching", "table"])
def test_a_host_message_out_of_place_is_refused_by_the_watcher(early: str) -> None:
    """Nothing of the match before the host's hello."""
    g = Match(SEED).game
    w = WatchEndpoint()
    w.initiate()
    sent = {
        "watching": watching_frame(("Ann", "Bob"), 50, None, False),
        "table": table_frame(table(g)),
    }[early]
    w.receive_data(sent)
    with pytest.raises(RemoteProtocolError) as e:
        events(w.next_event)
    assert e.value.code is Refusal.UNEXPECTED and w.phase is WatchPhase.CLOSED
    assert messages(w.data_to_send())[-1] == {"t": "refuse", "code": "unexpected", "msg": str(e.value)}


def test_a_private_game_has_no_view_until_its_deal_is_shown() -> None:
    """The engine holds a stand-in game dealt from the seed while a private deal is made:
    the core never hands it out as the seat's view (nor so as the watchers' table)."""
    from p2p_spite.core.game import GameCore
    from p2p_spite.core.private import PrivateDeck

    seeded = GameCore(Match(SEED, 30, ("Ann", "Bob")), 0, bytes(16))
    assert seeded.view() is not None
    private = GameCore(Match(SEED, 30, ("Ann", "Bob")), 0, bytes(16))
    private.private = PrivateDeck(private)
    assert private.view() is None and private.start_events() == []
