"""Play from here: a record taken up again at a position (p2p_spite/core/whatif.py)."""

from __future__ import annotations

import asyncio

import pytest

from p2p_spite.bots import make_bot
from p2p_spite.bots.localsession import LocalSession
from p2p_spite.bots.selfplay import play_match
from p2p_spite.contracts.session import GameEnded, MatchEnded
from p2p_spite.core.whatif import NoPositionToPlay, OpenDeckStream, WhatIfStart, start_of, whatif_match
from p2p_spite.engine import CENTER, GameState, Match, view
from p2p_spite.engine.state import WIN_RESIGN
from p2p_spite.ui.replay import Replay
from p2p_spite.ui.whatif import WhatIf, whatif_notes
from tests.storage.test_record_private import private_match


@pytest.fixture(scope="module")
def seeded() -> Match:
    m = Match(bytes(range(32)), target=500, players=("Ann", "Bob"))
    play_match(m, [make_bot("easy", 0), make_bot("easy", 1)], max_games=3)
    return m


def after_reshuffles(m: Match, game: int) -> list[int]:
    """The positions of game ``game`` just after a move that completed a center."""
    st = m.fresh_game(game)
    out = []
    for i, mv in enumerate(m.moves[game - 1], 1):
        full = mv.target == CENTER and len(st.center[mv.slot]) == 11
        st.apply(mv)
        if full:
            out.append(i)
    return out


def positions(m: Match) -> list[tuple[int, int]]:
    out = []
    for g in range(1, len(m.moves) + 1):
        n = len(m.moves[g - 1])
        out += [(g, 0), (g, 1), (g, n // 3), (g, n - 1)]
        out += [(g, k) for k in after_reshuffles(m, g)]
    return out


def test_the_position_built_is_the_replays(seeded: Match) -> None:
    assert any(after_reshuffles(seeded, g) for g in (1, 2, 3))  # (a reshuffle is among them)
    r = Replay(seeded)
    for g, k in positions(seeded):
        w = whatif_match(seeded, g, k)
        assert w.game.digest() == r.state(g, k).digest(), (g, k)
        assert (w.game_number, w.moves[-1]) == (g, seeded.moves[g - 1][:k])
        before = seeded.results[: g - 1]
        assert w.scores == [sum(x.points for x in before if x and x.winner == s) for s in (0, 1)]


def test_a_private_record_is_taken_up_from_its_revealed_deck() -> None:
    m, _decks = private_match(2)
    r = Replay(m)
    spots = positions(m)
    assert any(k in after_reshuffles(m, g) for g, k in spots)
    for g, k in spots:
        w = whatif_match(m, g, k)
        assert w.game.digest() == r.state(g, k).digest(), (g, k)
        assert isinstance(w.game.stream, OpenDeckStream)


def test_a_private_what_if_plays_past_a_reshuffle_the_record_never_made() -> None:
    """Other moves complete other centers: the reshuffle then comes from the seed's stream."""
    m, _decks = private_match(1)
    w = whatif_match(m, 1, 0)
    bots = [make_bot("medium", 7), make_bot("random", 8)]
    st = w.game
    made = 0
    while st.result is None and st.ply < 3000:
        mv = bots[st.turn].choose(view(st, st.turn))
        assert mv in st.legal_moves()
        made += mv.target == CENTER and len(st.center[mv.slot]) == 11
        w.apply(mv)
    assert made > 0
    piles = [st.stock, *st.center, *st.payoff, *st.hands, *(s for seat in st.sides for s in seat)]
    assert sorted(c for p in piles for c in p) == list(range(104))  # every card once


def test_where_a_what_if_starts(seeded: Match) -> None:
    n1 = len(seeded.moves[0])
    assert start_of(seeded, 1, 5).pos == 5
    assert (start_of(seeded, 1, n1).game, start_of(seeded, 1, n1).pos) == (2, 0)  # the next deal
    with pytest.raises(ValueError):
        whatif_match(seeded, 1, n1)  # (that game is over there)


def test_after_the_records_last_game_the_seed_deals_the_next() -> None:
    m = Match(bytes(range(32)), target=500, players=("Ann", "Bob"))
    play_match(m, [make_bot("easy", 0), make_bot("easy", 1)], max_games=1)
    assert m.results[0] is not None and m.results[0].reason != WIN_RESIGN and not m.over
    start = start_of(m, 1, len(m.moves[0]))
    assert (start.game, start.pos) == (2, 0)
    w = whatif_match(m, 2, 0)
    assert w.game.digest() == GameState.deal(m.seed, 2).digest() and w.scores == m.scores
    won = Match(bytes(range(32)), target=1, players=("Ann", "Bob"))
    play_match(won, [make_bot("easy", 0), make_bot("easy", 1)], max_games=3)
    assert won.over
    with pytest.raises(NoPositionToPlay) as over:
        start_of(won, len(won.moves), len(won.moves[-1]))
    assert not over.value.private


def test_a_private_record_reveals_no_deal_after_its_last_game() -> None:
    m, _decks = private_match(1)
    with pytest.raises(NoPositionToPlay) as e:
        start_of(m, 1, len(m.moves[0]))
    assert e.value.private  # (the words: play from here needs a seeded record or a revealed deck)


def test_a_resigned_game_goes_on_without_the_resignation() -> None:
    m = Match(bytes(range(32)), target=500, players=("Ann", "Bob"))
    bots = [make_bot("easy", 0), make_bot("easy", 1)]
    for _ in range(12):
        m.apply(bots[m.game.turn].choose(view(m.game, m.game.turn)))
    m.resign(1)
    m.next_game()
    m.apply(bots[m.game.turn].choose(view(m.game, m.game.turn)))
    assert start_of(m, 1, 12).game == 1
    w = whatif_match(m, 1, 12)
    assert w.game.result is None and w.scores == [0, 0]
    w2 = whatif_match(m, 2, 1)  # the resignation counts before game 2
    assert w2.scores == m.scores


def test_the_computer_plays_the_what_if_to_its_end(seeded: Match) -> None:
    """The seat's session over the real match core: the bot moves legally, the game ends,
    and so does the what-if (one game: nothing dealt after it)."""

    async def main() -> None:
        g, k = 2, len(seeded.moves[1]) // 2
        w = whatif_match(seeded, g, k, players=("Ann", "Computer"))
        me = make_bot("easy", 3)
        s = LocalSession(w.seed, 0, w.players, match=w, opponent=make_bot("easy", 4), max_games=g)
        ended = None
        async with asyncio.timeout(60):
            while True:
                ev = await s.next_event()
                if isinstance(ev, GameEnded):
                    ended = ev
                if isinstance(ev, MatchEnded):
                    break
                v = s.view()
                if v is not None and v.my_turn and v.result is None and s.queued == 0:
                    await s.play(me.choose(v))
        assert ended is not None and ended.game == g
        assert s.core.finished and s.match.game_number == g
        await s.close()

    asyncio.run(main())


def test_the_screen_says_how_a_private_deck_is_taken_up(seeded: Match) -> None:
    m, _decks = private_match(1)
    private = whatif_notes(m, WhatIf(WhatIfStart(1, 3), "easy", 0, ("ann", "bob")))
    seeded_notes = whatif_notes(seeded, WhatIf(WhatIfStart(1, 3), "easy", 0, ("Ann", "Bob")))
    assert any("private deck" in n and "match seed" in n for n in private)
    assert not any("private deck" in n for n in seeded_notes)
    assert "Nothing is recorded." in seeded_notes[0] and "(easy)" in seeded_notes[0]
