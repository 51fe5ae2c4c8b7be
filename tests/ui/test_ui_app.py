"""The game screen, driven for real through prompt_toolkit's pipe input.

The peer is :class:`LocalSession`: the package's in-process Session over the
network's own match core (p2p_spite/bots/localsession.py), with the other seat
played by a bot (or by the test, move by move).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from p2p_spite.bots import make_bot
from p2p_spite.contracts.news import ConnectionLost, PeerLeft
from p2p_spite.contracts.session import (
    ConnectionChanged,
    EndCause,
    Ending,
    LinkState,
    SessionFailed,
)
from p2p_spite.engine import CENTER, HAND, PAYOFF, SIDE, Match, Move, PlayerView, view
from p2p_spite.engine.cards import card_symbol
from p2p_spite.ui import screen
from p2p_spite.ui.app import GameApp
from p2p_spite.ui.board import BoardInfo, hand_order, render_board, width_of
from p2p_spite.ui.messages import MAX_MESSAGES
from p2p_spite.ui.notation import move_notation
from p2p_spite.ui.text import card_label
from p2p_spite.ui.words import Style, Voice, refusal
from tests.support.ui import LocalSession, changed, equals, find_seed, run, running, texts, until


def board_text(app: GameApp) -> str:
    return "".join(f[1] for f in app.board_text())


# -- moves typed ----------------------------------------------------------------


def test_typed_move_is_applied_and_sent() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0))
        async with running(s) as (app, inp):
            v = app.view
            assert v is not None and v.my_turn
            hand = hand_order(v.hand)
            centre = [m for m in v.legal_moves() if m.target == CENTER]
            move = centre[0] if centre else Move(0, HAND, hand[0], SIDE, 0)
            text = move_notation(move, hand)
            inp.send_text(text + "\r")
            await until(lambda: s.sent == [move])
            await until(lambda: app.view is not None and app.view.ply == 1)
            assert "You played" in texts(app) or "You discarded" in texts(app)

    run(main())


def test_illegal_move_is_refused_with_a_message_and_the_turn_kept() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0))
        async with running(s) as (app, inp):
            v = app.view
            assert v is not None
            hand = hand_order(v.hand)
            legal = v.legal_moves()
            bad = next(
                Move(0, HAND, c, CENTER, i)
                for i in range(3)
                for c in hand
                if Move(0, HAND, c, CENTER, i) not in legal
            )
            inp.send_text(move_notation(bad, hand) + "\r")
            await until(lambda: "does not fit center" in texts(app))
            assert s.sent == []
            assert app.view is v and app.view.my_turn
            inp.send_text("x9 q7\r")
            await until(lambda: "not a move" in texts(app) or "unknown" in texts(app))
            assert s.sent == []

    run(main())


def test_completion_offers_exactly_the_legal_moves() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0))
        async with running(s) as (app, inp):
            v = app.view
            assert v is not None
            hand = hand_order(v.hand)
            want = {move_notation(m, hand) for m in v.legal_moves()}
            assert len({w[0] for w in want}) == 1  # (every move starts with the same letter)
            inp.send_text("\t")
            await until(lambda: app.buffer.complete_state is not None)
            cs = app.buffer.complete_state
            assert cs is not None
            completions = cs.completions  # (the menu's own list: it fills in as the menu opens)
            await until(lambda: len(completions) == len(want))
            # Tab on an empty line lists, and inserts nothing (not even the letter all moves share).
            assert app.buffer.text == ""
            got = [c.text for c in cs.completions]
            assert set(got) == want
            assert len(got) == len(want)
            inp.send_text("h2")  # so typing a move after Tab gives that move, not "hh2"
            await until(lambda: app.buffer.text == "h2")
            # A prefix narrows them to that card's moves.
            app.buffer.reset()
            app.buffer.insert_text("h1")
            await until(lambda: app.buffer.complete_state is not None)
            cs = app.buffer.complete_state
            assert cs is not None
            await until(lambda: len(cs.completions) > 0)
            typed = app.buffer.document.text_before_cursor
            got2 = {typed[: len(typed) + c.start_position] + c.text for c in cs.completions}
            assert got2 == {w for w in want if w.startswith("h1 ")}

    run(main())


def test_tab_completes_a_card_name_and_a_rank() -> None:
    """``9`` / ``9h`` / ``kd`` + Tab list the moves of that card, written by its name
    (``9h c1``), as ``h3`` + Tab lists hand card 3's."""

    async def main() -> None:
        s = LocalSession(find_seed(0))
        async with running(s) as (app, inp):
            v = app.view
            assert v is not None
            moves = [m for m in v.legal_moves() if m.hand_card is not None]
            assert moves
            card = moves[0].hand_card
            assert card is not None
            name = card_symbol(card, "cdhs").lower()
            rank_typed = name[:-1]
            want = {
                f"{card_symbol(c, 'cdhs').lower()} {'c' if m.target == CENTER else 's'}{m.slot + 1}"
                for m in moves
                if (c := m.hand_card) is not None and card_symbol(c, "cdhs").lower().startswith(rank_typed)
            }
            for typed in (rank_typed, name):
                app.buffer.reset()
                inp.send_text(typed + "\t")
                await until(lambda: app.buffer.complete_state is not None)
                state = app.buffer.complete_state
                assert state is not None
                await until(lambda: len(state.completions) > 0)  # noqa: B023 (awaited here)
                line = app.buffer.document.text_before_cursor
                got = {line[: len(line) + c.start_position] + c.text for c in state.completions}
                assert got == {w for w in want if w.startswith(typed)}, (typed, got)
                if len({w.split()[0] for w in got}) == 1:  # one card: its name is completed
                    assert app.buffer.text == name + " ", app.buffer.text
            inp.send_text("\x1b")  # (Esc: the menu closes)

    run(main())


