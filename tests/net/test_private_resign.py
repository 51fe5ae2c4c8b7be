"""Resigning and waiting in a private-deck game, between two real sessions over
127.0.0.1: nobody reveals its game secret before the resignation is made, a player
may resign off turn as in a seeded match, both records end up with the game's deck,
and a peer that keeps pinging but stops sending what it owes is given up in time."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.contracts.errors import SessionClosed
from p2p_spite.contracts.news import Stalled
from p2p_spite.contracts.session import GameEnded, GameStarted, MatchEnded, SessionFailed
from p2p_spite.core import deckside
from p2p_spite.core.effects import Effect
from p2p_spite.core.intents import Stage
from p2p_spite.core.messages import DeckBody, DeckBytes
from p2p_spite.core.private import PrivateDeck
from p2p_spite.core.wire import Refusal
from p2p_spite.fairdeck import Reveal, from_wire
from p2p_spite.net import HostSettings, JoinSettings, host_session, join_session
from p2p_spite.net.reconnect import HEARTBEAT
from p2p_spite.net.session import NetSession
from p2p_spite.storage import record
from p2p_spite.ui.networds import news_words
from tests.support.net import CLI, finish, next_of, spawn, wait_listening

FAIRNESS = Path(__file__).resolve().parents[2] / "docs" / "fairness.md"
LIMIT = 60  # seconds for any wait on the peer (a private deal is about a second of curve work)


async def _pair(tmp_path: Path, games: int, heartbeat: float = HEARTBEAT) -> tuple[NetSession, NetSession]:
    loop = asyncio.get_running_loop()
    port: asyncio.Future[int] = loop.create_future()
    host_task = asyncio.create_task(
        host_session(
            HostSettings(
                bind="127.0.0.1",
                port=0,
                name="Ann",
                private=True,
                games=games,
                record_path=tmp_path / "h.json",
                heartbeat=heartbeat,
            ),
            on_listening=lambda h, p: port.set_result(p),
            on_warning=None,
        )
    )
    joiner = await asyncio.wait_for(
        join_session(
            JoinSettings(
                host="127.0.0.1",
                port=await port,
                name="Bob",
                private=True,
                record_path=tmp_path / "j.json",
                heartbeat=heartbeat,
            )
        ),
        LIMIT,
    )
    return await asyncio.wait_for(host_task, LIMIT), joiner


def _watch_reveals(s: NetSession, log: list[tuple[int, bool]]) -> None:
    """Log (game, over) for every Reveal this seat sends: was its game over when it went?"""
    deck = PrivateDeck.of(s.core)
    assert deck is not None
    send = deck._send

    def spy(msg: DeckBody) -> None:
        if isinstance(msg, DeckBytes) and isinstance(from_wire(msg.data), Reveal):
            results = s.core.match.results
            log.append((msg.game, msg.game <= len(results) and results[msg.game - 1] is not None))
        send(msg)

    deck._send = spy  # type: ignore[method-assign]


def _checked(path: Path) -> record.Record:
    rec = record.load(path)
    record.verify(rec)
    return rec


def test_a_resignation_on_turn_reveals_nothing_before_it_is_made(tmp_path: Path) -> None:
    async def main() -> None:
        host, joiner = await _pair(tmp_path, games=2)
        sessions = (host, joiner)
        logs: list[list[tuple[int, bool]]] = [[], []]
        for s, log in zip(sessions, logs, strict=True):
            _watch_reveals(s, log)
            await next_of(s, GameStarted)
        for game in (1, 2):  # game 1: the next deal follows the reveals; game 2 ends the match
            mover = sessions[host.core.match.game.turn]
            await asyncio.wait_for(mover.play(mover.core.match.game.legal_moves()[0]), LIMIT)
            resigner = sessions[host.core.match.game.turn]  # on turn (a discard passed it)
            await asyncio.wait_for(resigner.resign(), LIMIT)
            for s in sessions:
                await next_of(s, GameEnded)
            if game == 1:
                for s in sessions:
                    await next_of(s, GameStarted)
        for s in sessions:
            await next_of(s, MatchEnded)
        for s in sessions:
            await asyncio.wait_for(s.close("quit"), LIMIT)
        assert all(log == [(1, True), (2, True)] for log in logs), logs  # only once each game was over

    asyncio.run(main())
    h, j = tmp_path / "h.json", tmp_path / "j.json"
    assert h.read_bytes() == j.read_bytes()
    rec = _checked(h)
    assert len(rec.games) == 2 and all(g.deck is not None for g in rec.games)
    assert all(g["result"]["reason"] == "resign" for g in json.loads(h.read_text())["games"])


def test_a_player_resigns_off_turn_in_a_private_match(tmp_path: Path) -> None:
    async def main() -> None:
        host, joiner = await _pair(tmp_path, games=1)
        sessions = (host, joiner)
        for s in sessions:
            await next_of(s, GameStarted)
        waiting = sessions[1 - host.core.match.game.turn]
        await asyncio.wait_for(waiting.resign(), LIMIT)  # a request: the player on turn makes it
        ends = [await next_of(s, GameEnded) for s in sessions]
        assert all(e.result.winner == 1 - waiting.core.seat for e in ends)
        for s in sessions:
            await next_of(s, MatchEnded)
            with contextlib.suppress(SessionClosed):
                await asyncio.wait_for(s.close("quit"), LIMIT)

    asyncio.run(main())
    h, j = tmp_path / "h.json", tmp_path / "j.json"
    assert h.read_bytes() == j.read_bytes()
    assert _checked(h).games[0].deck is not None


def _mute_deck(s: NetSession) -> None:
    """A modified peer that keeps its connection (and its pings) but sends no more deck
    messages, and never gives up on the other side: believing it sent what it made, it
    would otherwise judge the honest side late by its own deadline, a race with the
    verdict under test."""
    deck = PrivateDeck.of(s.core)
    assert deck is not None
    deck.port = None  # what it makes is kept, never sent
    deck.owed_by_peer = lambda: False  # type: ignore[method-assign]  # it waits forever


def test_a_peer_that_goes_mute_at_the_deal_is_given_up_within_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The muted joiner owes its KEY from the start and keeps pinging: the host gives it up
    once the deadline has passed, not before (pings do not put it off: without a verdict
    the wait below fails at LIMIT, however slow the machine)."""
    monkeypatch.setattr(deckside, "DECK_DEADLINE", 2.0)
    monkeypatch.setattr(deckside, "DECK_CHECK", 0.1)

    real_init = NetSession.__init__

    def muted_init(self: NetSession, *a: Any, **k: Any) -> None:  # the joiner's session, muted at birth
        real_init(self, *a, **k)
        if self.core.seat == 1:
            _mute_deck(self)

    monkeypatch.setattr(NetSession, "__init__", muted_init)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        host, joiner = await _pair(tmp_path, games=1, heartbeat=0.2)  # (it keeps pinging)
        t0 = loop.time()
        failed = await next_of(host, SessionFailed)
        took = loop.time() - t0
        said = news_words(failed.news)
        assert "stopped sending the private deck's messages" in said, said
        assert failed.ending is not None and failed.ending.code == "stalled"
        assert took >= 1.5, took
        for s in (host, joiner):
            with contextlib.suppress(SessionClosed):
                await asyncio.wait_for(s.close("quit"), LIMIT)

    asyncio.run(main())


