"""Taking back, as the player sees it: the ``undo`` intent, the other player's request as
a y/N question, and the hand's numbering kept so that a card goes back under its old
number.  One part of the :class:`~p2p_spite.ui.controller.Controller`, for both
interfaces."""

from __future__ import annotations

import asyncio

from ..contracts.i18n import _
from ..contracts.session import MoveTakenBack, TakebackAsked, TakebackRefused
from ..engine import IllegalMoveError
from ..engine import refusals as no
from .board import Slots
from .commands import Undo
from .question import QuestionKind
from .seat import Seat
from .words import Style, refusal, takeback_asked, takeback_question, taken_back_words

PLAY_TIMEOUT = 10.0  # seconds for the session to take a move, a resignation or a takeback


class Takebacks:
    """The takebacks of the controller ``ctl``'s seat, both ways."""

    def __init__(self, ctl: Seat) -> None:
        self.ctl = ctl
        self.asking = False  # our takeback waits for the other player's answer
        self._slots_before: list[Slots] = []  # the hand as numbered before each of our moves this turn
        self._answering: asyncio.Task[None] | None = None  # the other player's takeback, being asked

    async def undo(self, cmd: Undo) -> None:
        """The player's ``undo``: take back our last move of this turn (asked, against a person)."""
        ctl = self.ctl
        v = ctl.board()
        if v is None:
            return
        if self.asking:
            ctl.say(Style.ERROR, _("Your takeback waits for {name}'s answer.").format(name=ctl.opp_name))
            return
        if v.result is None and not v.my_turn:  # on the board shown (the session may be further on)
            last = ctl.last_move
            ended = last is not None and last.seat == ctl.seat and last.played.turn_passed
            off_turn = no.EndedTurn() if ended else no.NotYourTurn(v.turn, ctl.seat)
            ctl.say(
                Style.ERROR, _("Nothing taken back: {why}.").format(why=refusal(off_turn, None, ctl.voice))
            )
            return
        try:
            asked = await asyncio.wait_for(ctl.session.take_back(), PLAY_TIMEOUT)
        except IllegalMoveError as e:
            why = refusal(e.why, None, ctl.voice)
            ctl.say(Style.ERROR, _("Nothing taken back: {why}.").format(why=why))
            return
        except Exception as e:  # the connection closed, the session's own refusal...
            ctl.say(Style.ERROR, _("Nothing taken back: {why}.").format(why=e or type(e).__name__))
            return
        if asked is not None:  # the other player is asked; MoveTakenBack or TakebackRefused follows
            self.asking = True
            ctl.say(Style.INFO, takeback_asked(asked.move, asked.card, ctl.opp_name))

    def show(self, ev: MoveTakenBack | TakebackAsked | TakebackRefused) -> None:
        ctl = self.ctl
        if isinstance(ev, MoveTakenBack):
            self._taken_back(ev)
        elif isinstance(ev, TakebackAsked):  # the other player asks: the next line answers
            text, short = takeback_question(ev.played.move, ev.played.card, ctl.names[ev.seat])
            self._answering = asyncio.get_running_loop().create_task(self._answer(text, short))
        else:
            self.asking = False
            if ev.lost:
                ctl.say(Style.INFO, _("Your takeback went unanswered with the connection: ask again."))
            elif ev.rule:  # (nobody was asked: a rule, not a person's no)
                ctl.say(Style.INFO, _("{name} plays without takebacks.").format(name=ctl.opp_name))
            else:
                ctl.say(Style.INFO, _("{name} did not allow the takeback.").format(name=ctl.opp_name))

    async def _answer(self, text: str, short: str) -> None:
        ctl = self.ctl
        yes = await ctl.questions.ask(QuestionKind.TAKEBACK, text, short)
        if yes is None:
            return  # withdrawn: the other player played on, or another question came
        try:
            await asyncio.wait_for(ctl.session.answer_takeback(yes), PLAY_TIMEOUT)
        except Exception as e:
            ctl.say(Style.ERROR, _("Answer not sent: {why}").format(why=e or type(e).__name__))
            return
        if not yes:
            ctl.say(Style.INFO, _("You did not allow the takeback."))

    def _withdraw(self) -> None:
        """The other player played on (or the game ended): its takeback request is void."""
        ctl = self.ctl
        q = ctl.question
        if q is not None and q.kind is QuestionKind.TAKEBACK:
            ctl.answer(None)
            ctl.say(Style.INFO, _("{name} played on: the takeback is withdrawn.").format(name=ctl.opp_name))

    def _taken_back(self, ev: MoveTakenBack) -> None:
        ctl = self.ctl
        mine = ev.seat == ctl.seat
        before = self._slots_before.pop() if mine and self._slots_before else None
        ctl.view = ev.view
        if before is not None and {c for c in before if c is not None} == set(ev.view.hand):
            ctl.slots = before  # the card is back in the place it had
        ctl.last_move = None
        if mine:
            self.asking = False
        ctl.say(Style.ME if mine else Style.OPP, taken_back_words(ev.move, ev.card, ctl.names[ev.seat], mine))

    def moved(self, mine: bool, turn_passed: bool) -> None:
        """Before a move is shown: keep the hand's numbering for a takeback of ours; a move of
        the other player voids its takeback request, one of ours voids ours."""
        if mine:
            self._slots_before.append(self.ctl.slots)
            if self.asking:
                self.asking = False
                self.ctl.say(Style.INFO, _("You played on: your takeback is withdrawn."))
        else:
            self._withdraw()
        if turn_passed:
            self._slots_before.clear()

    def game_ended(self) -> None:
        self._withdraw()
        self.asking = False

    def new_game(self) -> None:
        self._slots_before.clear()
        self.asking = False