def test_opponent_moves_show_on_the_board_one_by_one() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(1))
        async with running(s, pace=0.05) as (app, _inp):
            await until(lambda: app.view is not None and app.view.my_turn)
            v = app.view
            assert v is not None
            opp_moves = [m for m in s.match.moves[0] if m.seat == 1]
            assert v.ply == len(opp_moves) >= 1
            said = texts(app)
            assert said.count("Bob played") + said.count("Bob discarded") == len(opp_moves)
            last = opp_moves[-1]
            assert last.target == SIDE
            # The discard is on the board, highlighted, and the header says it is our turn.
            assert v.sides[1][last.slot]
            assert app.highlight == {f"os{last.slot + 1}"}
            assert "your turn" in board_text(app)

    run(main())


def test_a_peer_move_shows_while_the_player_is_typing() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(1), bot=None)
        async with running(s) as (app, inp):
            inp.send_text("chat hel")
            await until(lambda: app.buffer.text == "chat hel")
            g = s.match.game
            first = g.legal_moves()
            move = next((m for m in first if m.target == CENTER), first[-1])
            s.play_other(move)
            await until(lambda: app.view is not None and app.view.ply == 1)
            assert "Bob " in texts(app)
            assert app.buffer.text == "chat hel"  # the line being typed is untouched
            inp.send_text("lo\r")
            await until(lambda: s.chats == ["hello"])
            await until(lambda: "You: hello" in texts(app))
            s.chat_other("hi there")
            await until(lambda: "Bob: hi there" in texts(app))

    run(main())


def test_a_failed_session_is_said_and_quit_needs_no_question() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(1), bot=None)
        async with running(s, pace=0.5) as (app, inp):
            g = s.match.game
            s.play_other(next(m for m in g.legal_moves() if m.target == SIDE))
            s.inject(SessionFailed(ConnectionLost("Bob", 30), "/tmp/r.json"))
            # The queued move shows at once (no pacing), then the failure.
            await until(lambda: app.failed, timeout=2)
            assert app.view is not None and app.view.ply == 1
            assert "cannot go on: the connection to Bob was lost and did not come back within 30 s" in texts(
                app
            )
            assert "/tmp/r.json" in texts(app)
            inp.send_text("quit\r")
            await until(lambda: s.closed == "quit")
        assert app.confirm is None

    run(main())


