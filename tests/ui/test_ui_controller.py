"""The one controller both interfaces use (ui/controller.py), driven through a Port
that only records what it is told: the intents are handled here, not in a screen."""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass

from p2p_spite.bots.review import HintReason
from p2p_spite.contracts.session import (
    ConnectionChanged,
    LinkState,
    Rematch,
    RematchAnswered,
    WatchersChanged,
)
from p2p_spite.engine import SIDE, Move, PlayerView, rank
from p2p_spite.ui.board import hand_order
from p2p_spite.ui.commands import Again, Chat, Enter, Hint, PlayText, Quit, Resign
from p2p_spite.ui.controller import Controller
from p2p_spite.ui.question import QuestionKind
from p2p_spite.ui.text import card_label
from p2p_spite.ui.words import Style
from tests.support.ui import LocalSession, RecordingPort, find_seed, run, show_queued, until


async def _started(seat_starts: int = 0) -> tuple[LocalSession, RecordingPort, Controller]:
    s = LocalSession(find_seed(seat_starts), bot=None)
    port = RecordingPort()
    ctl = Controller(s, port, enter_plays_hint=True, enter_shows_help=True)
    await show_queued(s, ctl)  # the game's start
    return s, port, ctl


def test_a_refused_move_is_worded_and_nothing_is_sent() -> None:
    async def main() -> None:
        s, port, ctl = await _started()
        v = ctl.view
        assert v is not None and v.my_turn
        shown = hand_order(v.hand)
        i = next(i for i, c in enumerate(shown) if rank(c) not in (1, 13))
        await ctl.handle(PlayText(f"h{i + 1} c1"))
        assert port.lines[-1] == (
            Style.ERROR,
            f"h{i + 1} c1: {card_label(shown[i])} from your hand does not fit center 1: "
            "it needs an Ace (or a King).",
        )
        assert s.sent == [] and port.moves_sent == 0
        await ctl.handle(PlayText("h9 c1"))
        assert port.lines[-1] == (
            Style.ERROR,
            "h9 c1: there is no hand card 9: your hand cards are h1, h2, h3, h4 and h5.",
        )

    run(main())


def test_a_hint_is_offered_and_enter_plays_it() -> None:
    async def main() -> None:
        s, port, ctl = await _started()
        v = ctl.view
        assert v is not None
        chosen = v.legal_moves()[-1]  # a discard
        ctl.hint_fn = lambda view: chosen
        await ctl.handle(Hint())
        assert port.offered and port.lines[-1][1].startswith(f"Hint: {port.offered[0]}  (discard ")
        await ctl.handle(Enter())
        assert s.sent == [chosen] and port.moves_sent == 1
        await ctl.handle(Enter())  # the hint was for that board: Enter is now the help
        assert port.helped == 1

    run(main())


def test_a_hint_says_why_from_the_review_evaluation() -> None:
    """The reason comes from ``bots.review.hint_reason``: the hinted turn's win chance in
    sampled worlds against the plain (``easy``) turn's, worded after the hint."""
    from p2p_spite.bots.review import HINT_REASON, REVIEW_FIXED, hint_reason

    fixed = dataclasses.replace(REVIEW_FIXED, worlds=16)
    assert HINT_REASON.deadline is not None  # (the interface's: bounded in time)

    async def main() -> None:
        _s, port, ctl = await _started()
        v = ctl.view
        assert v is not None
        chosen = v.legal_moves()[-1]  # a discard: the whole turn
        ctl.hint_fn = lambda view: chosen
        asked: list[tuple[PlayerView, Move]] = []

        def why(view: PlayerView, move: Move) -> HintReason:
            asked.append((view, move))
            return hint_reason(view, move, fixed)

        ctl.why_fn = why
        await ctl.handle(Hint())
        assert asked == [(v, chosen)]
        reason = hint_reason(v, chosen, fixed)
        assert reason.best == (chosen,)
        assert 0 <= reason.win_best <= 1 and 0 <= reason.win_plain <= 1
        hint, said = port.lines[-2][1], port.lines[-1][1]
        assert hint.startswith("Hint: ") and said.startswith("Why: ")
        assert f"{100 * reason.win_best:.0f}%" in said
        if reason.plain != reason.best:
            assert "the plain play" in said and f"{100 * reason.win_plain:.0f}%" in said

    run(main())


def test_resign_and_quit_ask_first_and_only_yes_acts() -> None:
    async def main() -> None:
        s, port, ctl = await _started()
        asking = asyncio.create_task(ctl.handle(Resign()))
        await until(lambda: ctl.question is not None)
        assert ctl.question is not None and ctl.question.kind is QuestionKind.RESIGN
        ctl.answer(False)
        await asking
        assert s.resigned == 0 and port.lines[-1] == (Style.INFO, "Not resigning: carry on.")
        await ctl.handle(Chat("hello"))
        assert s.chats == ["hello"] and port.lines[-1] == (Style.CHAT, "You: hello")
        asking = asyncio.create_task(ctl.handle(Quit()))
        await until(lambda: ctl.question is not None)
        ctl.answer(True)
        await asking
        assert s.closed == "quit" and ctl.left and port.left

    run(main())


@dataclass(frozen=True, slots=True)
class Shout:
    """An intent the controller does not know yet (as play again will be)."""

    text: str


def test_a_new_intent_is_one_more_handler() -> None:
    async def main() -> None:
        _, port, ctl = await _started()

        async def shout(cmd: Shout) -> None:
            ctl.say(Style.INFO, cmd.text.upper())

        ctl.handlers[Shout] = shout
        await ctl.handle(Shout("undo"))  # type: ignore[arg-type]
        assert port.lines[-1] == (Style.INFO, "UNDO")

    run(main())


