"""``undo`` through the one controller both interfaces use: against the computer at once,
against a person once they allow it; the other player's request is a y/N question."""

from __future__ import annotations

import asyncio

import pytest

from p2p_spite.contracts import i18n
from p2p_spite.contracts.session import Takebacks
from p2p_spite.engine import SIDE, Match, Move
from p2p_spite.ui.commands import PlayText, Undo, parse_command
from p2p_spite.ui.controller import Controller
from p2p_spite.ui.notation import move_notation
from p2p_spite.ui.question import QuestionKind
from p2p_spite.ui.text import card_label
from p2p_spite.ui.words import Style
from tests.support.positions import quiet_moves
from tests.support.ui import LocalSession, RecordingPort, run, show_queued, until
from tests.ui.test_ui_lineplay import lineplay


def seed_with_moves(seat: int, count: int) -> bytes:
    """A seed whose game 1 is started by ``seat`` with ``count`` moves to take back."""
    for i in range(2000):
        seed = i.to_bytes(32, "big")
        m = Match(seed)
        if m.game.starter == seat and len(quiet_moves(m)) >= count:
            return seed
    raise AssertionError("no seed")


async def _started(
    seat_starts: int = 0, takebacks: Takebacks = Takebacks.ALWAYS, count: int = 2
) -> tuple[LocalSession, RecordingPort, Controller]:
    s = LocalSession(seed_with_moves(seat_starts, count), bot=None)
    s.takebacks = takebacks
    port = RecordingPort()
    ctl = Controller(s, port, enter_plays_hint=True, enter_shows_help=True)
    await show_queued(s, ctl)
    return s, port, ctl


async def _play(s: LocalSession, ctl: Controller, move: Move) -> None:
    await ctl.handle(PlayText(move_notation(move, ctl.slots)))
    await show_queued(s, ctl)


def test_against_the_computer_undo_takes_back_at_once_to_the_turns_start() -> None:
    async def main() -> None:
        s, port, ctl = await _started()
        start_view, start_slots = ctl.view, ctl.slots
        assert start_view is not None
        moves = quiet_moves(s.match)[:2]
        numbered = []  # the hand as numbered before each move
        for m in moves:
            numbered.append(ctl.slots)
            await _play(s, ctl, m)
        assert len(s.match.moves[-1]) == 2
        for m in reversed(moves):
            await ctl.handle(Undo())
            await show_queued(s, ctl)
            assert port.lines[-1] == (
                Style.ME,
                f"You took back {card_label(m.arg or 0)} from center {m.slot + 1}",
            )
            assert ctl.slots == numbered.pop()  # the card back under its number, the others kept
        v = ctl.view
        assert v is not None and v.hand == start_view.hand and v.center == start_view.center
        assert ctl.slots == start_slots
        assert s.match.moves[-1] == [] and s.match.game.digest() == Match(s.match.seed).game.digest()
        await ctl.handle(Undo())
        assert port.lines[-1] == (
            Style.ERROR,
            "Nothing taken back: you have made no move this turn to take back.",
        )

    run(main())


def test_a_discard_cannot_be_taken_back() -> None:
    async def main() -> None:
        s, port, ctl = await _started()
        v = ctl.view
        assert v is not None
        discard = next(m for m in v.legal_moves() if m.target == SIDE)
        await _play(s, ctl, discard)
        before = s.match.game.digest()
        await ctl.handle(Undo())
        assert port.lines[-1] == (
            Style.ERROR,
            "Nothing taken back: your discard ended your turn: it cannot be taken back.",
        )
        assert s.match.game.digest() == before and s.match.moves[-1] == [discard]

    run(main())


def test_against_a_person_undo_waits_for_their_answer() -> None:
    async def main() -> None:
        s, port, ctl = await _started(takebacks=Takebacks.ASK)
        m = quiet_moves(s.match)[0]
        card = card_label(m.arg or 0)
        await _play(s, ctl, m)
        await ctl.handle(Undo())
        assert port.lines[-1] == (
            Style.INFO,
            f"Asking Bob to let you take back {card} on center {m.slot + 1}...",
        )
        await ctl.handle(Undo())  # one at a time
        assert port.lines[-1] == (Style.ERROR, "Your takeback waits for Bob's answer.")
        s.answer_other(False)
        await show_queued(s, ctl)
        assert port.lines[-1] == (Style.INFO, "Bob did not allow the takeback.")
        assert s.match.moves[-1] == [m]
        await ctl.handle(Undo())
        s.answer_other(True)
        await show_queued(s, ctl)
        assert port.lines[-1] == (Style.ME, f"You took back {card} from center {m.slot + 1}")
        assert s.match.moves[-1] == []

    run(main())