def test_a_peer_that_announces_a_move_and_never_makes_it_is_given_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Off turn, the honest side waits for the action the peer announced once its cards are
    shown: a peer that keeps pinging but never makes it is given up at the deadline.  The
    deal and the cards of the move are shown under the test's long deadline (their curve
    work takes what the machine takes); only then does the honest side's deadline become
    2 s, for the action that never comes."""
    monkeypatch.setattr(deckside, "DECK_DEADLINE", float(LIMIT))
    monkeypatch.setattr(deckside, "DECK_CHECK", 0.1)

    async def main() -> None:
        host, joiner = await _pair(tmp_path, games=1)
        sessions = (host, joiner)
        for s in sessions:
            await next_of(s, GameStarted)
        mover = sessions[host.core.match.game.turn]
        honest = sessions[1 - mover.core.seat]
        owe = honest.machine.owe
        deck = PrivateDeck.of(honest.core)
        assert deck is not None

        def short(key: str, what: Stalled, code: Refusal, now: float) -> list[Effect]:
            # 2 s once the announced move's cards are shown: all the mover owes is the action
            p = deck.intents.pending
            shown = p is not None and p.seat == mover.core.seat and p.stage is Stage.READY
            return owe(key, replace(what, seconds=2.0) if shown else what, code, now)

        honest.machine.owe = short  # type: ignore[method-assign]
        mover.make = lambda *a, **k: None  # type: ignore[method-assign]  # announces, never makes it
        await asyncio.wait_for(mover.play(mover.core.match.game.legal_moves()[0]), LIMIT)
        failed = await next_of(honest, SessionFailed)
        said = news_words(failed.news)
        assert "stopped sending the private deck's messages" in said, said
        for s in sessions:
            with contextlib.suppress(SessionClosed):
                await asyncio.wait_for(s.close("quit"), LIMIT)

    asyncio.run(main())


def test_quitting_in_the_middle_of_a_private_game_reveals_and_both_records_check(tmp_path: Path) -> None:
    """Quit mid-game: the game is over for the quitter, so both reveal their secrets, both
    records hold its deck and check every move made, and neither offers a resume."""

    async def main() -> None:
        host, joiner = await _pair(tmp_path, games=2)
        sessions = (host, joiner)
        for s in sessions:
            await next_of(s, GameStarted)
        for _ in range(6):
            mover = sessions[host.core.match.game.turn]
            await asyncio.wait_for(mover.play(mover.core.match.game.legal_moves()[0]), LIMIT)
        await asyncio.wait_for(joiner.close("quit"), LIMIT)
        failed = await next_of(host, SessionFailed)
        assert failed.ending is not None and failed.ending.cause.value == "peer-left"
        await asyncio.wait_for(host.close("quit"), LIMIT)

    asyncio.run(main())
    for name in ("h.json", "j.json"):
        rec = _checked(tmp_path / name)
        game = rec.games[-1]
        assert game.result is None and game.deck is not None and len(game.moves) == 6, name
    assert (tmp_path / "h.json").read_bytes() == (tmp_path / "j.json").read_bytes()


def _withhold_secret(s: NetSession) -> None:
    """A modified peer: its private deck sends everything but its REVEAL."""
    deck = PrivateDeck.of(s.core)
    assert deck is not None
    send = deck._send

    def withhold(msg: DeckBody) -> None:
        if not (isinstance(msg, DeckBytes) and isinstance(from_wire(msg.data), Reveal)):
            send(msg)

    deck._send = withhold  # type: ignore[method-assign]


def test_a_peer_that_keeps_its_secret_after_resigning_is_stopped_and_recorded(tmp_path: Path) -> None:
    """A modified peer resigns, reads our secret, and sends its next game's messages
    without its own: refused at its first message of the next game, and our record says
    whose secret did not come (with shuffles proven, that hides no cheat)."""

    async def main() -> None:
        host, joiner = await _pair(tmp_path, games=2)
        sessions = (host, joiner)
        for s in sessions:
            await next_of(s, GameStarted)
        resigner = sessions[host.core.match.game.turn]
        honest = sessions[1 - resigner.core.seat]
        _withhold_secret(resigner)
        await asyncio.wait_for(resigner.resign(), LIMIT)
        failed = await next_of(honest, SessionFailed)
        said = news_words(failed.news)
        assert "no secret of game 1 before game 2" in said, said
        for s in sessions:
            with contextlib.suppress(SessionClosed):
                await asyncio.wait_for(s.close("quit"), LIMIT)
        return None

    asyncio.run(main())
    for name in ("h.json", "j.json"):
        data = json.loads((tmp_path / name).read_text())
        if "cheat" in data["games"][0]:
            cheat = data["games"][0]["cheat"]
            assert cheat["kind"] == "unrevealed" and "did not reveal" in cheat["reason"]
            break
    else:
        raise AssertionError("neither record says whose secret did not come")


@pytest.mark.slow
def test_a_real_host_whose_joiner_resigns_and_keeps_its_secret_keeps_a_record_that_checks(
    tmp_path: Path,
) -> None:
    """``host --private --bot easy --games 1``; the joiner (a modified peer) resigns game 1
    and never sends its game secret.  The host says that the secret did not come, its
    record keeps the result and an ``unrevealed`` entry for game 1, and ``replay --check``
    of that record passes (exit 0), with the scores of the games it checked and a line
    saying what happened to the last one."""
    host = spawn(
        ["host", "--bind", "127.0.0.1", "--port", "0", "--no-code", "--no-announce", "--private",
         "--games", "1", "--bot", "easy", "--bot-seed", "1", "--name", "Ann"],
        tmp_path,
    )  # fmt: skip
    try:
        port, _ = wait_listening(host, LIMIT)

        async def main() -> None:
            joiner = await asyncio.wait_for(
                join_session(
                    JoinSettings(
                        host="127.0.0.1", port=port, name="Bob", private=True, record_path=tmp_path / "j.json"
                    )
                ),
                LIMIT,
            )
            await next_of(joiner, GameStarted)
            _withhold_secret(joiner)
            await asyncio.wait_for(joiner.resign(), LIMIT)
            await next_of(joiner, MatchEnded)
            with contextlib.suppress(SessionClosed):
                await asyncio.wait_for(joiner.close("quit"), LIMIT)

        asyncio.run(main())
        code, out, err = finish(host, 4 * LIMIT)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    assert code == 0 and "Traceback" not in err, (code, out, err)
    assert "Bob did not reveal its secret of game 1" in out + err, (out, err)
    (path,) = (tmp_path / "xdg" / "p2p-spite" / "records").glob("*.json")
    data = json.loads(path.read_text())
    (game,) = data["games"]
    assert game["result"] == {"winner": 0, "points": game["result"]["points"], "reason": "resign"}
    assert game["cheat"]["kind"] == "unrevealed" and "deck" not in game
    documented = re.search(r'`(\{"kind": "unrevealed", .*?\})`', " ".join(FAIRNESS.read_text().split()))
    assert documented is not None
    assert json.dumps(game["cheat"]) == documented.group(1)  # docs/fairness.md's entry, key order and all
    assert data["scores"] == [game["result"]["points"], 0]
    check = subprocess.run(
        [*CLI, "replay", "--check", str(path)],
        capture_output=True,
        text=True,
        timeout=4 * LIMIT,
        cwd=tmp_path,
    )
    assert check.returncode == 0, (check.stdout, check.stderr)
    assert "ok: 0 games" in check.stdout and "game 1 cannot be checked: seat 1 did not reveal" in check.stdout
    line = check.stdout.strip()
    assert line in FAIRNESS.read_text(), line  # the line docs/fairness.md shows
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg")}
    history = subprocess.run(
        [*CLI, "history"], capture_output=True, text=True, timeout=4 * LIMIT, cwd=tmp_path, env=env
    )
    (entry,) = [ln for ln in history.stdout.splitlines() if " vs " in ln]
    assert re.search(r"Ann vs Bob +stopped +20-0 +games 1-0$", entry), entry  # the match stopped there
