"""One controller for both interfaces: the match as the player sees it, and what
each intent does.

:class:`Controller` holds the state an interface shows (the view of the last
event shown, the hand as numbered, scores, the connection, the question asked,
the hint offered) and handles every intent a typed line means
(:mod:`.commands`): a move, hint, undo, resign, chat, quit, help, Enter.  The
full screen (:mod:`.app`) and the line prompt (:mod:`.lineplay`) only read
lines, hand the intents here and render what the controller says through their
:class:`Port`.  An intent still to come (play again) is one more command type
and one more entry in :attr:`Controller.handlers`.  The other player's
takeback request is a question the next line answers, as ours are.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from ..engine import IllegalMoveError, Move, PlayerView
from ..engine import refusals as no
from ..errors import SessionClosed
from ..i18n import _
from ..news import StorageProblem
from ..plaintext import MAX_CHAT, clean_name
from ..session import (
    ChatReceived,
    ConnectionChanged,
    Ending,
    Event,
    GameEnded,
    GameStarted,
    LinkState,
    MatchEnded,
    MovePlayed,
    MoveTakenBack,
    Notice,
    Session,
    SessionFailed,
    TakebackAsked,
    TakebackRefused,
)
from .board import Slots, hand_slots
from .commands import Chat, Command, Enter, Help, Hint, PlayText, Quit, Resign, Undo, default_hint
from .networds import news_words, storage_words
from .notation import NotationError, move_notation, parse_move
from .question import Question, QuestionKind, Questions
from .text import clip_text, points
from .words import (
    Style,
    Voice,
    connection_words,
    deck_proven,
    effects,
    game_begins,
    game_goes_on,
    game_over,
    hint_words,
    match_over,
    move_words,
    peer_left,
    refusal,
    scores_line,
    takeback_asked,
    takeback_question,
    taken_back_words,
)

PLAY_TIMEOUT = 10.0  # seconds for the session to take a move or a resignation
CHAT_TIMEOUT = 5.0
HINT_TIMEOUT = 15.0
CLOSE_TIMEOUT = 5.0


class Port(Protocol):
    """What an interface gives the controller: where its words go, and the few
    things only the interface can do."""

    def say(self, style: Style, text: str) -> None:
        """Show one message line."""

    def show_help(self) -> None:
        """Show the help (each interface has its own keys to explain)."""

    def offer(self, text: str) -> None:
        """A line ready for Enter to play (the hint): the full screen fills its move line."""

    def next_game(self) -> bool:
        """Enter between games: show the game held back, if one is (True: one was)."""

    def holding(self) -> bool:
        """Is a new game held back until Enter (the finished one on screen)?"""

    async def played(self, before: PlayerView) -> None:
        """A move of ours was taken by the session (the full screen waits for it to show)."""

    def leave(self) -> None:
        """The player left: stop reading lines."""

    def changed(self) -> None:
        """The state shown changed (redraw, or prompt again)."""


class Controller:
    """The seat of ``session`` as the player sees it; ``hint``: the move suggested
    for a view (default: the strongest computer level)."""

    def __init__(
        self,
        session: Session,
        port: Port,
        *,
        hint: Callable[[PlayerView], Move] | None = None,
        enter_plays_hint: bool = False,
        enter_shows_help: bool = False,
        leave_words: str | None = "",
    ) -> None:
        self.session = session
        self.port = port
        self.seat = session.seat
        self.names = (
            clean_name(session.names[0]) or _("Player 1"),
            clean_name(session.names[1]) or _("Player 2"),
        )
        self.opp_name = self.names[1 - self.seat]
        self.private = session.private  # a private-deck match: the interfaces say so
        self.voice = Voice(self.names, self.seat)
        self.hint_fn = hint or default_hint
        self.enter_plays_hint = enter_plays_hint  # (the full screen offers it in its move line instead)
        self.enter_shows_help = enter_shows_help
        self.leave_words = (
            leave_words if leave_words != "" else _("Type quit (or press Ctrl-C) to leave.")
        )  # said once the match is over (None: the interface ends itself)
        self._view: PlayerView | None = None  # the view of the last event shown
        self.slots: Slots = ()  # its hand as numbered (board.hand_slots: stable within a turn)
        self.scores: tuple[int, int] = (0, 0)  # from GameStarted and GameEnded
        self.target: int | None = None  # from the first GameStarted
        self.last_move: MovePlayed | None = None  # the last move shown (the board marks the opponent's)
        self.connection = LinkState.CONNECTED
        self.finished = False  # the match is over (or failed)
        self.failed = False  # the match could not go on (peer left, connection lost, desync)
        self.left = False  # the player left (quit)
        self.hinted: tuple[PlayerView, Move] | None = None  # the hint offered, and for which view
        self.questions = Questions(port.changed)  # the question the next line answers
        self.asking = False  # our takeback waits for the other player's answer
        self._slots_before: list[Slots] = []  # the hand as numbered before each of our moves this turn
        self._answering: asyncio.Task[None] | None = None  # the other player's takeback, being asked
        self.handlers: dict[type[Any], Callable[[Any], Awaitable[None]]] = {
            Enter: self._enter,
            Help: self._help,
            Quit: self._quit,
            Resign: self._resign,
            Chat: self._chat,
            Hint: self._hint,
            Undo: self._undo,
            PlayText: self._play_text,
        }

    # -- the state shown ----------------------------------------------------------

    @property
    def view(self) -> PlayerView | None:
        return self._view

    @view.setter
    def view(self, v: PlayerView | None) -> None:
        if v is not self._view and v is not None:
            self.slots = hand_slots(v.hand, self.slots, v.my_turn)
            self.hinted = None
        self._view = v

    @property
    def question(self) -> Question | None:
        """The y/N question the next line answers."""
        return self.questions.open

    def say(self, style: Style, text: str) -> None:
        self.port.say(style, text)

    # -- intents ------------------------------------------------------------------

    async def handle(self, cmd: Command) -> None:
        """Carry out one intent (a line typed, a click, a key)."""
        await self.handlers[type(cmd)](cmd)

    def answer(self, yes: bool | None) -> None:
        """Answer the question asked (nothing when none is)."""
        self.questions.answer(yes)

    async def _enter(self, cmd: Enter) -> None:
        if self.port.next_game():
            return
        hinted = self.hinted
        if self.enter_plays_hint and hinted is not None and hinted[0] is self.view:
            await self.play(hinted[1], move_notation(hinted[1], self.slots))
        elif self.enter_shows_help:
            self.port.show_help()

    async def _help(self, cmd: Help) -> None:
        self.port.show_help()

    def _board(self) -> PlayerView | None:
        """The board a move or an undo acts on (None: there is none, and the player is told)."""
        if self.finished:
            self.say(Style.ERROR, _("The match is over: type quit to leave."))
            return None
        if self.view is None:
            self.say(Style.ERROR, _("The game has not started yet."))
        return self.view

    async def _play_text(self, cmd: PlayText) -> None:
        text, v = cmd.text, self._board()
        if v is None:
            return
        try:
            move = parse_move(text, v, self.slots)
        except NotationError as e:
            self.say(Style.ERROR, _("{typed}: {why}.").format(typed=clip_text(text), why=e))
            return
        await self.play(move, text)

    async def play(self, move: Move, text: str) -> None:
        """Play ``move`` (typed as ``text``): refused in the player's terms when the
        rules say no on the board shown, else sent through the session."""
        v = self.view
        if v is None:
            return
        self.hinted = None
        if v.result is not None:
            if self.port.holding():
                over = _("{typed}: this game is over. Press Enter for the next game.")
            else:
                over = _("{typed}: this game is over.")
            self.say(Style.ERROR, over.format(typed=clip_text(text)))
            return
        why = v.check(move)
        if why is not None:
            self.say(
                Style.ERROR,
                _("{typed}: {why}.").format(typed=clip_text(text), why=refusal(why, move, self.voice)),
            )
            return
        try:
            await asyncio.wait_for(self.session.play(move), PLAY_TIMEOUT)
        except IllegalMoveError as e:  # legal on the board shown: the session's own reason
            self.say(
                Style.ERROR,
                _("{typed}: not played: {why}.").format(
                    typed=clip_text(text), why=refusal(e.why, move, self.voice)
                ),
            )
            return
        except SessionClosed as e:
            self.say(Style.ERROR, _("{typed}: not played: {why}.").format(typed=clip_text(text), why=e))
            return
        except Exception as e:
            self.say(
                Style.ERROR,
                _("{typed}: not sent ({why}).").format(typed=clip_text(text), why=e or type(e).__name__),
            )
            return
        await self.port.played(v)

    async def _hint(self, cmd: Hint) -> None:
        v = self.view
        if v is None or not v.my_turn or self.finished:
            self.say(Style.ERROR, _("A hint is for your turn."))
            return
        try:
            move = await asyncio.wait_for(asyncio.to_thread(self.hint_fn, v), HINT_TIMEOUT)
        except Exception as e:
            self.say(Style.ERROR, _("No hint available ({why}).").format(why=e or type(e).__name__))
            return
        card = v.card_of(move)
        if self.view is not v or card is None:
            return
        typed = move_notation(move, self.slots)
        self.hinted = (v, move)
        self.say(
            Style.INFO,
            _("Hint: {typed}  ({move}). Press Enter to play it.").format(
                typed=typed, move=hint_words(move, card)
            ),
        )
        self.port.offer(typed)

    async def _undo(self, cmd: Undo) -> None:
        v = self._board()
        if v is None:
            return
        if self.asking:
            self.say(Style.ERROR, _("Your takeback waits for {name}'s answer.").format(name=self.opp_name))
            return
        if v.result is None and not v.my_turn:  # on the board shown (the session may be further on)
            last = self.last_move
            ended = last is not None and last.seat == self.seat and last.played.turn_passed
            off_turn = no.EndedTurn() if ended else no.NotYourTurn(v.turn, self.seat)
            self.say(
                Style.ERROR, _("Nothing taken back: {why}.").format(why=refusal(off_turn, None, self.voice))
            )
            return
        try:
            asked = await asyncio.wait_for(self.session.take_back(), PLAY_TIMEOUT)
        except IllegalMoveError as e:
            why = refusal(e.why, None, self.voice)
            self.say(Style.ERROR, _("Nothing taken back: {why}.").format(why=why))
            return
        except Exception as e:  # the connection closed, the session's own refusal...
            self.say(Style.ERROR, _("Nothing taken back: {why}.").format(why=e or type(e).__name__))
            return
        if asked is not None:  # the other player is asked; MoveTakenBack or TakebackRefused follows
            self.asking = True
            self.say(Style.INFO, takeback_asked(asked.move, asked.card, self.opp_name))

    def _takeback_asked(self, ev: TakebackAsked) -> None:
        """The other player asks to take back its last move: ask ours (the next line answers)."""
        text, short = takeback_question(ev.played.move, ev.played.card, self.names[ev.seat])
        self._answering = asyncio.get_running_loop().create_task(self._answer_takeback(text, short))

    async def _answer_takeback(self, text: str, short: str) -> None:
        yes = await self.questions.ask(QuestionKind.TAKEBACK, text, short)
        if yes is None:
            return  # withdrawn: the other player played on, or another question came
        try:
            await asyncio.wait_for(self.session.answer_takeback(yes), PLAY_TIMEOUT)
        except Exception as e:
            self.say(Style.ERROR, _("Answer not sent: {why}").format(why=e or type(e).__name__))
            return
        if not yes:
            self.say(Style.INFO, _("You did not allow the takeback."))

    def _withdraw_takeback(self) -> None:
        """The other player played on (or the game ended): its takeback request is void."""
        q = self.question
        if q is not None and q.kind is QuestionKind.TAKEBACK:
            self.answer(None)
            self.say(Style.INFO, _("{name} played on: the takeback is withdrawn.").format(name=self.opp_name))

    def _taken_back(self, ev: MoveTakenBack) -> None:
        mine = ev.seat == self.seat
        before = self._slots_before.pop() if mine and self._slots_before else None
        self.view = ev.view
        if before is not None and {c for c in before if c is not None} == set(ev.view.hand):
            self.slots = before  # the card is back in the place it had
        self.last_move = None
        if mine:
            self.asking = False
        self.say(
            Style.ME if mine else Style.OPP, taken_back_words(ev.move, ev.card, self.names[ev.seat], mine)
        )

    async def _chat(self, cmd: Chat) -> None:
        if not cmd.text:
            self.say(Style.ERROR, _("Chat what? Type chat and your message."))
            return
        try:
            await asyncio.wait_for(self.session.chat(cmd.text), CHAT_TIMEOUT)
        except Exception as e:
            self.say(Style.ERROR, _("Chat not sent: {why}").format(why=e or type(e).__name__))
        else:
            self.say(Style.CHAT, _("You: {text}").format(text=cmd.text))

    async def _resign(self, cmd: Resign) -> None:
        v = self.view
        if self.finished or v is None or v.result is not None:
            self.say(Style.ERROR, _("There is no game to resign."))
            return
        # at any time (off turn, the other side makes it its next action)
        n = v.payoff_counts[self.seat]
        question = _("Resign game {game}? {name} scores {points}. [y/N]").format(
            game=v.game, name=self.opp_name, points=points(n)
        )
        short = _("Resign game {game}? [y/N]").format(game=v.game)
        yes = await self.questions.ask(QuestionKind.RESIGN, question, short)
        if yes is False:
            self.say(Style.INFO, _("Not resigning: carry on."))
        if not yes:
            return
        try:
            await asyncio.wait_for(self.session.resign(), PLAY_TIMEOUT)
        except IllegalMoveError as e:
            self.say(Style.ERROR, _("Could not resign: {why}.").format(why=refusal(e.why, None, self.voice)))
        except Exception as e:  # the game ended meanwhile, the connection closed...
            self.say(Style.ERROR, _("Could not resign: {why}.").format(why=e or type(e).__name__))

    async def _quit(self, cmd: Quit) -> None:
        if not self.finished:
            question = _("Quit the match? {name} will be told. [y/N]").format(name=self.opp_name)
            yes = await self.questions.ask(QuestionKind.QUIT, question, _("Quit the match? [y/N]"))
            if yes is False:
                self.say(Style.INFO, _("Not quitting: carry on."))
            if not yes:
                return
        await self.leave()

    async def leave(self) -> None:
        """A deliberate quit: the peer is told, the record saved."""
        self.left = True
        self.say(Style.INFO, _("Leaving the match..."))
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.session.close("quit"), CLOSE_TIMEOUT)
        self.port.leave()

    # -- events -------------------------------------------------------------------

    def news(self, ev: ChatReceived | ConnectionChanged | Notice) -> None:
        """An event that changes nothing on the board: shown at once."""
        if isinstance(ev, ChatReceived):
            if ev.seat != self.seat:  # our own lines are shown when sent
                self.say(Style.CHAT, f"{self.names[ev.seat]}: {clip_text(ev.text, MAX_CHAT)}")
        elif isinstance(ev, ConnectionChanged):
            self._connection(ev)
        else:
            self.say(Style.INFO, news_words(ev.news))
        self.port.changed()

    def show(self, ev: Event) -> None:
        """Show one event of the match, in order: the words, then the state."""
        if isinstance(ev, ChatReceived | ConnectionChanged | Notice):
            self.news(ev)
            return
        if isinstance(ev, GameStarted):
            self._started(ev)
        elif isinstance(ev, MovePlayed):
            mine = ev.seat == self.seat
            self._moved(mine, ev.played.turn_passed)
            self.view = ev.view
            self.last_move = ev
            self.say(Style.ME if mine else Style.OPP, move_words(ev.move, ev.card, self.names[ev.seat], mine))
            for style, text in effects(ev.played, self.voice):
                self.say(style, text)
        elif isinstance(ev, MoveTakenBack):
            self._taken_back(ev)
        elif isinstance(ev, TakebackAsked):
            self._takeback_asked(ev)
        elif isinstance(ev, TakebackRefused):
            self.asking = False
            if ev.lost:
                self.say(Style.INFO, _("Your takeback went unanswered with the connection: ask again."))
            else:
                self.say(Style.INFO, _("{name} did not allow the takeback.").format(name=self.opp_name))
        elif isinstance(ev, GameEnded):
            self._withdraw_takeback()
            self.asking = False
            self.view = ev.view
            self.scores = ev.scores
            self.say(Style.EVENT, game_over(ev.game, ev.result, self.voice))
            self.say(Style.INFO, scores_line(self.scores, self.voice))
            if ev.deck_proven:
                self.say(Style.EVENT, deck_proven(self.voice))
        elif isinstance(ev, SessionFailed):
            self._failed(news_words(ev.news), ev.record_path, ev.ending, ev.unsaved)
        elif isinstance(ev, MatchEnded):
            self._match_ended(ev)
        self.port.changed()

    def _moved(self, mine: bool, turn_passed: bool) -> None:
        """Before a move is shown: keep the hand's numbering for a takeback of ours; a move of
        the other player voids its takeback request, one of ours voids ours."""
        if mine:
            self._slots_before.append(self.slots)
            if self.asking:
                self.asking = False
                self.say(Style.INFO, _("You played on: your takeback is withdrawn."))
        else:
            self._withdraw_takeback()
        if turn_passed:
            self._slots_before.clear()

    def _started(self, ev: GameStarted) -> None:
        self._slots_before.clear()
        self.asking = False
        self.view = ev.view
        self.scores = ev.scores  # a resumed match starts with its scores
        self.target = ev.target
        self.last_move = None
        if ev.view.ply:  # a resumed match: this game was under way
            self.say(Style.EVENT, game_goes_on(ev.game, ev.view.ply, ev.view.turn, self.voice))
        else:
            self.say(Style.EVENT, game_begins(ev.game, ev.starter, ev.by_lot, self.voice))
        if ev.view.my_turn:
            self.say(Style.INFO, _("Your turn. Type a move, or help for how."))

    def _match_ended(self, ev: MatchEnded) -> None:
        self.scores = ev.scores
        self.finished = True
        self.say(Style.EVENT, match_over(ev.winner, ev.scores, self.voice))
        if ev.record_path:
            self.say(Style.INFO, _("The record is saved in {path}").format(path=ev.record_path))
        if self.leave_words:
            self.say(Style.INFO, self.leave_words)

    def broken(self, error: Exception) -> None:
        """The session failed to give its next event: no more will come."""
        self._failed(_("the connection failed: {why}").format(why=error))
        self.port.changed()

    def _connection(self, ev: ConnectionChanged) -> None:
        left = peer_left(ev.ending) if ev.state is LinkState.LOST else None
        if left is not None:  # the peer quit on purpose: SessionFailed says so, once
            self.connection = LinkState.CLOSED
            return
        self.connection = ev.state
        bad = ev.state in (LinkState.LOST, LinkState.RECONNECTING)
        self.say(Style.ERROR if bad else Style.INFO, connection_words(ev.state, ev.news))

    def _failed(
        self,
        why: str,
        record_path: str | None = None,
        ending: Ending | None = None,
        unsaved: StorageProblem | None = None,
    ) -> None:
        self.finished = True
        self.failed = True
        left = peer_left(ending)
        if left is not None:  # a deliberate goodbye, not a failure of the connection
            self.connection = LinkState.CLOSED
            self.say(Style.EVENT, left)
        else:
            self.connection = LinkState.LOST
            self.say(Style.ERROR, _("The match cannot go on: {why}").format(why=why))
        if unsaved is not None:
            self.say(
                Style.ERROR, _("The record could not be saved: {why}").format(why=storage_words(unsaved))
            )
        elif record_path:
            self.say(Style.INFO, _("The record is saved in {path}").format(path=record_path))
        if self.leave_words:
            self.say(Style.INFO, self.leave_words)


__all__ = ["Controller", "Port"]
