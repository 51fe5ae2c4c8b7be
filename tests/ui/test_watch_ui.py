"""The watcher's screen and its headless lines, fed a played match's public tables."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2p_spite.bots import make_bot
from p2p_spite.contracts.errors import UserError
from p2p_spite.contracts.news import WatchCut, WatchEnd
from p2p_spite.contracts.spectator import SpectatorEvent, TableShown, Watching, WatchStopped
from p2p_spite.engine import Match, public_view, view
from p2p_spite.ui.board import width_of
from p2p_spite.ui.text import card_label
from p2p_spite.ui.watch import WatchModel, WatchScreen, print_watch

SEED = bytes(range(32))


def tables(games: int = 1, start_at: int = 0) -> list[SpectatorEvent]:
    """What a host tells a watcher of an easy-bot match of ``games`` games, from move
    ``start_at`` of the first game (a watcher that arrives mid-game)."""
    m = Match(SEED, target=500, players=("Ann", "Bob"))
    bots = [make_bot("easy", 0), make_bot("easy", 1)]
    out: list[SpectatorEvent] = [Watching(("Ann", "Bob"), 500, games, False)]

    def shown(**kw: object) -> TableShown:
        sc = (m.scores[0], m.scores[1])
        return TableShown(public_view(view(m.game, 0)), sc, **kw)  # type: ignore[arg-type]

    for g in range(games):
        if g:
            m.next_game()
        if not (g == 0 and start_at):
            out.append(shown())
        while m.game.result is None:
            seat = m.game.turn
            move = bots[seat].choose(view(m.game, seat))
            card = m.game.card_of(move)
            m.apply(move)
            if g == 0 and m.game.ply < start_at:
                continue
            if g == 0 and m.game.ply == start_at:
                out.append(shown())
                continue
            out.append(shown(move=move, card=card, match_over=g == games - 1 and m.game.result is not None))
    out.append(WatchStopped(True))
    return out


class Feed:
    def __init__(self, events: list[SpectatorEvent], hold: asyncio.Event | None = None) -> None:
        self.events = list(events)
        self.hold = hold
        self.closed = False

    async def next_event(self) -> SpectatorEvent:
        if self.hold is not None and len(self.events) == 1:
            await self.hold.wait()
        return self.events.pop(0)

    async def close(self) -> None:
        self.closed = True


def test_headless_lines_tell_each_move_and_the_final_score(capsys: pytest.CaptureFixture[str]) -> None:
    events = tables(games=2)
    feed = Feed(events)
    assert asyncio.run(print_watch(feed)) == 0
    assert feed.closed
    out = capsys.readouterr().out.splitlines()
    moves = [e for e in events if isinstance(e, TableShown) and e.move is not None]
    assert out[0] == "Watching Ann against Bob, first to 500."
    assert out[1].startswith("Game 1 begins.")
    assert sum(1 for line in out if line[:4].strip().rstrip(".").isdigit()) == len(moves)
    first = moves[0]
    assert first.move is not None and first.card is not None
    assert card_label(first.card) in out[2]
    assert any(line.startswith("Game 2: ") for line in out)
    assert out[-1].startswith(("Ann wins the match", "Bob wins the match", "The match stopped at"))
    assert SEED.hex() not in "\n".join(out)


def test_a_watch_cut_short_is_an_error_after_the_lines_so_far(capsys: pytest.CaptureFixture[str]) -> None:
    events = [*tables()[:5], WatchStopped(False, WatchCut("h:4747", WatchEnd.HOST_STOPPED, "quit"))]
    with pytest.raises(UserError, match=r"the host stopped the watch \(quit\)"):
        asyncio.run(print_watch(Feed(events)))
    assert "stopped the watch" not in capsys.readouterr().out  # (said once, as the error)


def test_a_watcher_arriving_mid_game_is_told_where_the_game_is() -> None:
    model = WatchModel()
    lines = [t.text for ev in tables(start_at=10)[:3] for t in model.take(ev)]
    assert lines[1].startswith("Game 1 goes on, 10 moves in")
    assert lines[2].startswith(" 11. ")
    info = model.board()
    assert info is not None and info.watcher and info.view.hand == ()


class SizedOutput(DummyOutput):
    def __init__(self, cols: int, rows: int) -> None:
        self.size = Size(rows=rows, columns=cols)

    def get_size(self) -> Size:
        return self.size


@pytest.mark.parametrize("cols,rows", [(80, 24), (50, 16), (120, 40)])
def test_the_screen_shows_the_table_with_both_hands_face_down(cols: int, rows: int) -> None:
    async def main() -> None:
        hold = asyncio.Event()
        events = tables()
        with create_pipe_input() as inp:
            screen = WatchScreen(Feed(events, hold), input=inp, output=SizedOutput(cols, rows))
            task = asyncio.create_task(screen.run())

            async def until(pred: Callable[[], bool]) -> None:
                async with asyncio.timeout(10):
                    while not pred():
                        await asyncio.sleep(0.01)

            await until(lambda: screen.model.over)
            lines = screen.board_lines()
            text = "\n".join("".join(f[1] for f in line) for line in lines)
            assert all(width_of(line) <= cols for line in lines)
            assert text.count("Hand") == 2  # both hands, face down
            assert "Ann" in text and "Bob" in text
            listed = "".join(f[1] for f in screen.move_list())
            assert "wins the match" in listed or "stopped at" in listed
            last = screen.model.told[-1].text
            assert last not in text and listed.count(last) == 1  # the last event is shown once
            assert "the match is over" in "".join(f[1] for f in screen._toolbar())
            inp.send_text("q")
            async with asyncio.timeout(10):
                assert await task == 0

    asyncio.run(main())


def test_a_move_taken_back_is_told_as_taken_back() -> None:
    model = WatchModel()
    events = tables()
    for ev in events[:3]:
        model.take(ev)
    t = events[2]
    assert isinstance(t, TableShown) and t.move is not None and t.card is not None
    back = TableShown(events[1].view, t.scores, t.move, t.card, taken_back=True)  # type: ignore[union-attr]
    (told,) = model.take(back)
    who = ("Ann", "Bob")[t.move.seat]
    assert told.text == f"     {who} took back {card_label(t.card)} from center {t.move.slot + 1}"
    assert told.seat == t.move.seat


def test_a_next_match_on_the_connection_starts_afresh_and_only_the_last_ends_the_watch(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Two one-game matches in a row (the players played again): the second is told from
    its deal, with its own end; a watch cut in the second is not complete."""
    first, second = tables(games=1)[:-1], tables(games=1)
    feed = Feed(first + second)
    assert asyncio.run(print_watch(feed)) == 0
    out = capsys.readouterr().out.splitlines()
    assert out.count("Watching Ann against Bob, first to 500.") == 1
    assert "They play again. Match 2: Ann against Bob, first to 500." in out
    again = out.index("They play again. Match 2: Ann against Bob, first to 500.")
    assert out[again + 1].startswith("Game 1 begins.")  # game 1 again: told, not taken as a repeat
    assert sum(1 for ln in out if ln.startswith("Game 1: ")) == 2  # each match's game 1 has its end
    assert sum(1 for ln in out if " wins the match " in ln or "The match " in ln) == 2

    model = WatchModel()
    for ev in first:
        model.take(ev)
    assert model.over
    model.take(second[0])  # the next match's Watching
    assert not model.over and model.table is None and model.matches == 2
    model.take(second[1])  # its deal: the screen's list still names the new match first
    said = [t.text for t in model.told]
    assert said[0].startswith("They play again. Match 2:") and said[1].startswith("Game 1 begins.")
    cut = WatchStopped(False, WatchCut("h:4747", WatchEnd.LOST), 4)
    with pytest.raises(UserError):
        asyncio.run(print_watch(Feed([*first, *second[:5], cut])))