def test_the_opponents_move_and_what_it_did_are_said_from_the_event() -> None:
    async def main() -> None:
        s, port, ctl = await _started(seat_starts=1)  # the other seat moves first
        g = s.match.game
        discard = next(m for m in g.legal_moves() if m.target == SIDE)
        card = discard.hand_card
        assert card is not None
        s.play_other(discard)
        await show_queued(s, ctl)
        assert f"Bob discarded {card_label(card)} on side stack {discard.slot + 1}" in port.said()
        assert port.lines[-1][1].startswith("Your turn.")
        assert ctl.view is not None and ctl.view.my_turn and ctl.last_move is not None

    run(main())


async def _match_over(other_again: bool = True) -> tuple[LocalSession, RecordingPort, Controller]:
    """A one-game match, shown to its end (this seat resigned it)."""
    s = LocalSession(find_seed(0), bot=None)
    s.core.max_games = 1
    s.other_again = other_again
    port = RecordingPort()
    ctl = Controller(s, port)
    await show_queued(s, ctl)
    await s.resign()
    await show_queued(s, ctl)
    assert ctl.finished
    return s, port, ctl


def test_play_again_yes_starts_the_next_match_afresh() -> None:
    async def main() -> None:
        s, port, ctl = await _match_over()
        first = s.match.seed
        asking = asyncio.create_task(ctl.handle(Again()))
        await until(lambda: ctl.question is not None)
        assert ctl.question is not None and ctl.question.kind is QuestionKind.AGAIN
        assert ctl.question.text == "Play another match? [y/N]"
        ctl.answer(True)
        await asking
        assert port.lines[-1] == (Style.EVENT, "Match 2 begins.") and not port.left
        assert s.match.seed != first and s.matches == 2
        await show_queued(s, ctl)  # the next match's first game
        assert not ctl.finished and ctl.scores == (0, 0) and ctl.view is not None and ctl.view.game == 1

    run(main())


def test_play_again_no_leaves_and_a_peers_no_is_told() -> None:
    async def main() -> None:
        s, port, ctl = await _match_over()
        asking = asyncio.create_task(ctl.handle(Again()))
        await until(lambda: ctl.question is not None)
        ctl.answer(False)
        await asking
        assert port.left and ctl.over and s.closed == "quit" and s.matches == 1

        s, port, ctl = await _match_over(other_again=False)
        asking = asyncio.create_task(ctl.handle(Again()))
        await until(lambda: ctl.question is not None)
        ctl.answer(True)
        await asking
        assert "Bob does not want another match." in port.said() and ctl.over and not port.left
        assert port.lines[-1] == (Style.INFO, "Type quit (or press Ctrl-C) to leave.")

    run(main())


def test_a_next_match_refused_before_its_deal_is_said_and_the_screen_stays() -> None:
    async def main() -> None:
        s, port, ctl = await _match_over()

        async def refused(yes: bool) -> Rematch:
            return Rematch.REFUSED  # (the next match's setup was not the one agreed)

        s.rematch = refused  # type: ignore[method-assign]
        asking = asyncio.create_task(ctl.handle(Again()))
        await until(lambda: ctl.question is not None)
        ctl.answer(True)
        await asking
        told = (Style.ERROR, "Match 2 with Bob was refused before any card was dealt: no other match.")
        assert told in port.lines and ctl.over and not port.left
        assert port.lines[-1] == (Style.INFO, "Type quit (or press Ctrl-C) to leave.")

    run(main())


def test_a_peers_answer_that_comes_first_is_told_and_a_no_withdraws_the_question() -> None:
    async def main() -> None:
        s, port, ctl = await _match_over()
        asking = asyncio.create_task(ctl.handle(Again()))
        await until(lambda: ctl.question is not None)
        s.inject(RematchAnswered(False))
        await show_queued(s, ctl)
        await asking
        assert ctl.question is None and ctl.over and not port.left
        assert port.said().count("Bob does not want another match.") == 1


def test_watchers_are_counted_and_said_only_when_more_watch_than_before() -> None:
    async def main() -> None:
        _s, port, ctl = await _started()
        before = len(port.lines)
        for n in (1, 0, 1, 0, 1, 2, 1, 2):  # a watcher that comes and goes, then a second one
            ctl.news(WatchersChanged(n))
        said = [text for _, text in port.lines[before:]]
        assert said == [
            "1 person is watching (they see only the cards shown to both of you).",
            "2 people are watching (they see only the cards shown to both of you).",
        ]
        assert ctl.watchers == 2
        ctl.news(ConnectionChanged(LinkState.RECONNECTING))
        assert ctl.watchers == 2  # (they still watch at the host while the joiner comes back)
        ctl.news(ConnectionChanged(LinkState.CLOSED))
        assert ctl.watchers == 0  # the toolbar no longer counts watchers of a closed connection

    run(main())


def test_the_joiner_forgets_the_hosts_watchers_when_the_connection_drops() -> None:
    """The joiner's count is the host's, told on each connection: a host that restarts
    (its watchers gone) does not tell a 0, so the count must not outlive the connection."""

    async def main() -> None:
        s = LocalSession(find_seed(0), seat=1, bot=None)
        ctl = Controller(s, RecordingPort())
        await show_queued(s, ctl)
        ctl.news(WatchersChanged(1))
        assert ctl.watchers == 1
        ctl.news(ConnectionChanged(LinkState.RECONNECTING))
        assert ctl.watchers == 0
        ctl.news(ConnectionChanged(LinkState.CONNECTED))
        assert ctl.watchers == 0  # (until the host tells its count again)

    run(main())
