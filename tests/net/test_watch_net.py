"""Watchers over real TCP on 127.0.0.1, host and joiner bots in the same event loop:
what a watcher sees, and that nothing it does reaches the match or its record."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.bots.driver import run_bot
from p2p_spite.contracts import i18n
from p2p_spite.contracts.errors import EXIT_PEER_LEFT, UserError
from p2p_spite.contracts.news import CannotDial, Dial, WatchCut, WatchStop
from p2p_spite.contracts.session import (
    EndCause,
    Ending,
    Event,
    GameStarted,
    MovePlayed,
    MoveTakenBack,
    TakebackRefused,
    WatchersChanged,
    view_of,
)
from p2p_spite.contracts.spectator import SpectatorEvent, TableShown, Watching, WatchStopped
from p2p_spite.core.watch import HostBye, WatchEndpoint
from p2p_spite.core.wire import encode
from p2p_spite.engine import CENTER, HAND, IllegalMoveError, move_from_json, public_view
from p2p_spite.net import host_session, join_session, opening
from p2p_spite.net import watch as watchnet
from p2p_spite.net.gate import CodeRefused
from p2p_spite.net.session import NetSession
from p2p_spite.net.settings import HostSettings, JoinSettings
from p2p_spite.net.watch import WatchClient, watch_match
from p2p_spite.storage import record
from p2p_spite.ui.networds import news_words
from tests.support.lanopen import guess
from tests.support.net import messages, raw_watch

CODE = "ABCD2345"


async def until(pred: Callable[[], bool], seconds: float = 10.0) -> None:
    async with asyncio.timeout(seconds):
        while not pred():
            await asyncio.sleep(0.01)


async def collect(client: WatchClient, into: list[SpectatorEvent]) -> None:
    async with asyncio.timeout(60):
        while not into or not isinstance(into[-1], WatchStopped):
            into.append(await client.next_event())


class Match:
    """A host (with ``watchers``) on 127.0.0.1:0, and a bot joiner once ``join()`` is called."""

    def __init__(
        self,
        tmp: Path,
        watchers: int = 4,
        code: str | None = CODE,
        target: int = 30,
        private: bool = False,
        games: int | None = None,
    ) -> None:
        self.tmp = tmp
        self.code = code
        self.private = private
        self.games = games
        self.watchers = watchers
        self.target = target
        self.port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.host_events: list[Event] = []
        self.warnings: list[str] = []
        self.host_task = asyncio.create_task(
            host_session(
                HostSettings(
                    bind="127.0.0.1", port=0, name="Ann", target=target, record_path=tmp / "h.json",
                    code=code, watchers=watchers, heartbeat=0.5, dead_after=10, private=private,
                    games=games,
                ),
                on_listening=lambda _h, p: self.port.set_result(p),
                on_warning=lambda news: self.warnings.append(news_words(news)),
            )
        )  # fmt: skip

    async def play(self, on_host_event: Callable[[Event], None] | None = None) -> None:
        joiner = await join_session(
            JoinSettings(
                host="127.0.0.1",
                port=await self.port,
                name="Bob",
                record_path=self.tmp / "j.json",
                code=self.code,
                private=self.private,
            )
        )
        self.joiner = joiner
        host: NetSession = await self.host_task

        def seen(ev: Event) -> None:
            self.host_events.append(ev)
            if on_host_event is not None:
                on_host_event(ev)

        codes = await asyncio.gather(
            run_bot(host, "easy", seed=1, on_event=seen), run_bot(joiner, "easy", seed=2)
        )
        assert list(codes) == [0, 0]

    def records_agree(self) -> None:
        h, j = (self.tmp / "h.json").read_bytes(), (self.tmp / "j.json").read_bytes()
        assert h == j
        rec = record.load(self.tmp / "h.json")
        m = record.verify(rec)
        assert m.over or len(rec.games) == self.games


def run(main: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(main(), 90))


def test_watchers_see_the_whole_match_from_wherever_they_arrive(tmp_path: Path) -> None:
    async def main() -> None:
        m = Match(tmp_path, target=20)
        early = await watch_match(host="127.0.0.1", port=await m.port, code=CODE)
        early_seen: list[SpectatorEvent] = []
        early_task = asyncio.create_task(collect(early, early_seen))
        late_seen: list[SpectatorEvent] = []
        tasks: list[asyncio.Task[None]] = []

        async def arrive() -> None:
            late = await watch_match(host="127.0.0.1", port=await m.port, code=CODE)
            await collect(late, late_seen)

        def on_host(ev: Event) -> None:
            moves = sum(1 for e in m.host_events if isinstance(e, MovePlayed))
            if moves == 40 and not tasks:
                tasks.append(asyncio.create_task(arrive()))

        await m.play(on_host)
        await early_task
        await asyncio.gather(*tasks)
        m.records_agree()

        rec = record.load(tmp_path / "h.json")
        for seen in (early_seen, late_seen):
            assert isinstance(seen[0], Watching) and seen[0].names == ("Ann", "Bob")
            assert seen[-1] == WatchStopped(True)
            tables = [e for e in seen if isinstance(e, TableShown)]
            assert tables[-1].match_over and tables[-1].scores == tuple(rec.scores or ())
            assert sum(1 for t in tables if t.match_over) == 1
        first = [e for e in early_seen if isinstance(e, TableShown)]
        assert (first[0].view.game, first[0].view.ply, first[0].move) == (1, 0, None)
        moves = [t.move for t in first if t.move is not None]
        assert moves == [move_from_json(mv) for g in rec.games for mv in g.moves]  # all, in order
        later = [e for e in late_seen if isinstance(e, TableShown)]
        assert (later[0].view.game, later[0].view.ply) > (1, 0)  # the table as it was on arrival
        counts = [e.count for e in m.host_events if isinstance(e, WatchersChanged)]
        assert counts[:2] == [1, 2]

    run(main)


@pytest.mark.slow  # (a private game takes about 15 s of cryptography)
def test_a_private_match_shows_a_watcher_no_card_hidden_from_either_player(tmp_path: Path) -> None:
    async def main() -> None:
        m = Match(tmp_path, private=True, games=1)
        client = await watch_match(host="127.0.0.1", port=await m.port, code=CODE)
        seen: list[SpectatorEvent] = []
        watching = asyncio.create_task(collect(client, seen))
        await m.play()
        await watching
        m.records_agree()
        assert seen[0] == Watching(("Ann", "Bob"), 30, 1, True)
        # the host's hand after each move it was told of: never on a watcher's table
        hands = {
            (ev.view.game, ev.view.ply): set(ev.view.hand)
            for ev in m.host_events
            if isinstance(ev, GameStarted | MovePlayed)
        }
        tables = [e for e in seen if isinstance(e, TableShown)]
        assert len(tables) > 10
        for t in tables:
            assert not set(t.view.cards()) & hands.get((t.view.game, t.view.ply), set())
        assert tables[-1].match_over and seen[-1] == WatchStopped(True)

    run(main)


@pytest.mark.parametrize(
    ("who", "words"),
    [("host", "the host left the match"), ("joiner", "the host stopped the watch: Bob left the match")],
)
def test_a_player_who_leaves_mid_match_ends_the_watch_with_its_reason(
    tmp_path: Path, who: str, words: str
) -> None:
    async def main() -> None:
        m = Match(tmp_path, target=50)
        client = await watch_match(host="127.0.0.1", port=await m.port, code=CODE)
        seen: list[SpectatorEvent] = []
        watching = asyncio.create_task(collect(client, seen))
        leaving: list[asyncio.Task[None]] = []

        def on_host(ev: Event) -> None:
            if isinstance(ev, MovePlayed) and ev.view.ply == 10 and not leaving:
                quitter = m.host_task.result() if who == "host" else m.joiner
                leaving.append(asyncio.create_task(quitter.close("quit")))

        playing = asyncio.create_task(m.play(on_host))
        await watching
        await asyncio.gather(*leaving)
        playing.cancel()  # (the bot of the side that left waits on a session it left)
        with contextlib.suppress(asyncio.CancelledError):
            await playing
        last = seen[-1]
        assert isinstance(last, WatchStopped) and not last.complete
        said = news_words(last.news) if last.news is not None else ""
        assert last.exit_code == EXIT_PEER_LEFT and words in said, said
        assert "peer-left" not in said  # (words, not the cause's code)
        assert not any(isinstance(e, TableShown) and e.match_over for e in seen)

    run(main)


def test_a_host_that_stops_before_the_match_began_tells_its_watcher_so(tmp_path: Path) -> None:
    async def main() -> None:
        m = Match(tmp_path, code=None)
        client = await watch_match(host="127.0.0.1", port=await m.port)
        seen: list[SpectatorEvent] = []
        watching = asyncio.create_task(collect(client, seen))
        m.host_task.cancel()  # (no joiner came: the host quits)
        with contextlib.suppress(asyncio.CancelledError):
            await m.host_task
        await watching
        last = seen[-1]
        assert isinstance(last, WatchStopped) and not last.complete and last.exit_code == EXIT_PEER_LEFT
        assert isinstance(last.news, WatchCut) and last.news.stop is WatchStop.NOT_BEGUN
        assert news_words(last.news) == "the host stopped before the match began"

    run(main)


def test_why_a_match_stopped_goes_to_the_watchers_as_a_code() -> None:
    byes = {c: watchnet._stopped(Ending(c, peer="Ann")) for c in EndCause}
    assert byes[EndCause.PEER_LEFT] == HostBye.saying(WatchStop.PEER_LEFT, "Ann")
    assert all(b.name == "" for c, b in byes.items() if c is not EndCause.PEER_LEFT)
    assert len({b.why for b in byes.values()}) == len(EndCause)  # (each its own code)
    assert watchnet._stopped(Ending(EndCause.PEER_LEFT)) == HostBye.saying(WatchStop.PEER_LEFT)
    assert watchnet._stopped(None).why is WatchStop.STOPPED


POLISH = {  # what a watcher in Polish says for each code: the catalog's words, not the host's
    WatchStop.OVER: "host przerwał transmisję: mecz się skończył",
    WatchStop.NOT_BEGUN: "host wyszedł przed początkiem meczu",
    WatchStop.HOST_LEFT: "host wyszedł z meczu",
    WatchStop.STOPPED: "host przerwał transmisję: mecz został przerwany",
    WatchStop.PEER_LEFT: "host przerwał transmisję: Ann wychodzi z meczu",
    WatchStop.CONNECTION_LOST: "host przerwał transmisję: połączenie między graczami zostało zerwane",
    WatchStop.BROKE_PROTOCOL: "host przerwał transmisję: program jednego z graczy złamał protokół",
    WatchStop.REFUSED: "host przerwał transmisję: program jednego z graczy został odrzucony",
    WatchStop.DEAL_ABANDONED: "host przerwał transmisję: jeden z graczy wyszedł w trakcie rozdania",
    WatchStop.STORAGE: "host przerwał transmisję: nie może zapisać meczu",
}


def _heard_cut(wire: Mapping[str, object]) -> str:
    """How a watcher in Polish words the host's ``bye`` with the fields ``wire`` (the
    watcher's own path: its endpoint, then the cut it stops with)."""
    w = WatchEndpoint()
    w.initiate()
    w.receive_data(encode({"t": "bye", **wire}))
    bye = w.next_event()
    assert isinstance(bye, HostBye)
    i18n.setup("pl")
    return news_words(watchnet._cut("10.0.0.9:4747", bye))


