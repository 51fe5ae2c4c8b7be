"""The protocol core alone: two endpoints linked in memory, no sockets."""

from __future__ import annotations

import struct

import msgpack
import pytest

from p2p_spite.bots import make_bot
from p2p_spite.contracts.session import GameEnded, MovePlayed
from p2p_spite.core.game import Action, action_tag, chain
from p2p_spite.core.keys import commitment
from p2p_spite.core.messages import HOST, JOIN, Hello, Role, Setup
from p2p_spite.core.protocol import (
    ActionReceived,
    Endpoint,
    Handshaken,
    LocalConfig,
    PeerRefused,
    Phase,
    SeedOrigin,
)
from p2p_spite.core.wire import (
    MAX_DEPTH,
    MAX_FRAME,
    FrameDecoder,
    LocalProtocolError,
    Refusal,
    RemoteProtocolError,
    encode,
)
from p2p_spite.engine import HAND, SIDE, Move
from tests.support.net import drain, frames, messages, pair, playing, pump

SEED = bytes(range(32))


def cfgs(**host: object) -> tuple[LocalConfig, LocalConfig]:
    h = LocalConfig(HOST, "Ann", **host)  # type: ignore[arg-type]
    j = LocalConfig(JOIN, "Bob")
    return h, j


def test_handshake_with_a_chosen_seed() -> None:
    h, j, eh, ej = pair(*cfgs(seed=SEED, target=30, max_games=3))
    assert [type(e) for e in eh] == [Handshaken] and [type(e) for e in ej] == [Handshaken]
    assert ej[0].seed_by is SeedOrigin.HOST and ej[0].peer_name == "Ann" and eh[0].peer_name == "Bob"
    assert h.phase is Phase.PLAY and j.phase is Phase.PLAY
    assert h.core is not None and j.core is not None
    assert h.core.match.seed == j.core.match.seed == SEED
    assert j.core.match.target == 30 and j.core.max_games == 3
    assert h.core.match.players == j.core.match.players == ("Ann", "Bob")
    assert (h.core.seat, j.core.seat) == (0, 1)
    assert h.core.match_id == j.core.match_id


def test_commit_reveal_gives_both_the_same_fresh_seed() -> None:
    seeds = set()
    for _ in range(3):
        h, j, eh, ej = pair(*cfgs())
        assert isinstance(eh[0], Handshaken) and isinstance(ej[0], Handshaken)
        assert ej[0].seed_by is SeedOrigin.BOTH
        assert h.core is not None and j.core is not None
        assert h.core.match.seed == j.core.match.seed
        seeds.add(h.core.match.seed)
    assert len(seeds) == 3


def test_commitments_are_bound_to_the_role() -> None:
    s = b"x" * 32
    mid = b"m" * 16
    assert commitment(HOST, s, mid) != commitment(JOIN, s, mid)


def _raw(ep: Endpoint, msg: dict[str, object]) -> None:
    ep.receive_data(encode(msg))


def _until_seed_phase() -> tuple[Endpoint, Endpoint, list[bytes]]:
    """Host and joiner right after hello, with the host's setup+commit captured."""
    h, j = Endpoint(LocalConfig(HOST, "Ann")), Endpoint(LocalConfig(JOIN, "Bob"))
    h.initiate()
    j.initiate()
    j.receive_data(h.data_to_send())
    h.receive_data(j.data_to_send())
    drain(h, [])
    drain(j, [])
    return h, j, frames(h.data_to_send())


def test_an_echoed_commitment_is_refused() -> None:
    h, _j, frames = _until_seed_phase()
    msgs = [msgpack.unpackb(f[4:]) for f in frames]
    assert [m["t"] for m in msgs] == ["setup", "commit"]
    # a joiner that echoes the host's commitment
    _raw(h, {"t": "commit", "c": msgs[1]["c"]})
    evs: list[object] = []
    drain(h, evs)
    assert isinstance(evs[-1], RemoteProtocolError) and evs[-1].code == "echo"
    assert h.phase is Phase.CLOSED and h.core is None


def test_a_reveal_that_does_not_match_its_commitment_is_refused() -> None:
    h = _until_seed_phase()[0]
    _raw(h, {"t": "commit", "c": b"\x01" * 32})
    _raw(h, {"t": "reveal", "r": b"\x02" * 32})
    evs: list[object] = []
    drain(h, evs)
    assert isinstance(evs[-1], RemoteProtocolError) and evs[-1].code == "bad-reveal"
    assert h.core is None