def test_a_peer_who_quits_on_purpose_left_the_match_not_lost_the_connection() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0), bot=None)
        async with running(s) as (app, _inp):
            # As the network session reports a peer's goodbye.
            bye = Ending(EndCause.PEER_LEFT, "Bob", reason="quit")
            s.inject(ConnectionChanged(LinkState.LOST, PeerLeft("Bob", "quit"), bye))
            s.inject(SessionFailed(PeerLeft("Bob", "quit"), "/tmp/r.json", bye))
            await until(lambda: app.failed, timeout=2)
            said = texts(app)
            assert "Bob left the match." in said.splitlines()
            assert "connection is lost" not in said and "(quit)" not in said and "cannot go on" not in said
            assert said.count("/tmp/r.json") == 1
            assert app.connection is LinkState.CLOSED

    run(main())


def test_not_my_turn_is_explained() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(1), bot=None)
        async with running(s) as (app, inp):
            inp.send_text("h1 s1\r")
            await until(lambda: "not your turn" in texts(app))
            assert s.sent == []

    run(main())


def test_quit_asks_first_then_tells_the_peer() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0))
        async with running(s) as (app, inp):
            inp.send_text("quit\r")
            await until(lambda: app.confirm is not None)
            inp.send_text("n\r")
            await until(lambda: app.confirm is None)
            assert s.closed is None
            inp.send_text("quit\r")
            await until(lambda: app.confirm is not None)
            inp.send_text("y\r")
            await until(lambda: s.closed == "quit")
        assert app.exit_reason == "quit"

    run(main())


def test_resign_asks_then_the_game_goes_to_the_opponent() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0), target=500)
        async with running(s, wait_between_games=True) as (app, inp):
            inp.send_text("resign\r")
            await until(lambda: app.confirm is not None)
            inp.send_text("y\r")
            await until(lambda: "Game 1: Bob won: you resigned, 20 points." in texts(app))
            assert s.resigned == 1
            assert app.scores[1] == 20
            await until(lambda: app.waiting_next_game)
            line = "".join(f[1] for f in screen.prompt_text(app))
            assert line.startswith("Enter: next game")
            assert "Enter" not in screen.placeholder(app)  # (said once, by the prompt)
            inp.send_text("\r")
            await until(lambda: app.view is not None and app.view.game == 2)

    run(main())


def test_another_match_starts_at_the_yes_without_another_enter() -> None:
    """Both said yes: the next match's first game shows at once (the y was the player's
    Enter), and the move line says what it says in any game."""

    async def main() -> None:
        s = LocalSession(find_seed(0), target=1)
        async with running(s, wait_between_games=True) as (app, inp):
            inp.send_text("resign\r")
            await until(lambda: app.confirm is not None)
            inp.send_text("y\r")
            await until(lambda: app.confirm is not None and "another match" in app.confirm.text)
            inp.send_text("y\r")
            await until(lambda: app.view is not None and not app.finished and app.view.game == 1)
            assert "Match 2 begins." in texts(app) and not app.waiting_next_game
            line = "".join(f[1] for f in screen.prompt_text(app))  # (match 2's starter: either seat)
            assert not line.startswith(("Enter", "(match over)")), line

    run(main())


def test_hint_fills_in_a_legal_move() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0))
        async with running(s) as (app, inp):
            inp.send_text("hint\r")
            await until(lambda: "Hint:" in texts(app), timeout=20)
            v = app.view
            assert v is not None
            legal = {move_notation(m, hand_order(v.hand)) for m in v.legal_moves()}
            assert app.buffer.text in legal

    run(main())


def test_typing_over_a_hint_replaces_it_and_editing_keeps_it() -> None:
    """The hint's move waits on the move line for Enter; a character typed over
    it starts the player's own move (as over selected text), while Backspace
    edits the hint, and the typing after that goes on from the edit."""

    async def main() -> None:
        s = LocalSession(find_seed(0))
        async with running(s) as (app, inp):
            inp.send_text("hint\r")
            await until(lambda: "Hint:" in texts(app), timeout=20)
            hinted = app.buffer.text
            assert hinted and app.offered == hinted
            inp.send_text("h")
            await until(equals(lambda: app.buffer.text, "h"))
            inp.send_text("3")
            await until(equals(lambda: app.buffer.text, "h3"))  # (not "h1 s1h3")
            app.buffer.reset()
            inp.send_text("hint\r")
            await until(lambda: app.offered is not None, timeout=20)
            inp.send_text("\x7f")  # Backspace
            await until(equals(lambda: app.buffer.text, hinted[:-1]))
            inp.send_text("2")
            await until(equals(lambda: app.buffer.text, hinted[:-1] + "2"))

    run(main())