@pytest.mark.parametrize("stop", list(POLISH))
def test_a_stop_is_worded_in_the_watchers_language_from_its_code_alone(stop: WatchStop) -> None:
    name = {"name": "Ann"} if stop is WatchStop.PEER_LEFT else {}
    said = _heard_cut({"reason": "the match stopped: Bob left the match", "why": stop.value} | name)
    assert said == POLISH[stop]  # (the reason's words, Bob's name included, never read)
    assert _heard_cut({"why": stop.value} | name) == said  # (nor needed)


def test_a_stop_of_a_code_not_known_falls_back_to_the_hosts_words() -> None:
    said = _heard_cut({"reason": "the match stopped: a meteor", "why": "meteor"})
    assert said == "host przerwał transmisję (the match stopped: a meteor)"
    older = _heard_cut({"reason": "the match stopped: Bob left the match"})  # (an older host: no code)
    assert older == "host przerwał transmisję (the match stopped: Bob left the match)"
    assert _heard_cut({"why": "meteor"}) == "host przerwał transmisję (bez podania powodu)"


def test_a_move_taken_back_is_shown_to_a_watcher_as_taken_back(tmp_path: Path) -> None:
    async def main() -> None:
        m = Match(tmp_path, code=None, target=10)
        client = await watch_match(host="127.0.0.1", port=await m.port)
        joiner = await join_session(
            JoinSettings(host="127.0.0.1", port=await m.port, name="Bob", record_path=tmp_path / "j.json")
        )
        host = await m.host_task
        bot = asyncio.create_task(run_bot(joiner, "easy", seed=2))
        taken: MoveTakenBack | None = None
        asked = False
        async with asyncio.timeout(30):
            while taken is None:
                ev = await host.next_event()
                if isinstance(ev, MoveTakenBack):
                    taken = ev
                    break
                if isinstance(ev, TakebackRefused):
                    asked = False
                v = view_of(ev)
                if asked or v is None or not v.my_turn:
                    continue
                ups = [mv for mv in v.legal_moves() if mv.source == HAND and mv.target == CENTER]
                before = host.core.position
                await host.play(ups[0] if ups and len(v.hand) > 1 else v.legal_moves()[-1])
                if ups and len(v.hand) > 1 and host.core.position > before:
                    with contextlib.suppress(IllegalMoveError):  # (it completed a center...)
                        await host.take_back()
                        asked = True
        seen: list[SpectatorEvent] = []
        async with asyncio.timeout(10):
            while not any(isinstance(e, TableShown) and e.taken_back for e in seen):
                seen.append(await client.next_event())
        back = seen[-1]
        assert isinstance(back, TableShown) and back.move == taken.move and back.card == taken.card
        assert back.view == public_view(taken.view)  # the table as it was before the move
        await host.close("quit")
        bot.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await bot
        await client.close()

    run(main)