def test_a_reveal_before_the_commitment_is_refused() -> None:
    h = _until_seed_phase()[0]
    _raw(h, {"t": "reveal", "r": b"\x02" * 32})
    evs: list[object] = []
    drain(h, evs)
    assert isinstance(evs[-1], RemoteProtocolError)


def test_version_mismatch_is_refused_clearly_on_both_sides() -> None:
    hc, jc = cfgs()
    jc.protocol_version = 3
    _h, _j, eh, ej = pair(hc, jc)
    assert isinstance(eh[-1], RemoteProtocolError) and eh[-1].code == "version"
    assert "version 3" in str(eh[-1]) and "version 2" in str(eh[-1])
    # the joiner sees the mismatch itself (and the host's refusal)
    assert isinstance(ej[-1], RemoteProtocolError | PeerRefused) and ej[-1].code == "version"


@pytest.mark.parametrize("role", [Role.HOST, Role.JOIN])
def test_a_hello_that_asks_for_a_code_is_refused_and_no_code_is_proved_inside(role: Role) -> None:
    """A join code is the opening's (net/opening.py): the handshake has no message about
    it.  A peer whose hello says ``code: true`` (it would prove a code inside, as older
    versions did) is refused at once: ``no-code`` by a host, ``code-needed`` by a joiner."""
    me = Endpoint(LocalConfig(role, "Ann"))
    me.initiate()
    mine = messages(me.data_to_send())
    assert [m["t"] for m in mine] == ["hello"] and mine[0]["code"] is False
    peer_role = Role.JOIN if role is Role.HOST else Role.HOST
    me.receive_data(encode(Hello(2, peer_role, "Eve", bytes(16), True).to_wire()))
    evs: list[object] = []
    drain(me, evs)
    want = "no-code" if role is Role.HOST else "code-needed"
    assert isinstance(evs[-1], RemoteProtocolError) and evs[-1].code == want
    assert [m["t"] for m in messages(me.data_to_send())] == ["refuse"] and me.phase is Phase.CLOSED


def test_an_auth_is_no_message_of_the_protocol() -> None:
    """The old challenge-response's ``auth`` is an unknown type, in any phase."""
    h = Endpoint(LocalConfig(HOST, "Ann"))
    h.initiate()
    h.receive_data(encode({"t": "auth", "mac": bytes(32)}))
    evs: list[object] = []
    drain(h, evs)
    assert isinstance(evs[-1], RemoteProtocolError) and evs[-1].code == "unknown-type"


def test_moves_flow_and_are_acknowledged() -> None:
    h, j = playing()
    assert h.core is not None and j.core is not None
    g = h.core.match.game
    mover, other = (h, j) if g.turn == 0 else (j, h)
    assert mover.core is not None
    move = mover.core.match.game.legal_moves()[0]
    mover.core.apply(Action(1, move.seat, move))
    mover.send_action(0)
    ea, eb = pump(mover, other)
    assert any(isinstance(e, MovePlayed) and e.move == move for e in eb)
    assert other.core is not None and other.core.match.game.digest() == mover.core.match.game.digest()
    assert [type(e).__name__ for e in ea] == ["Acked"]


def test_an_action_received_is_acknowledged_only_when_the_caller_says_it_is_written_down() -> None:
    """The endpoint writes nothing: it hands the action over checked and applied, and the
    acknowledgement waits for acknowledge() (the shell's journal comes first); it reads
    nothing more from the peer before then."""
    h, j = playing()
    assert h.core is not None and j.core is not None
    mover, other = (h, j) if h.core.match.game.turn == 0 else (j, h)
    mc, oc = mover.core, other.core
    assert mc is not None and oc is not None
    move = mc.match.game.legal_moves()[0]
    mc.apply(Action(1, move.seat, move))
    mover.send_action(0)
    mover.send_chat("then this")
    other.receive_data(mover.data_to_send())
    ev = other.next_event()
    assert isinstance(ev, ActionReceived) and ev.n == 0 and ev.done.action.move == move
    assert oc.position == 1 and other.data_to_send() == b""  # applied, not acknowledged
    with pytest.raises(LocalProtocolError):
        other.next_event()  # the chat behind it waits for the acknowledgement
    other.acknowledge()
    assert messages(other.data_to_send()) == [{"t": "ack", "n": 1}]
    assert type(other.next_event()).__name__ == "ChatReceived"


