"""Playing again, as the player sees it: "another match?" asked at a match's end, the
other player's answer told, and how it settled.  One part of the
:class:`~p2p_spite.ui.controller.Controller`, for both interfaces."""

from __future__ import annotations

import asyncio

from ..contracts.i18n import _
from ..contracts.session import Rematch
from .commands import Again
from .question import QuestionKind
from .seat import Seat
from .words import Style, rematch_words

# seconds the session may take to settle a rematch once this side answered (the peer's
# own answer has its deadline in the session: this only bounds a session that hangs)
REMATCH_TIMEOUT = 900.0


class PlayAgain:
    """Another match for the controller ``ctl``'s seat."""

    def __init__(self, ctl: Seat) -> None:
        self.ctl = ctl
        self.peer: bool | None = None  # the peer's answer to "another match?", if it came

    async def ask(self, cmd: Again) -> None:
        """At the match's end: ask for another match, answer the session, and say how it
        settled.  Our own no leaves; a new match's events follow a yes from both."""
        ctl = self.ctl
        if not ctl.finished or ctl.failed or ctl.over:
            return
        if self.peer is False:
            yes: bool | None = False  # (the peer said no first: not asked)
        else:
            question = _("Play another match? [y/N]")
            yes = await ctl.questions.ask(QuestionKind.AGAIN, question, _("Another match? [y/N]"))
        if yes and self.peer is None:
            ctl.say(Style.INFO, _("Waiting for {name}'s answer...").format(name=ctl.opp_name))
        try:
            settled = await asyncio.wait_for(ctl.session.rematch(bool(yes)), REMATCH_TIMEOUT)
        except Exception:  # (a session that hung or broke: no other match)
            settled = Rematch.GONE
        peer, self.peer = self.peer, None
        if ctl.left:
            return  # (the player left meanwhile: nothing more to say)
        if settled is Rematch.STARTED:
            ctl.match_number += 1
            ctl.say(Style.EVENT, rematch_words(settled, ctl.opp_name, ctl.match_number) or "")
            return
        ctl.over = True
        if not yes and peer is not False:  # our own no: the match is left at once
            await ctl.leave()
            return
        told = rematch_words(settled, ctl.opp_name, ctl.match_number)
        if told is not None and not (settled is Rematch.DECLINED and peer is False):  # (told when it came)
            ctl.say(Style.ERROR if settled is Rematch.REFUSED else Style.INFO, told)
        if ctl.leave_words:
            ctl.say(Style.INFO, ctl.leave_words)
        ctl.port.changed()

    def peer_answered(self, yes: bool) -> None:
        """The peer's answer to "another match?" (ours may still be asked)."""
        ctl = self.ctl
        self.peer = yes
        if yes:
            ctl.say(Style.INFO, _("{name} would like another match.").format(name=ctl.opp_name))
            return
        ctl.say(Style.INFO, rematch_words(Rematch.DECLINED, ctl.opp_name, ctl.match_number) or "")
        q = ctl.question
        if q is not None and q.kind is QuestionKind.AGAIN:
            ctl.questions.answer(None)  # withdrawn: there is nothing left to agree to
