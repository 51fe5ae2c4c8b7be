"""Issue 9 at the protocol core: an action for a seat comes only from that seat's side
(the side on turn), our own actions come back only with our own tag, positions the peer
cannot hold are refused, and a player may resign at any time (the off-turn player's
resignation is a request the side on turn makes its next action)."""

from __future__ import annotations

from p2p_spite.contracts.session import GameEnded, GameStarted
from p2p_spite.core.game import Action, GameCore, action_tag, chain
from p2p_spite.core.messages import HOST, JOIN
from p2p_spite.core.protocol import Endpoint, LocalConfig, PeerRefused, Phase
from p2p_spite.core.wire import Refusal, RemoteProtocolError, encode
from p2p_spite.engine import Move
from tests.support.net import cores, drain, playing, pump, refused, resumed

SEED = bytes(range(32))


def _discard(core: GameCore) -> Move:
    return next(m for m in core.match.game.legal_moves() if m.target == "side")


def test_a_fresh_match_syncs_at_zero() -> None:
    """The old attack: sync pos 7 on a fresh match, then actions for the honest seat."""
    h, j = Endpoint(LocalConfig(HOST, "Ann", seed=SEED)), Endpoint(LocalConfig(JOIN, "Bob"))
    h.initiate()
    j.initiate()
    for _ in range(6):  # up to the joiner's sync, which it replaces with a lie
        h.receive_data(j.data_to_send())
        drain(h, [])
        data = h.data_to_send()
        j.receive_data(data)
        drain(j, [])
        if j.core is not None:
            break
    assert j.core is not None and h.core is not None
    j.data_to_send()  # the joiner's honest sync is dropped
    e = refused(h, {"t": "sync", "pos": 7, "hist": j.core.head})
    assert e.code is Refusal.POSITION
    assert h.core.position == 0


def test_our_own_action_comes_back_only_with_our_tag() -> None:
    """After a reconnection where the peer claims more than we have, an action for our
    seat with a forged tag is refused (forged), and our record holds no forged action."""
    h, j = playing()
    hc, jc = cores(h, j)
    while jc.match.game.turn != 0:  # the host on turn
        m = _discard(jc)
        for c in (hc, jc):
            c.apply(Action(c.match.game_number, 1, m))
    # the joiner (hostile) claims one more action: a move for the host's seat
    m = hc.match.game.legal_moves()[0]
    a = Action(jc.match.game_number, 0, m)
    jc.apply(a, tag=b"\x00" * 32)
    before = hc.position
    _h2, _j2, eh, _ej = resumed(hc, jc)
    assert isinstance(eh[-1], RemoteProtocolError) and eh[-1].code is Refusal.FORGED, eh
    assert hc.position == before


def test_a_resignation_of_our_seat_from_the_peer_is_refused() -> None:
    """The old attack: 'resign' actions for the honest seat."""
    h, j = playing()
    for victim in (h, j):
        vc = victim.core
        assert vc is not None
        d = vc.digest_after(Action(1, vc.seat))
        e = refused(victim, {"t": "resign", "n": 0, "g": 1, "s": vc.seat, "d": d, "a": b"\1" * 32})
        assert e.code in (Refusal.FORGED, Refusal.ILLEGAL_MOVE)
        assert vc.position == 0 and vc.match.scores == [0, 0]


def test_a_claimed_position_must_be_followed_by_its_actions() -> None:
    h, j = playing()
    hc, jc = cores(h, j)
    h2, j2 = Endpoint(LocalConfig(HOST, "Ann"), hc), Endpoint(LocalConfig(JOIN, "Bob"), jc)
    h2.initiate()
    j2.initiate()
    for _ in range(4):  # hello, proof, setup: up to the joiner's sync, which is a lie
        h2.receive_data(j2.data_to_send())
        drain(h2, [])
        if h2.phase is Phase.SYNC:
            break
        j2.receive_data(h2.data_to_send())
        drain(j2, [])
    h2.receive_data(encode({"t": "sync", "pos": 5, "hist": b"\0" * 32}))
    drain(h2, [])
    assert h2.catching_up
    e = refused(h2, {"t": "chat", "text": "hi"})
    assert e.code is Refusal.POSITION


def test_the_lost_tail_of_our_journal_comes_back_with_our_tag() -> None:
    h, j = playing()
    hc, jc = cores(h, j)
    while hc.match.game.turn != 1:
        m = _discard(hc)
        for c in (hc, jc):
            c.apply(Action(c.match.game_number, 0, m))
    m = jc.match.game.legal_moves()[0]
    a = Action(hc.match.game_number, 1, m)
    hc.apply(a, tag=action_tag(jc.key, jc.match_id, hc.position, chain(hc.head, a)))
    _h2, _j2, eh, ej = resumed(hc, jc)
    assert not any(isinstance(e, RemoteProtocolError | PeerRefused) for e in eh + ej), (eh, ej)
    assert jc.head == hc.head and jc.actions[-1] == a