def test_a_card_typed_or_clicked_lights_the_stacks_it_may_go_on() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0))
        async with running(s) as (app, inp):
            v = app.view
            assert v is not None
            hand = hand_order(v.hand)
            for n in range(1, 6):
                app.buffer.reset()
                inp.send_text(f"h{n}")
                await until(equals(lambda: app.buffer.text, f"h{n}"))
                info = app.board_info()
                assert info is not None and info.selected == f"h{n}"
                want = {
                    f"c{m.slot + 1}" if m.target == CENTER else f"s{m.slot + 1}"
                    for m in v.legal_moves()
                    if m.source == HAND and m.arg == hand[n - 1]
                }
                assert info.targets == want
            app.buffer.reset()
            info = app.board_info()
            assert info is not None and info.selected is None and not info.targets

    run(main())


def test_mouse_clicks_pick_a_card_then_a_stack() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0))
        async with running(s) as (app, _inp):
            app.click("h1")
            assert app.selected == "h1" and app.buffer.text == "h1 "
            # a discard ends the turn for good: a click puts it on the move line, and
            # only Enter or a second click on that stack makes it
            app.click("s2")
            assert app.buffer.text == "h1 s2" and "discards: that ends your turn" in texts(app)
            await asyncio.sleep(0.1)
            assert s.sent == []
            app.click("s3")  # (another side stack: that discard is offered instead)
            assert app.buffer.text == "h1 s3" and s.sent == []
            app.click("s3")
            v = app.view
            assert v is not None
            await until(lambda: len(s.sent) == 1)
            assert s.sent[0] == Move(0, HAND, hand_order(v.hand)[0], SIDE, 2)
            await until(lambda: app.buffer.text == "")

    run(main())


def test_a_clicked_discard_is_made_by_enter() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0))
        async with running(s) as (app, inp):
            v = app.view
            assert v is not None
            app.click("h2")
            app.click("s1")
            await asyncio.sleep(0.1)
            assert s.sent == [] and app.buffer.text == "h2 s1"
            inp.send_text("\r")
            await until(lambda: len(s.sent) == 1)
            assert s.sent[0] == Move(0, HAND, hand_order(v.hand)[1], SIDE, 0)

    run(main())


def test_a_whole_match_against_a_bot_runs_to_the_end() -> None:
    """Type the easy bot's moves for seat 0 until a short match is over."""

    async def main() -> None:
        s = LocalSession(find_seed(0), target=1)
        me = make_bot("easy", 7)
        async with running(s, pace=0.0, wait_between_games=False) as (app, inp):
            for _ in range(600):
                if app.finished:
                    break
                v = app.view
                if v is not None and v.my_turn and not s.queued:
                    inp.send_text(move_notation(me.choose(v), app.shown_hand()) + "\r")
                    await until(changed(lambda: app.view if not app.finished else None, v))
                else:
                    await asyncio.sleep(0.005)
            assert app.finished
            assert "the match" in texts(app)

    run(main())


def test_help_starts_in_view_and_says_an_empty_stock_is_a_draw() -> None:
    from p2p_spite.ui.app import help_lines

    async def main() -> None:
        for rows in (24, 19):
            async with running(LocalSession(find_seed(0)), cols=80, rows=rows) as (app, inp):
                inp.send_text("help\r")
                await until(lambda: any("Keys:" in "".join(f[1] for f in m) for m in app.log.messages))
                await asyncio.sleep(0.05)
                pane = "".join(f[1] for f in app.message_text())
                assert help_lines()[0] in pane, (rows, pane)  # the first line has not scrolled off
                if rows == 24:  # at 80x24 the whole help shows at once
                    assert all(line in pane for line in help_lines())
                if help_lines()[-1] not in pane:  # a short pane: PgDn shows the rest
                    assert app.log.scrolled > 0
                    inp.send_text("\x1b[6~" * 3)  # PgDn, a page at a time
                    await until(lambda: help_lines()[-1] in "".join(f[1] for f in app.message_text()))
        assert any("empty stock" in line and "draw" in line for line in help_lines())

    run(main())


