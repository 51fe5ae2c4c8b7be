"""The seat machine alone (core/machine.py): an action in, its effects out, in order; no
sockets, no files (two endpoints linked in memory)."""

from __future__ import annotations

from p2p_spite.contracts.news import Owed, Stalled
from p2p_spite.contracts.session import GameEnded, GameStarted, MovePlayed, WatchersChanged
from p2p_spite.core.effects import Flush, MakeDurable, PeerOverdue, Show, WakeAt, WriteEntry
from p2p_spite.core.game import Action, Committed, GameCore
from p2p_spite.core.machine import SeatMachine
from p2p_spite.core.messages import HOST, JOIN
from p2p_spite.core.protocol import ActionReceived, Endpoint, LocalConfig
from p2p_spite.core.wire import Refusal
from tests.support.net import messages, pair, playing

SEED = bytes(range(32))


def _playing() -> tuple[Endpoint, Endpoint]:
    """(the endpoint whose seat is on turn, its peer), both playing."""
    h, j = playing()
    assert h.core is not None
    return (h, j) if h.core.match.game.turn == h.core.seat else (j, h)


def _types(data: bytes) -> list[object]:
    return [m["t"] for m in messages(data)]


def _our_move(ep: Endpoint) -> tuple[GameCore, Committed]:
    """``ep``'s seat, on turn, commits its first legal move."""
    core = ep.core
    assert core is not None
    move = core.match.game.legal_moves()[0]
    return core, core.commit(Action(1, core.seat, move))


def test_our_move_is_written_down_before_its_bytes_go_and_shown_last() -> None:
    mover, _ = _playing()
    core, done = _our_move(mover)
    fx = SeatMachine(core).settle(done, mover)
    assert fx[:2] == [WriteEntry(0, done.action, None), Flush()]
    assert len(fx) == 3 and isinstance(fx[2], Show) and isinstance(fx[2].event, MovePlayed)
    assert _types(mover.data_to_send()) == ["move"]  # queued: it leaves on Flush


def test_the_peers_action_is_written_with_its_tag_then_acknowledged() -> None:
    mover, other = _playing()
    oc = other.core
    assert oc is not None
    mc, done = _our_move(mover)
    SeatMachine(mc).settle(done, mover)
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
    core, done = _our_move(mover)
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


def _host_and_joiner() -> tuple[Endpoint, Endpoint]:
    h, j, _, _ = pair(LocalConfig(HOST, "Ann", seed=SEED), LocalConfig(JOIN, "Bob"))
    return h, j


def test_how_many_watch_is_shown_and_told_at_most_once_a_second() -> None:
    host, _ = _host_and_joiner()
    assert host.core is not None
    machine = SeatMachine(host.core, watchers=4)
    assert machine.watchers(1, host, 10.0) == [Show(WatchersChanged(1)), Flush()]
    assert _types(host.data_to_send()) == ["watchers"]
    # a second change within the second waits for it: shown now, told at 11.0
    assert machine.watchers(2, host, 10.5) == [Show(WatchersChanged(2)), WakeAt(11.0)]
    assert machine.watchers(3, host, 10.7) == [Show(WatchersChanged(3))]  # (woken once)
    assert host.data_to_send() == b""
    assert machine.tick(host, 11.0) == [Flush()]  # the last count then
    assert messages(host.data_to_send()) == [{"t": "watchers", "n": 3, "most": 4}]
    assert machine.tick(host, 11.5) == []  # (no wake-up was asked for)


def test_a_new_connection_is_told_the_count_and_a_lost_one_nothing() -> None:
    host, _ = _host_and_joiner()
    assert host.core is not None
    machine = SeatMachine(host.core, watchers=4)
    assert machine.watchers(2, None, 5.0) == [Show(WatchersChanged(2))]  # no connection now
    assert machine.linked(host, 6.0) == [Flush()]
    assert messages(host.data_to_send()) == [{"t": "watchers", "n": 2, "most": 4}]
    assert machine.linked(host, 9.0) == []  # it knows
    again, _ = _host_and_joiner()  # another connection: it may not know
    assert machine.linked(again, 9.1) == [Flush()]


def test_a_host_that_lets_nobody_watch_sends_no_count_and_a_joiner_none() -> None:
    host, joiner = _host_and_joiner()
    assert host.core is not None and joiner.core is not None
    assert SeatMachine(host.core).watchers(1, host, 1.0) == [Show(WatchersChanged(1))]
    assert SeatMachine(joiner.core, watchers=4).linked(joiner, 1.0) == []  # (only a host counts)
    assert host.data_to_send() == joiner.data_to_send() == b""


def test_a_wake_up_after_quiet_tells_nothing() -> None:
    host, _ = _host_and_joiner()
    assert host.core is not None
    machine = SeatMachine(host.core, watchers=4)
    machine.watchers(1, host, 1.0)
    host.data_to_send()
    assert machine.watchers(2, host, 1.2) == [Show(WatchersChanged(2)), WakeAt(2.0)]
    machine.quiet()
    assert machine.tick(host, 2.0) == []
    assert host.data_to_send() == b""


def test_a_debt_not_paid_by_its_deadline_stops_the_match_and_paying_meets_it() -> None:
    mover, _ = _playing()
    assert mover.core is not None
    machine = SeatMachine(mover.core)
    late = Stalled("Bob", Owed.DECK, 30.0)
    assert machine.owe("deck", late, Refusal.STALLED, 100.0) == [WakeAt(130.0)]
    assert machine.owe("deck", late, Refusal.STALLED, 120.0) == []  # owed already: its deadline holds
    undo = Stalled("Bob", Owed.UNDO_ACK, 10.0)
    assert machine.owe("undo", undo, Refusal.STALLED, 121.0) == [WakeAt(131.0)]
    assert machine.tick(mover, 129.0) == [WakeAt(130.0)]  # nothing due yet: woken again
    assert machine.tick(mover, 130.0) == [PeerOverdue(late, Refusal.STALLED), WakeAt(131.0)]
    machine.debts.paid("undo")
    assert machine.tick(mover, 131.0) == []
    assert machine.owe("deck", late, Refusal.STALLED, 140.0) == [WakeAt(170.0)]  # owed afresh
    machine.debts.forgive()  # (a lost connection)
    assert machine.tick(mover, 170.0) == []