def test_a_move_voids_our_request() -> None:
    async def main() -> None:
        s, port, ctl = await _started(takebacks=Takebacks.ASK)
        first, second = quiet_moves(s.match)[:2]
        await _play(s, ctl, first)
        await ctl.handle(Undo())
        await _play(s, ctl, second)  # played on instead of waiting
        assert (Style.INFO, "You played on: your takeback is withdrawn.") in port.lines
        s.answer_other(True)  # the answer to a void request changes nothing
        await show_queued(s, ctl)
        assert s.match.moves[-1] == [first, second] and not ctl.takebacks.asking

    run(main())


@pytest.mark.parametrize("yes", [True, False])
def test_the_other_players_request_is_a_question(yes: bool) -> None:
    async def main() -> None:
        s, port, ctl = await _started(seat_starts=1)
        m = quiet_moves(s.match)[0]
        s.play_other(m)
        await show_queued(s, ctl)
        s.take_back_other()
        await show_queued(s, ctl)
        await until(lambda: ctl.question is not None)
        q = ctl.question
        assert q is not None and q.kind is QuestionKind.TAKEBACK
        card = card_label(m.arg or 0)
        assert q.text == f"Bob wants to take back {card} on center {m.slot + 1}. Allow? [y/N]"
        ctl.answer(yes)
        await until(lambda: ctl.question is None and s.other_asked is None)
        await asyncio.sleep(0)
        await show_queued(s, ctl)
        if yes:
            assert port.lines[-1] == (Style.OPP, f"Bob took back {card} from center {m.slot + 1}")
            assert s.match.moves[-1] == []
        else:
            assert port.lines[-1] == (Style.INFO, "You did not allow the takeback.")
            assert s.match.moves[-1] == [m]

    run(main())


def test_the_other_players_move_withdraws_its_question() -> None:
    async def main() -> None:
        s, port, ctl = await _started(seat_starts=1)
        first, second = quiet_moves(s.match)[:2]
        s.play_other(first)
        await show_queued(s, ctl)
        s.take_back_other()
        await show_queued(s, ctl)
        await until(lambda: ctl.question is not None)
        s.play_other(second)
        await show_queued(s, ctl)
        assert ctl.question is None
        assert (Style.INFO, "Bob played on: the takeback is withdrawn.") in port.lines
        assert not await s.answer_takeback(True)  # void: nothing to answer
        assert s.match.moves[-1] == [first, second]

    run(main())


def test_each_language_has_its_word_for_undo() -> None:
    assert parse_command("undo") == Undo()
    assert parse_command("cofnij") == PlayText("cofnij")  # English: not a command
    for lang, word in (("pl", "cofnij"), ("es", "deshacer"), ("ms", "undur"), ("tl", "bawi")):
        i18n.setup(lang)
        assert parse_command(word) == Undo() and parse_command("undo") == Undo()


def test_undo_after_the_discard_is_refused_on_the_board_shown() -> None:
    """The computer may already have played its turn when the screen still shows ours
    ending: the refusal is about the board shown (the discard ended the turn)."""

    async def main() -> None:
        s = LocalSession(seed_with_moves(0, 1), bot="easy")
        port = RecordingPort()
        ctl = Controller(s, port)
        await show_queued(s, ctl)
        v = ctl.view
        assert v is not None
        discard = next(m for m in v.legal_moves() if m.target == SIDE)
        await ctl.handle(PlayText(move_notation(discard, ctl.slots)))
        ctl.show(await s.next_event())  # the discard shown; the computer's turn goes on unseen
        await ctl.handle(Undo())
        assert port.lines[-1] == (
            Style.ERROR,
            "Nothing taken back: your discard ended your turn: it cannot be taken back.",
        )

    run(main())


def test_the_line_prompt_asks_the_other_players_takeback_and_reads_the_answer() -> None:
    """At the line prompt the question is the prompt, and the next line answers it."""

    async def main() -> None:
        s = LocalSession(seed_with_moves(1, 1), bot=None)
        m = quiet_moves(s.match)[0]
        async with lineplay(s) as d:
            await d.wait_for("Bob starts")
            s.play_other(m)
            await d.wait_for("Bob played")
            s.take_back_other()
            card = card_label(m.arg or 0)
            await d.wait_for(f"Bob wants to take back {card} on center {m.slot + 1}. Allow? [y/N]")
            d.type("y")
            await d.wait_for(f"Bob took back {card} from center {m.slot + 1}")
            assert s.match.moves[-1] == []

    run(main())