def test_what_the_command_said_first_shows_in_the_message_pane() -> None:
    async def main() -> None:
        note = "joined Bob's match; the host chose the seed: 00ff"
        async with running(LocalSession(find_seed(0)), notes=[note]) as (app, _inp):
            assert note in "".join(f[1] for f in app.message_text())

    run(main())


def test_full_screen_hand_numbers_stay_put_within_a_turn() -> None:
    from tests.support.ui import seed_with_early_center_play

    async def main() -> None:
        seed, slot, center = seed_with_early_center_play()
        s = LocalSession(seed, bot=None)
        async with running(s) as (app, inp):
            v = app.view
            assert v is not None
            shown = hand_order(v.hand)
            assert app.shown_hand() == shown
            later = shown[slot + 1]
            inp.send_text(f"h{slot + 1} c{center + 1}\r")
            await until(lambda: len(s.sent) == 1 and app.view is not v)
            slots = app.shown_hand()
            assert slots[slot] is None and slots[slot + 1] == later
            assert len(slots) == len(shown)
            inp.send_text(f"h{slot + 1} s1\r")
            await until(lambda: "was played this turn" in texts(app))
            inp.send_text(f"h{slot + 2} s1\r")
            await until(lambda: len(s.sent) == 2)
            assert s.sent[1].arg == later
            # The next turn's hand is sorted afresh.
            s.play_other(next(m for m in view(s.match.game, 1).legal_moves() if m.target == SIDE))
            # Wait for the view of the new turn itself: the paced feed may still show
            # the view after our center play (our turn, four cards) for a moment.
            await until(lambda: app.view == view(s.match.game, 0))
            assert app.view is not None and app.view.my_turn
            assert app.shown_hand() == hand_order(app.view.hand)

    run(main())


def test_small_terminal_gets_a_note_not_a_crash() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0))
        async with running(s, cols=38, rows=14) as (app, _inp):
            assert app.too_small()
            note = "".join(f[1] for f in screen.small_text(app))
            assert "too small" in note.lower() and "40 columns" in note
            await asyncio.sleep(0.05)  # it renders without raising
        async with running(LocalSession(find_seed(0)), cols=80, rows=24) as (app, _inp):
            assert not app.too_small()
            assert app.msg_rows() >= 3

    run(main())


@pytest.mark.parametrize(("cols", "rows"), [(60, 18), (40, 15), (40, 13), (80, 15)])
def test_a_small_terminal_gets_the_compact_board_and_play_goes_on(cols: int, rows: int) -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0), names=("Alice", "Computer"))
        async with running(s, cols=cols, rows=rows) as (app, inp):
            assert not app.too_small()
            lines = app.board_lines()
            assert all(width_of(line) <= cols for line in lines)
            assert len(lines) + 3 + 3 <= rows  # the board, the input lines, three messages
            text = "\n".join("".join(f[1] for f in line) for line in lines)
            v = app.view
            assert v is not None
            for i, card in enumerate(app.shown_hand()):
                assert card is not None and f"h{i + 1} {card_label(card)}" in text
            assert text.count("s1 ") == 2 and text.count("s4 ") == 2
            assert "c1 " in text and "c3 " in text and f"Stock {v.stock_count}" in text
            assert "too small" not in "".join(f[1] for f in app.message_text()).lower()
            bar = screen.toolbar(app)
            assert width_of(bar) <= cols and "^C quit" in "".join(f[1] for f in bar)
            move = next(m for m in v.legal_moves() if m.target == SIDE)
            inp.send_text(move_notation(move, app.shown_hand()) + "\r")
            await until(lambda: s.sent == [move])

    run(main())


# -- the board and the words ------------------------------------------------------------


def _mid_game() -> Any:
    m = Match(bytes(32))
    bots = [make_bot("easy", 0), make_bot("easy", 1)]
    g = m.game
    for _ in range(80):
        if g.result is not None:
            break
        m.apply(bots[g.turn].choose(view(g, g.turn)))
    return g


