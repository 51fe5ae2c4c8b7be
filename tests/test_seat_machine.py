"""The seat machine alone (core/machine.py): an action in, its effects out, in order; no
sockets, no files (two endpoints linked in memory)."""

from __future__ import annotations

from p2p_spite.core.effects import Flush, MakeDurable, Show, WriteEntry
from p2p_spite.core.game import Action
from p2p_spite.core.machine import SeatMachine
from p2p_spite.core.messages import HOST, JOIN
from p2p_spite.core.protocol import ActionReceived, Endpoint, LocalConfig
from p2p_spite.core.wire import FrameDecoder
from p2p_spite.session import GameEnded, GameStarted, MovePlayed
from tests.support.net import pair

SEED = bytes(range(32))


def _playing() -> tuple[Endpoint, Endpoint]:
    """(the endpoint whose seat is on turn, its peer), both playing."""
    h, j, _, _ = pair(LocalConfig(HOST, "Ann", seed=SEED), LocalConfig(JOIN, "Bob"))
    assert h.core is not None
    return (h, j) if h.core.match.game.turn == h.core.seat else (j, h)


def _types(data: bytes) -> list[object]:
    dec = FrameDecoder()
    dec.feed(data)
    out = []
    while (m := dec.next_message()) is not None:
        out.append(m["t"])
    return out


def test_our_move_is_written_down_before_its_bytes_go_and_shown_last() -> None:
    mover, _ = _playing()
    core = mover.core
    assert core is not None
    move = core.match.game.legal_moves()[0]
    done = core.commit(Action(1, core.seat, move))
    fx = SeatMachine(core).settle(done, mover)
    assert fx[:2] == [WriteEntry(0, done.action, None), Flush()]
    assert len(fx) == 3 and isinstance(fx[2], Show) and isinstance(fx[2].event, MovePlayed)
    assert _types(mover.data_to_send()) == ["move"]  # queued: it leaves on Flush


def test_the_peers_action_is_written_with_its_tag_then_acknowledged() -> None:
    mover, other = _playing()
    mc, oc = mover.core, other.core
    assert mc is not None and oc is not None
    move = mc.match.game.legal_moves()[0]
    SeatMachine(mc).settle(mc.commit(Action(1, mc.seat, move)), mover)
    other.receive_data(mover.data_to_send())
    ev = other.next_event()
    assert isinstance(ev, ActionReceived) and ev.tag is not None
    assert other.data_to_send() == b""  # not acknowledged before it is written down
    fx = SeatMachine(oc).settle(ev.done, other, ev)
    assert fx[:2] == [WriteEntry(0, ev.done.action, ev.tag), Flush()]
    assert [type(f) for f in fx[2:]] == [Show]
    assert _types(other.data_to_send()) == ["ack"]


def test_without_a_connection_nothing_is_sent() -> None:
    mover, _ = _playing()
    core = mover.core
    assert core is not None
    move = core.match.game.legal_moves()[0]
    done = core.commit(Action(1, core.seat, move))
    fx = SeatMachine(core).settle(done, None)
    assert [type(f) for f in fx] == [WriteEntry, Show]
    assert mover.data_to_send() == b""


def test_a_games_end_is_made_durable_before_it_is_shown_and_before_the_next_deal() -> None:
    mover, _ = _playing()
    core = mover.core
    assert core is not None
    machine = SeatMachine(core)
    done = core.commit(core.check_resign(core.seat))
    fx = machine.settle(done, mover)
    assert fx[:3] == [WriteEntry(0, done.action, None), Flush(), MakeDurable(core.match)]
    shown = fx[3]
    assert len(fx) == 4 and isinstance(shown, Show) and isinstance(shown.event, GameEnded)
    assert core.match.game_number == 1 and core.match.game.result is not None  # not dealt yet
    dealt = machine.deal()
    assert core.match.game_number == 2
    assert len(dealt) == 1 and isinstance(dealt[0], Show) and isinstance(dealt[0].event, GameStarted)
    assert machine.deal() == []  # (dealt once)