def _not_my_turn(h: Endpoint, j: Endpoint) -> tuple[Endpoint, Endpoint]:
    """(the endpoint whose peer is NOT on turn, that peer)."""
    assert h.core is not None
    return (h, j) if h.core.match.game.turn == 0 else (j, h)


def test_an_out_of_turn_move_is_refused_and_changes_nothing() -> None:
    honest, cheat = _not_my_turn(*playing())
    assert honest.core is not None and cheat.core is not None
    before = honest.core.match.game.digest()
    seat = cheat.core.seat
    card = cheat.core.match.game.hands[seat][0]
    bad = Move(seat, HAND, card, SIDE, 0)
    honest.receive_data(encode({"t": "move", "n": 0, "m": list(bad), "d": b"\0" * 32}))
    evs: list[object] = []
    drain(honest, evs)
    assert isinstance(evs[-1], RemoteProtocolError) and evs[-1].code == "illegal-move"
    assert "turn" in str(evs[-1])
    assert honest.core.match.game.digest() == before and honest.core.position == 0
    # the cheat is told
    cheat.receive_data(honest.data_to_send())
    cevs: list[object] = []
    drain(cheat, cevs)
    assert isinstance(cevs[-1], PeerRefused) and cevs[-1].code == "illegal-move"


def test_a_move_for_the_other_seat_is_refused() -> None:
    h, j = playing()
    assert h.core is not None
    # whoever is on turn, the peer may not move the honest side's own cards
    honest = h
    seat = 0
    g = h.core.match.game
    if g.turn != 0:
        honest, seat = j, 1
    assert honest.core is not None
    m = honest.core.match.game.legal_moves()[0]
    assert m.seat == seat
    honest.receive_data(
        encode({"t": "move", "n": 0, "m": list(m), "d": honest.core.digest_after(Action(1, seat, m))})
    )
    evs: list[object] = []
    drain(honest, evs)
    # an action for the honest side's own turn: only it makes those
    assert isinstance(evs[-1], RemoteProtocolError) and evs[-1].code == Refusal.FORGED
    assert honest.core.position == 0


def test_desync_is_detected_and_changes_nothing() -> None:
    h, j = playing()
    assert h.core is not None and j.core is not None
    mover, other = (h, j) if h.core.match.game.turn == 0 else (j, h)
    assert mover.core is not None and other.core is not None
    move = mover.core.match.game.legal_moves()[0]
    before = other.core.match.game.digest()
    other.receive_data(encode({"t": "move", "n": 0, "m": list(move), "d": b"\x07" * 32, "a": b"\x01" * 32}))
    evs: list[object] = []
    drain(other, evs)
    assert isinstance(evs[-1], RemoteProtocolError) and evs[-1].code == "desync"
    assert other.core.match.game.digest() == before and other.core.position == 0
    mover.receive_data(other.data_to_send())
    mevs: list[object] = []
    drain(mover, mevs)
    assert isinstance(mevs[-1], PeerRefused) and mevs[-1].code == "desync"


def test_a_message_of_unknown_type_is_refused() -> None:
    h, _j = playing()
    h.receive_data(encode({"t": "teleport", "x": 1}))
    evs: list[object] = []
    drain(h, evs)
    assert isinstance(evs[-1], RemoteProtocolError) and evs[-1].code == "unknown-type"


@pytest.mark.parametrize("to_host", [True, False])
def test_a_setup_out_of_its_place_cannot_turn_a_match_private(to_host: bool) -> None:
    """A setup the joiner sends the host (only the host sets a match up), or a second one
    the host sends in play (late, twice), is refused, and the match stays what it was."""
    h, j = playing()
    target = h if to_host else j
    before = (target.core.position, target.core.head, target.core.private)  # type: ignore[union-attr]
    late = Setup(bytes(16), SEED, 50, None, ("Ann", "Bob"), False, True)
    target.receive_data(encode(late.to_wire()))
    evs: list[object] = []
    drain(target, evs)
    assert isinstance(evs[-1], RemoteProtocolError) and evs[-1].code == Refusal.UNEXPECTED
    c = target.core
    assert c is not None and (c.position, c.head, c.private) == before and c.private is None