async def _read_all(reader: asyncio.StreamReader, seconds: float = 10.0) -> bytes:
    async with asyncio.timeout(seconds):
        return await reader.read(-1)


@pytest.mark.parametrize("send", ["move", "chat", "resign", "hello"])
def test_a_watcher_that_sends_a_message_of_the_match_is_refused_and_changes_nothing(
    tmp_path: Path, send: str
) -> None:
    msgs: dict[str, dict[str, Any]] = {
        "move": {"t": "move", "n": 0, "d": bytes(32), "a": bytes(32), "m": [0, "hand", 5, "side", 0]},
        "chat": {"t": "chat", "text": "Bob has two Kings"},
        "resign": {"t": "resign", "n": 0, "d": bytes(32), "g": 1, "s": 1},
        "hello": {
            "t": "hello", "proto": 2, "app": "p2p-spite", "role": "join", "name": "Eve",
            "nonce": bytes(16), "code": False, "match": None,
        },
    }  # fmt: skip

    async def main() -> None:
        m = Match(tmp_path, code=None, target=10)
        reader, writer = await asyncio.open_connection("127.0.0.1", await m.port)
        writer.write(raw_watch())
        play = asyncio.create_task(m.play())
        await until(lambda: any(isinstance(e, WatchersChanged) for e in m.host_events) or play.done())
        writer.write(encode(msgs[send]))
        got = messages(await _read_all(reader))
        await play
        m.records_agree()
        assert got[0]["t"] == "hello"  # the host's, sent to every connection at once
        assert got[-1]["t"] == "refuse" and got[-1]["code"] == "watcher"
        writer.close()

    run(main)


