"""The watchers' hub shows the match's own scores: the table after a game's last move
carries the scores its GameEnded says (the match's result data), never a sum of the
hub's own; a game is played by the engine and its events fed to a hub."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from p2p_spite.bots import make_bot
from p2p_spite.contracts.session import Event, GameEnded, MovePlayed
from p2p_spite.contracts.spectator import TableShown
from p2p_spite.core.watch import Table
from p2p_spite.engine import Match, view
from p2p_spite.net.session import NetSession
from p2p_spite.net.watch import WatchHub, WatchLink
from tests.support.net import messages


class _Watcher:
    """A watcher's link as the hub sees it: what it is sent, kept."""

    def __init__(self) -> None:
        self.door = SimpleNamespace(again=True)
        self.watching = False
        self.frames: list[bytes] = []

    def send(self, frame: bytes) -> None:
        self.frames.append(frame)

    def tables(self) -> list[TableShown]:
        return [Table.from_wire(m).shown for f in self.frames for m in messages(f) if m["t"] == "table"]


def _followed(match: Match) -> tuple[_Watcher, list[Any]]:
    """A hub following a session of ``match`` (only what follow() reads of one)."""
    observers: list[Any] = []
    session = SimpleNamespace(
        match=match, names=("Ann", "Bob"), core=SimpleNamespace(max_games=None), private=False,
        view=lambda: None, watchers_changed=lambda n: None, observe=observers.append,
        again=SimpleNamespace(then=lambda fn: None),
    )  # fmt: skip
    hub = WatchHub(2)
    watcher = _Watcher()
    assert hub.admit(cast(WatchLink, watcher)) is None
    hub.follow(cast(NetSession, session))  # (kept alive by its observer)
    return watcher, observers


def test_a_games_last_table_carries_the_scores_its_game_ended_says() -> None:
    match = Match(bytes(range(32)), 50, ("Ann", "Bob"))
    watcher, observers = _followed(match)
    bots = [make_bot("easy", 1), make_bot("easy", 2)]
    events: list[Event] = []
    g = match.game
    while g.result is None:
        seat = g.turn
        played = match.play(bots[seat].choose(view(g, seat)))
        events.append(MovePlayed(seat, played, view(g, 0)))
    assert g.result is not None and g.result.winner is not None
    said = (123, 45)  # what the match's own result data says (not what the rules would sum)
    events.append(GameEnded(g.game, g.result, said, view(g, 0)))
    for ev in events:
        observers[0](ev)
    tables = watcher.tables()
    assert len(tables) == len(events) - 1  # one per move: the last one waited for its GameEnded
    assert all(t.scores == (0, 0) for t in tables[:-1])
    last, move = tables[-1], events[-2]
    assert isinstance(move, MovePlayed)
    assert (last.scores, last.move, last.card) == (said, move.move, move.card)