def test_a_whole_match_in_memory_gives_the_same_history_on_both_sides() -> None:
    h, j = playing()
    assert h.core is not None and j.core is not None
    bots = {0: make_bot("easy", 1), 1: make_bot("easy", 2)}
    eps = {0: h, 1: j}
    for _ in range(20_000):
        if h.core.finished:
            break
        seat = h.core.match.game.turn
        ep = eps[seat]
        assert ep.core is not None
        view = ep.core.view()
        assert view is not None
        move = bots[seat].choose(view)
        n = ep.core.position
        ep.core.apply(Action(ep.core.match.game_number, seat, move))
        ep.send_action(n)
        pump(h, j)
    assert h.core.finished and j.core.finished
    assert h.core.head == j.core.head  # the same actions, hash-chained
    assert h.core.match.results == j.core.match.results and h.core.match.scores == j.core.match.scores
    assert h.core.match.game_number > 2 and h.core.window_start > 0  # only the last two games kept


def _nest(depth: int, inner: str) -> object:
    """A value ``depth`` containers deep (lists, or maps when ``inner`` is "map")."""
    v: object = 1
    for _ in range(depth):
        v = {"k": v} if inner == "map" else [v]
    return v


@pytest.mark.parametrize("inner", ["list", "map", "list in a list of scalars"])
def test_nesting_limit_is_exact(inner: str) -> None:
    """MAX_DEPTH containers inside one another pass (the message map counts as one);
    one more is refused, whether the nesting hides in a list or in a map."""
    for depth, ok in ((MAX_DEPTH - 1, True), (MAX_DEPTH, False)):
        value = _nest(depth, "map" if inner == "map" else "list")
        if inner == "list in a list of scalars":
            value = [1, 2, *(value if isinstance(value, list) else [value])]
        d = FrameDecoder()
        d.feed(encode({"t": "x", "a": 7, "b": value}))
        if ok:
            assert d.next_message() == {"t": "x", "a": 7, "b": value}
        else:
            with pytest.raises(RemoteProtocolError, match="nested"):
                d.next_message()


def test_frame_limits() -> None:
    d = FrameDecoder()
    d.feed(struct.pack(">I", MAX_FRAME + 1))
    with pytest.raises(RemoteProtocolError):
        d.next_message()
    d = FrameDecoder()
    d.feed(struct.pack(">I", 0))
    with pytest.raises(RemoteProtocolError):
        d.next_message()
    deep = b"\x91" * 3000 + b"\x01"
    d = FrameDecoder()
    d.feed(struct.pack(">I", len(deep)) + deep)
    with pytest.raises(RemoteProtocolError):
        d.next_message()
    big = msgpack.packb({"t": "chat", "text": "x" * 5000})
    d = FrameDecoder()
    d.feed(struct.pack(">I", len(big)) + big)
    with pytest.raises(RemoteProtocolError):
        d.next_message()
    arr = msgpack.packb({"t": "x", "a": list(range(100))})
    d = FrameDecoder()
    d.feed(struct.pack(">I", len(arr)) + arr)
    with pytest.raises(RemoteProtocolError):
        d.next_message()
    two = msgpack.packb({"t": "a"}) + msgpack.packb({"t": "b"})
    d = FrameDecoder()
    d.feed(struct.pack(">I", len(two)) + two)
    with pytest.raises(RemoteProtocolError):
        d.next_message()
    # a frame arriving a byte at a time is fine
    d = FrameDecoder()
    for b in encode({"t": "ping", "k": 1}):
        assert d.next_message() is None
        d.feed(bytes([b]))
    assert d.next_message() == {"t": "ping", "k": 1}


def test_resuming_with_disagreeing_histories_is_refused() -> None:
    h, j = playing()
    assert h.core is not None and j.core is not None
    hc, jc = h.core, j.core
    g = hc.match.game
    seat = g.turn
    legal = g.legal_moves()
    a, b = legal[0], legal[-1]
    assert a != b
    hc.apply(Action(1, seat, a))  # each side believes a different move was made
    jc.apply(Action(1, seat, b))
    h2, j2 = Endpoint(LocalConfig(HOST, "Ann"), hc), Endpoint(LocalConfig(JOIN, "Bob"), jc)
    h2.initiate()
    j2.initiate()
    eh, ej = pump(h2, j2)
    assert isinstance(eh[-1], RemoteProtocolError | PeerRefused) and eh[-1].code == "history"
    assert isinstance(ej[-1], RemoteProtocolError | PeerRefused) and ej[-1].code == "history"
    assert hc.position == jc.position == 1