@pytest.mark.parametrize("width", [64, 80, 120])
def test_board_fits_its_width(width: int) -> None:
    g = _mid_game()
    info = BoardInfo(view(g, 0), ("Alice", "Bob"), (3, 7), 50)
    lines = render_board(info, width)
    assert all(width_of(line) <= width for line in lines)
    assert len(lines) <= 13
    text = "\n".join("".join(f[1] for f in line) for line in lines)
    assert "Center" in text and "Stock" in text and "Hand" in text


def test_board_shows_kings_on_centers_with_their_rank() -> None:
    m = Match(bytes(32))
    g = m.game
    g.center[0] = [0, 1, 12]  # A, 2, then a King standing for 3
    v = view(g, 0)
    text = "".join(f[1] for line in render_board(BoardInfo(v, ("A", "B")), 80) for f in line)
    assert "K♣=3" in text
    assert "needs 4" in text


def test_a_refusal_speaks_in_the_players_numbers() -> None:
    g = Match(bytes(32)).game
    seat = g.turn
    v, other = view(g, seat), view(g, 1 - seat)
    names = ("Ann", "Bob")

    def said(seen: PlayerView, m: Move) -> str:
        why = seen.check(m)
        assert why is not None
        return refusal(why, m, Voice(names, seen.seat))

    moves = [Move(seat, HAND, c, CENTER, i) for i in range(3) for c in v.hand]
    bad = next(m for m in moves if m not in v.legal_moves())
    assert bad.arg is not None
    assert said(v, bad) == (
        f"{card_label(bad.arg)} from your hand does not fit center {bad.slot + 1}: "
        "it needs an Ace (or a King)"
    )
    assert said(v, Move(seat, SIDE, 0, CENTER, 0)) == "your side stack 1 is empty"
    assert said(v, Move(seat, SIDE, 4, CENTER, 0)) == "there is no side stack 5: 1 to 4"
    only_hand = "only a hand card can go on a side stack (it ends the turn)"
    assert said(v, Move(seat, PAYOFF, None, SIDE, 0)) == only_hand
    assert said(other, Move(1 - seat, HAND, other.hand[0], SIDE, 0)) == (
        "it is not your turn: wait for your opponent's discard"
    )
    assert said(other, Move(seat, HAND, v.hand[0], SIDE, 0)) == f"you cannot move for {names[seat]}"


def test_a_flood_of_messages_keeps_the_newest_and_stays_cheap() -> None:
    """A long match or a chatty peer: the message pane keeps the newest lines and
    re-wraps nothing per frame (only after a resize)."""

    async def main() -> None:
        s = LocalSession(find_seed(0))
        async with running(s) as (app, _inp):
            for i in range(MAX_MESSAGES + 500):
                app.say(Style.CHAT, f"line {i} " + "word " * 30)
            assert len(app.log.messages) == MAX_MESSAGES
            lines = app.log.lines(app.cols())
            tail = "".join(f[1] for ln in lines[-4:] for f in ln)
            assert f"line {MAX_MESSAGES + 499} " in tail
            assert "line 0 " not in texts(app)
            app.log.wrapped_width = -1  # as after a resize: wrapped again, once
            again = app.log.lines(app.cols())
            assert [[f[1] for f in ln] for ln in again] == [[f[1] for f in ln] for ln in lines]

    run(main())


def test_tab_over_an_open_menu_selects_nothing_and_enter_plays_nothing() -> None:
    """The menu opens by itself after a pause in typing.  Tab then must not fill in the
    first move listed (a discard, once), so Enter after it plays no move."""

    async def main() -> None:
        s = LocalSession(find_seed(0))
        async with running(s) as (app, inp):
            v = app.view
            assert v is not None
            app.buffer.insert_text("h")
            app.buffer.start_completion(select_first=False)  # what a pause while typing opens
            await until(lambda: app.buffer.complete_state is not None)
            inp.send_text("\t")
            inp.send_text("\t")
            await asyncio.sleep(0.2)
            cs = app.buffer.complete_state
            assert app.buffer.text == "h", app.buffer.text
            assert cs is None or cs.current_completion is None
            inp.send_text("\r")
            await until(
                lambda: "not a move" in texts(app) or "unknown" in texts(app) or "h" not in app.buffer.text
            )
            assert s.sent == []

    run(main())