def test_a_watcher_that_stops_reading_is_dropped_and_never_slows_the_players(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watchnet, "MAX_WATCH_BUFFER", 4096)
    monkeypatch.setattr(watchnet, "WATCH_SNDBUF", 4096)

    async def main() -> None:
        m = Match(tmp_path, code=None, target=20)
        port = await m.port
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        sock.connect(("127.0.0.1", port))
        sock.sendall(raw_watch())  # ... and never reads a byte
        await m.play()
        m.records_agree()
        counts = [e.count for e in m.host_events if isinstance(e, WatchersChanged)]
        assert counts == [1, 0]  # it watched, then was dropped, while the match went on
        sock.close()

    run(main)


def test_a_host_lets_in_as_many_watchers_as_it_says(tmp_path: Path) -> None:
    async def main() -> None:
        m = Match(tmp_path, watchers=1, target=10)
        first = await watch_match(host="127.0.0.1", port=await m.port, code=CODE)
        one: list[SpectatorEvent] = []
        collecting = asyncio.create_task(collect(first, one))
        await until(lambda: bool(m.warnings) or first.endpoint.phase.value == "waiting")
        second = await watch_match(host="127.0.0.1", port=await m.port, code=CODE)
        refused = await asyncio.wait_for(second.next_event(), 10)
        assert isinstance(refused, WatchStopped) and not refused.complete
        assert refused.refusal == "watchers-full"
        await m.play()
        await collecting
        assert one[-1] == WatchStopped(True)

    run(main)