def test_reconnecting_sends_the_missing_actions() -> None:
    h, j = playing()
    assert h.core is not None and j.core is not None
    hc, jc = h.core, j.core
    mover = hc if hc.match.game.turn == 0 else jc
    for _ in range(3):  # three actions the other side never received
        g = mover.match.game
        if g.turn != mover.seat:
            break
        m = (
            next(x for x in g.legal_moves() if x.target == "center")
            if any(x.target == "center" for x in g.legal_moves())
            else g.legal_moves()[-1]
        )
        mover.apply(Action(g.game, mover.seat, m))
    n = mover.position
    assert n >= 1
    h2, j2 = Endpoint(LocalConfig(HOST, "Ann"), hc), Endpoint(LocalConfig(JOIN, "Bob"), jc)
    h2.initiate()
    j2.initiate()
    eh, ej = pump(h2, j2)
    assert isinstance(eh[0], Handshaken) and isinstance(ej[0], Handshaken)
    assert hc.position == jc.position == n and hc.head == jc.head
    assert hc.match.game.digest() == jc.match.game.digest()


def test_a_flood_of_unread_bytes_is_refused() -> None:
    from p2p_spite.core.wire import MAX_PENDING

    d = FrameDecoder()
    d.feed(b"\0" * (MAX_PENDING + 1))
    assert d.pending == 0  # nothing kept
    with pytest.raises(RemoteProtocolError):
        d.next_message()


def test_resign_on_turn_and_chat() -> None:
    from p2p_spite.contracts.session import ChatReceived, GameStarted
    from p2p_spite.engine import IllegalMoveError

    h, j = playing()
    assert h.core is not None and j.core is not None
    mover, other = (h, j) if h.core.match.game.turn == 0 else (j, h)
    assert mover.core is not None and other.core is not None
    with pytest.raises(IllegalMoveError):
        other.core.check_resign(other.core.seat)  # not on turn
    action = mover.core.check_resign(mover.core.seat)
    mover.core.apply(action)
    mover.send_action(0)
    mover.send_chat("good\x1b[2J game")
    _ea, eb = pump(mover, other)
    ended = [e for e in eb if isinstance(e, GameEnded)]
    assert ended and ended[0].result.reason == "resign" and ended[0].result.winner == other.core.seat
    assert any(isinstance(e, GameStarted) and e.game == 2 for e in eb)
    chats = [e for e in eb if isinstance(e, ChatReceived)]
    assert chats and chats[0].text == "good [2J game" and chats[0].seat == mover.core.seat
    assert other.core.match.scores == mover.core.match.scores and max(other.core.match.scores) > 0
    assert other.core.head == mover.core.head and other.core.match.results == mover.core.match.results


def test_a_resignation_out_of_turn_from_the_peer_is_refused() -> None:
    honest = _not_my_turn(*playing())[0]
    assert honest.core is not None
    before = honest.core.match.game.digest()
    cheat = 1 - honest.core.seat
    honest.receive_data(encode({"t": "resign", "n": 0, "g": 1, "s": cheat, "d": b"\0" * 32, "a": b"\1" * 32}))
    evs: list[object] = []
    drain(honest, evs)
    # off turn, a resignation is a request the side on turn makes its action, never an action
    assert isinstance(evs[-1], RemoteProtocolError) and evs[-1].code == Refusal.FORGED
    assert honest.core.match.game.digest() == before and honest.core.match.scores == [0, 0]