def test_the_opponents_resignation_and_a_resumed_game_are_worded_right() -> None:
    """Issue 27: "Bob resigned game 1: You score" (a capital mid-sentence); after a resume,
    "Game 1 begins. You start" for a game already under way."""
    from p2p_spite.contracts.session import GameEnded, GameStarted
    from p2p_spite.engine import EndReason, Result

    async def main() -> None:
        s = LocalSession(find_seed(0))
        async with running(s) as (app, _inp):
            assert app.view is not None
            app.feed_show(GameEnded(1, Result(0, 20, EndReason.RESIGN), (20, 0), app.view))
            assert "Game 1: you won: Bob resigned, 20 points." in texts(app), texts(app)
            m = Match(find_seed(0))
            m.apply(m.game.legal_moves()[0])
            app.feed_show(GameStarted(1, 0, view(m.game, 0), (0, 0), 50))
            assert "Game 1 goes on, 1 move in: " in texts(app), texts(app)
            assert texts(app).count("Game 1 begins") == 1, texts(app)  # the first, real one

    run(main())


def test_a_question_opens_on_an_empty_line_and_gives_the_half_typed_move_back() -> None:
    """Ctrl-C over a half-typed move: the question's line starts empty (``y`` is the
    answer, not ``h4 y``); a no gives the move back to finish, a yes does not."""

    async def main() -> None:
        s = LocalSession(find_seed(0))
        async with running(s) as (app, inp):
            inp.send_text("h4 ")
            await until(equals(lambda: app.buffer.text, "h4 "))
            inp.send_text("\x03")  # Ctrl-C
            await until(lambda: app.confirm is not None)
            assert app.buffer.text == ""
            inp.send_text("n\r")
            await until(lambda: app.confirm is None)
            await until(equals(lambda: app.buffer.text, "h4 "))
            assert s.closed is None
            inp.send_text("\x03")
            await until(lambda: app.confirm is not None)
            inp.send_text("y\r")  # (read as the yes it is)
            await until(lambda: s.closed == "quit")
            assert app.buffer.text == ""

    run(main())


def test_the_terminal_going_away_hangs_up_instead_of_quitting() -> None:
    """The full screen's input ends (the terminal closed before its SIGHUP came): the match
    is hung up (hangups.when_hung_up), not quit: the session is not closed with a goodbye,
    and the command ends as a closed terminal does (exit 129)."""
    from prompt_toolkit.input import create_pipe_input

    from p2p_spite.commands.runner import EXIT_HANGUP, run_main
    from p2p_spite.contracts.errors import UserError
    from p2p_spite.contracts.hangups import when_hung_up
    from tests.support.ui import SizedOutput

    s = LocalSession(find_seed(0))
    hung: list[bool] = []

    def hang_up() -> None:
        hung.append(True)
        s.closed = "hung up"  # (what NetSession.hang_up does: close() then has nothing to say)

    async def main() -> int:
        with create_pipe_input() as inp, when_hung_up(hang_up):
            app = GameApp(s, input=inp, output=SizedOutput(80, 24), pace=0.01)
            task = asyncio.create_task(app.run())
            await until(lambda: app.view is not None)
            inp.close()  # the terminal is gone
            await task
        return 0

    with pytest.raises(UserError) as e:
        run_main(main())
    assert e.value.exit_code == EXIT_HANGUP and hung == [True]
    assert s.closed == "hung up"  # not "quit"


def test_the_toolbar_says_how_an_internet_connection_goes() -> None:
    """(host --internet, join CODE: direct, or through the relay; nothing on a LAN.)"""

    async def main() -> None:
        s = LocalSession(find_seed(0), names=("Alice", "Computer"))
        async with running(s, cols=100, rows=30, route="via the relay relay.example:4001") as (app, _inp):
            bar = "".join(f[1] for f in screen.toolbar(app))
            from p2p_spite.ui.text import DOT

            assert f"Computer {DOT} via the relay relay.example:4001" in bar and "^C quit" in bar
        async with running(LocalSession(find_seed(0), names=("Alice", "Computer"))) as (app, _inp):
            assert "relay" not in "".join(f[1] for f in screen.toolbar(app))

    run(main())