def test_resigning_off_turn_is_a_request_the_side_on_turn_makes_its_action() -> None:
    h, j = playing()
    hc, _jc = cores(h, j)
    on, off = (h, j) if hc.match.game.turn == 0 else (j, h)
    onc, offc = cores(on, off)
    game = offc.request_resign()
    off.send_resign_request(game)
    _eon, eoff = pump(on, off)
    ended = [e for e in eoff if isinstance(e, GameEnded)]
    assert ended and ended[0].result.reason == "resign" and ended[0].result.winner == onc.seat
    assert onc.actions[-1] == Action(1, offc.seat) and onc.authors[-1] == onc.seat
    assert onc.head == offc.head and onc.match.results == offc.match.results  # the same actions
    assert any(isinstance(e, GameStarted) and e.game == 2 for e in eoff)


def test_a_resignation_crossing_a_move() -> None:
    """The off-turn player asks to resign while the player on turn discards: the request
    reaches a side that is no longer on turn and is ignored; the turn comes to the
    requester, whose side makes the resignation its next action.  One resignation, the
    same records."""
    h, j = playing()
    hc, _jc = cores(h, j)
    on, off = (h, j) if hc.match.game.turn == 0 else (j, h)
    onc, offc = cores(on, off)
    m = _discard(onc)
    onc.apply(Action(1, onc.seat, m))
    on.send_action(onc.position - 1)  # on its way ...
    off.send_resign_request(offc.request_resign())  # ... while this one is
    crossing_on, crossing_off = on.data_to_send(), off.data_to_send()
    on.receive_data(crossing_off)
    eon: list[object] = []
    drain(on, eon)
    assert onc.position == 1  # not on turn any more: nothing to do
    off.receive_data(crossing_on)
    eoff: list[object] = []
    drain(off, eoff)
    pump(on, off)
    assert offc.actions[-1] == Action(1, offc.seat) and offc.authors[-1] == offc.seat
    assert [a.move is None for a in onc.actions.kept()] == [False, True]
    assert onc.head == offc.head and onc.match.results == offc.match.results  # the same actions
    assert onc.match.scores == offc.match.scores and onc.match.scores[onc.seat] > 0


def test_a_request_crossing_the_end_of_its_game_is_void() -> None:
    h, j = playing()
    hc, _jc = cores(h, j)
    on, off = (h, j) if hc.match.game.turn == 0 else (j, h)
    onc, offc = cores(on, off)
    onc.apply(onc.check_resign(onc.seat))  # the player on turn resigns game 1 ...
    on.send_action(0)
    off.send_resign_request(offc.request_resign())  # ... while the other asks to resign it
    pump(on, off)
    assert len(onc.actions) == len(offc.actions) == 1
    assert onc.match.game_number == offc.match.game_number == 2
    assert onc.match.game.result is None and offc.match.game.result is None


def test_a_request_for_a_game_not_yet_dealt_is_refused() -> None:
    h, _j = playing()
    e = refused(h, {"t": "resign-request", "g": 2})
    assert e.code is Refusal.SEQUENCE


def test_an_action_applied_as_the_connection_breaks_still_reaches_the_driver() -> None:
    """The reconnect hang (issue 9, item 5): the peer's discard arrived, was applied and
    journaled; writing its acknowledgement found the connection reset (asyncio closes the
    transport inside write()), and the pump stopped before building the action's events.
    After the reconnection both sides were at the same action, and the bot whose turn it
    now was never saw an event saying so.  The events of an applied action are now
    delivered whatever happens to the connection."""
    import asyncio

    from p2p_spite.core.protocol import ActionReceived, Handshaken
    from p2p_spite.net.link import Link, LinkNews

    class ResetOnWrite:
        closing = False

        def is_closing(self) -> bool:
            return self.closing

        def write(self, data: bytes) -> None:
            self.closing = True  # as asyncio does when send() finds the connection reset

        def get_write_buffer_size(self) -> int:
            return 0

        def close(self) -> None:
            self.closing = True

    class Owner:
        def __init__(self) -> None:
            self.events: list[object] = []

        def news(self, link: Link, ev: LinkNews) -> None:
            self.events.append(ev)
            if isinstance(ev, ActionReceived):  # written down (no journal here), acknowledged
                link.endpoint.acknowledge()
                link.flush()  # the write finds the connection reset

    async def main() -> list[object]:
        h, j = playing()
        hc, _jc = cores(h, j)
        sender, receiver = (h, j) if hc.match.game.turn == 0 else (j, h)
        sc, rc = cores(sender, receiver)
        link = Link(receiver)
        link.transport = ResetOnWrite()  # type: ignore[assignment]
        link.handshaken.set_result(Handshaken("x", None, 0, 0))
        owner = Owner()
        link.sink = owner.news
        m = _discard(sc)
        sc.apply(Action(1, sc.seat, m))
        sender.send_action(0)
        link.data_received(sender.data_to_send())
        assert rc.position == 1  # applied (and journaled) ...
        return owner.events

    events = asyncio.run(main())
    received = [e for e in events if isinstance(e, ActionReceived)]
    assert [e.n for e in received] == [0]  # ... and handed to the owner, which shows it