def test_resuming_needs_a_proof_of_the_match_and_never_sends_the_seed() -> None:
    from p2p_spite.core.game import GameCore
    from p2p_spite.engine import Match

    h, j = playing()
    assert h.core is not None and j.core is not None
    # the real joiner comes back: the seed is not on the wire, both prove the match
    h2, j2 = Endpoint(LocalConfig(HOST, "Ann"), h.core), Endpoint(LocalConfig(JOIN, "Bob"), j.core)
    h2.initiate()
    j2.initiate()
    wire = bytearray()
    for _ in range(20):
        for src, dst in ((h2, j2), (j2, h2)):
            d = src.data_to_send()
            wire += d
            dst.receive_data(d)
            drain(dst, [])
    assert h2.phase is Phase.PLAY and j2.phase is Phase.PLAY
    assert SEED not in wire
    # someone with the match id but not the seed
    fake = GameCore(Match(b"\x09" * 32, 50, ("Ann", "Bob")), 1, h.core.match_id)
    h3, j3 = Endpoint(LocalConfig(HOST, "Ann"), h.core), Endpoint(LocalConfig(JOIN, "Eve"), fake)
    h3.initiate()
    j3.initiate()
    eh, ej = pump(h3, j3)
    assert isinstance(eh[-1], RemoteProtocolError) and eh[-1].code == "bad-proof"
    assert isinstance(ej[-1], PeerRefused) and ej[-1].code == "bad-proof"
    assert not any(isinstance(e, Handshaken) for e in eh)


def test_chat_and_pings_are_rate_limited() -> None:
    from p2p_spite.contracts.session import ChatReceived
    from p2p_spite.core.protocol import CHAT_BURST, CHAT_RATE, PONG_BURST

    now = [0.0]
    h = Endpoint(LocalConfig(HOST, "Ann", seed=SEED), clock=lambda: now[0])
    j = Endpoint(LocalConfig(JOIN, "Bob"))
    h.initiate()
    j.initiate()
    pump(h, j)
    assert h.phase is Phase.PLAY
    for _ in range(PONG_BURST + 5):  # pings beyond a few are not answered
        j.send_ping(1)
    h.receive_data(j.data_to_send())
    drain(h, [])
    assert h.data_to_send().count(b"pong") == PONG_BURST
    for _ in range(CHAT_BURST):
        j.send_chat("hi")
    eh, _ej = pump(h, j)
    assert [type(e) for e in eh] == [ChatReceived] * CHAT_BURST
    now[0] += 1.0  # a second later: CHAT_RATE more, then a flood
    for _ in range(int(CHAT_RATE) + 1):
        j.send_chat("hi")
    eh, _ej = pump(h, j)
    assert [type(e) for e in eh[:-1]] == [ChatReceived] * int(CHAT_RATE)
    assert isinstance(eh[-1], RemoteProtocolError) and eh[-1].code == "flood"


def test_catching_up_accepts_our_own_action_that_our_journal_lost() -> None:
    """The joiner played, the host got it, then the joiner's disk lost it: at the sync
    the host sends it back and the joiner takes it (not 'seat 1 cannot play for seat 0')."""
    h, j = playing()
    assert h.core is not None and j.core is not None
    hc, jc = h.core, j.core
    while hc.match.game.turn != 1:  # the host discards until the joiner is on turn
        m = next(x for x in hc.match.game.legal_moves() if x.target == "side")
        for c in (hc, jc):
            c.apply(Action(c.match.game_number, 0, m))
    m = jc.match.game.legal_moves()[0]
    a = Action(hc.match.game_number, 1, m)
    tag = action_tag(jc.key, jc.match_id, hc.position, chain(hc.head, a))  # as the joiner sent it
    hc.apply(a, tag=tag)  # only the host still has it
    h2, j2 = Endpoint(LocalConfig(HOST, "Ann"), hc), Endpoint(LocalConfig(JOIN, "Bob"), jc)
    h2.initiate()
    j2.initiate()
    eh, ej = pump(h2, j2)
    assert not any(isinstance(e, RemoteProtocolError | PeerRefused) for e in eh + ej), (eh, ej)
    assert hc.position == jc.position and hc.head == jc.head
    assert jc.actions[-1].seat == 1 and not j2.catching_up


def test_actions_made_before_the_session_took_the_link_are_sent_after_all() -> None:
    """An action applied after the histories were compared but before the session
    attached the new connection (so nothing sent it) goes out with send_missing(),
    and only once."""
    h, j = playing()
    assert h.core is not None and j.core is not None
    mover, other = (h, j) if h.core.match.game.turn == 0 else (j, h)
    assert mover.core is not None and other.core is not None
    for _ in range(2):  # two moves made while no session was sending them
        move = mover.core.match.game.legal_moves()[0]
        mover.core.apply(Action(mover.core.match.game_number, move.seat, move))
    mover.send_missing()
    mover.send_missing()  # nothing twice
    pump(mover, other)
    assert other.core.position == mover.core.position == 2
    assert other.core.match.game.digest() == mover.core.match.game.digest()