def test_a_host_with_no_watchers_and_a_wrong_code_turn_a_watcher_away(tmp_path: Path) -> None:
    async def main() -> None:
        m = Match(tmp_path, watchers=0)
        nobody = await watch_match(host="127.0.0.1", port=await m.port, code=CODE)
        ev = await asyncio.wait_for(nobody.next_event(), 10)
        assert isinstance(ev, WatchStopped) and ev.refusal == "no-watchers"
        (tmp_path / "other").mkdir()
        m2 = Match(tmp_path / "other")
        with pytest.raises(CodeRefused) as e:  # (on a terminal, the code is asked again)
            await watch_match(host="127.0.0.1", port=await m2.port, code="WRONG234")
        assert e.value.wrong and str(e.value) == "the host refused: the join code is wrong (wrong join code)"
        with pytest.raises(CodeRefused) as e:
            await watch_match(host="127.0.0.1", port=await m2.port)
        assert not e.value.wrong
        await until(lambda: bool(m2.warnings))
        assert "wrong join code" in m2.warnings[0] or "watcher" in m2.warnings[0]
        for x in (m, m2):
            x.host_task.cancel()

    run(main)


def test_connections_that_never_prove_the_code_make_room_for_the_joiner(tmp_path: Path) -> None:
    """The door's share of one address (4) full of connections (watchers, say) stuck at
    the code in their opening: the joiner from the same address still gets in, the
    oldest of them dropped for it."""

    async def main() -> None:
        m = Match(tmp_path, target=10)
        port = await m.port
        stuck = [await guess(port, CODE, confirm=False) for _ in range(4)]
        await m.play()
        m.records_agree()
        assert any("crowded out" in w for w in m.warnings), m.warnings
        for g in stuck:
            g.close()

    run(main)


def test_a_connection_that_never_proves_the_code_is_dropped_at_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(opening, "HANDSHAKE_TIMEOUT", 0.5)

    async def main() -> None:
        m = Match(tmp_path)
        g = await guess(await m.port, CODE, confirm=False)  # a code it never proves
        assert await _read_all(g.r, 5) == b""  # then the host closed, having said nothing more
        await until(lambda: bool(m.warnings))
        assert "no handshake in time" in m.warnings[0]
        g.close()
        m.host_task.cancel()

    run(main)


def test_a_watcher_that_cannot_reach_the_host_is_told_as_a_joiner_is() -> None:
    """The dial's failure is the joiner's news (CannotDial), worded and translated by the
    interface, not a sentence made in the network layer."""

    async def main() -> None:
        with socket.socket() as s:  # a port nobody listens on (bound, not listening)
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
            with pytest.raises(UserError) as e:
                await watch_match(host="127.0.0.1", port=port, timeout=5)
        assert isinstance(e.value.news, CannotDial) and e.value.news.how is Dial.NOBODY

    run(main)
