"""The in-process Session (p2p_spite/bots/localsession.py) is the real core: a bot
driving it plays the very match selfplay plays, event for event."""

from __future__ import annotations

import asyncio

import pytest

from p2p_spite.bots import make_bot
from p2p_spite.bots.driver import run_bot
from p2p_spite.bots.localsession import LocalSession
from p2p_spite.bots.selfplay import play_match
from p2p_spite.contracts.errors import SessionClosed
from p2p_spite.contracts.session import Event, GameEnded, GameStarted, MatchEnded, MovePlayed
from p2p_spite.engine import CENTER, PAYOFF, Match, Move

SEED = bytes(range(32))


def test_a_bot_driving_it_plays_the_selfplay_match() -> None:
    seen: list[Event] = []

    async def main() -> LocalSession:
        s = LocalSession(SEED, 0, ("a", "b"), target=20, opponent=make_bot("easy", 1), max_games=3)
        code = await asyncio.wait_for(run_bot(s, "easy", seed=0, on_event=seen.append), 60)
        assert code == 0
        return s

    s = asyncio.run(main())
    want = play_match(Match(SEED, 20, ("a", "b")), [make_bot("easy", 0), make_bot("easy", 1)], max_games=3)
    # the session keeps only the current game's moves (and every game's result)
    assert s.match.moves == want.moves[-1:] and s.match.results == want.results
    assert s.match.scores == want.scores and s.match.game_number == want.game_number
    moves = [ev for ev in seen if isinstance(ev, MovePlayed)]
    assert len(moves) == want.total_moves
    assert sum(isinstance(ev, GameStarted) for ev in seen) == want.game_number
    assert sum(isinstance(ev, GameEnded) for ev in seen) == want.game_number
    assert isinstance(seen[-1], MatchEnded) and seen[-1].scores == tuple(want.scores)


def test_a_closed_session_refuses_to_act() -> None:
    async def main() -> None:
        s = LocalSession(SEED)
        await s.close("quit")
        assert s.closed_for_play
        with pytest.raises(SessionClosed):
            await s.play(Move(0, PAYOFF, None, CENTER, 0))
        with pytest.raises(SessionClosed):
            await s.chat("hi")
        with pytest.raises(SessionClosed):
            await s.resign()
        assert s.inbox == [] and s.core.position == 0

    asyncio.run(main())
