"""One controller for both interfaces: the match as the player sees it, and what
each intent does.

:class:`Controller` holds the state an interface shows (the view of the last
event shown, the hand as numbered, scores, the connection, the question asked,
the hint offered) and handles every intent a typed line means
(:mod:`.commands`): a move, hint, undo, resign, chat, quit, help, Enter, and at a
match's end the offer to play another one (:class:`~.commands.Again`).  The full
screen (:mod:`.app`) and the line prompt (:mod:`.lineplay`) only read lines, hand
the intents here and render what the controller says through their
:class:`Port`.  Each intent is one command type and one entry in
:attr:`Controller.handlers`.  The other player's takeback request is a question
the next line answers, as ours are.  Both interfaces hand ``Again`` over when they
show the match's end; the state shown starts afresh when the next match's first
game is shown.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..contracts.errors import SessionClosed
from ..contracts.i18n import _
from ..contracts.news import StorageProblem
from ..contracts.plaintext import MAX_CHAT, clean_name
from ..contracts.session import (
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
    RematchAnswered,
    Session,
    SessionFailed,
    TakebackAsked,
    TakebackRefused,
    WatchersChanged,
)
from ..engine import IllegalMoveError, Move, PlayerView
from .again import PlayAgain
from .board import Slots, hand_slots
from .commands import Again, Chat, Command, Enter, Help, Hint, PlayText, Quit, Resign, Undo, default_hint
from .networds import news_words, storage_words
from .notation import NotationError, move_notation, parse_move
from .question import Question, QuestionKind, Questions
from .seat import Port
from .takebacks import PLAY_TIMEOUT, Takebacks
from .text import clip_text, points

if TYPE_CHECKING:
    from ..bots.review import HintReason

from .words import (
    Style,
    Voice,
    connection_words,
    deck_proven,
    effects,
    game_begins,
    game_goes_on,
    game_over,
    hint_reason_words,
    hint_words,
    match_over,
    move_words,
    peer_left,
    refusal,
    scores_line,
    watchers_words,
)

CHAT_TIMEOUT = 5.0
HINT_TIMEOUT = 15.0
CLOSE_TIMEOUT = 5.0


class Controller:
    """The seat of ``session`` as the player sees it; ``hint``: the move suggested
    for a view (default: the strongest computer level); ``why``: the reason said after
    a hint (``commands.default_why``: from the same evaluation as ``review``; None:
    none)."""

    def __init__(
        self,
        session: Session,
        port: Port,
        *,
        hint: Callable[[PlayerView], Move] | None = None,
        why: Callable[[PlayerView, Move], HintReason] | None = None,
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
        self.why_fn = why
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
        self.match_number = 1  # the match shown, counted on this connection
        self.watchers = 0  # how many watch the match (host --watchers)
        self.most_watchers = 0  # ... and the most that watched at once
        self.finished = False  # the match is over (or failed)
        self.failed = False  # the match could not go on (peer left, connection lost, desync)
        self.left = False  # the player left (quit)
        self.over = False  # no other match follows (asked and settled, or failed)
        self.again = PlayAgain(self)  # "another match?", both ways
        self.hinted: tuple[PlayerView, Move] | None = None  # the hint offered, and for which view
        self.questions = Questions(port.changed)  # the question the next line answers
        self.takebacks = Takebacks(self)  # undo, both ways
        self.handlers: dict[type[Any], Callable[[Any], Awaitable[None]]] = {
            Enter: self._enter,
            Help: self._help,
            Quit: self._quit,
            Resign: self._resign,
            Chat: self._chat,
            Hint: self._hint,
            Undo: self.takebacks.undo,
            PlayText: self._play_text,
            Again: self.again.ask,
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

    def board(self) -> PlayerView | None:
        """The board a move or an undo acts on (None: there is none, and the player is told)."""
        if self.finished:
            self.say(Style.ERROR, _("The match is over: type quit to leave."))
            return None
        if self.view is None:
            self.say(Style.ERROR, _("The game has not started yet."))
        return self.view

    async def _play_text(self, cmd: PlayText) -> None:
        text, v = cmd.text, self.board()
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
        if self.why_fn is not None:
            try:
                reason = await asyncio.wait_for(asyncio.to_thread(self.why_fn, v, move), HINT_TIMEOUT)
            except Exception:
                return  # (the hint stands without its reason)
            if self.view is v and self.hinted == (v, move):
                self.say(Style.INFO, hint_reason_words(reason, self.opp_name))

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

    def news(self, ev: ChatReceived | ConnectionChanged | Notice | RematchAnswered | WatchersChanged) -> None:
        """An event that changes nothing on the board: shown at once."""
        if isinstance(ev, ChatReceived):
            if ev.seat != self.seat:  # our own lines are shown when sent
                self.say(Style.CHAT, f"{self.names[ev.seat]}: {clip_text(ev.text, MAX_CHAT)}")
        elif isinstance(ev, ConnectionChanged):
            self._connection(ev)
        elif isinstance(ev, RematchAnswered):
            self.again.peer_answered(ev.yes)
        elif isinstance(ev, WatchersChanged):
            # said when more watch than ever before in this match: watchers that come and
            # go again and again (a stranger's loop) cannot fill the messages
            if ev.count > self.most_watchers:
                self.most_watchers = ev.count
                self.say(Style.INFO, watchers_words(ev.count))
            self.watchers = ev.count
        else:
            self.say(Style.INFO, news_words(ev.news))
        self.port.changed()

    def show(self, ev: Event) -> None:
        """Show one event of the match, in order: the words, then the state."""
        if isinstance(ev, ChatReceived | ConnectionChanged | Notice | RematchAnswered | WatchersChanged):
            self.news(ev)
            return
        if isinstance(ev, GameStarted):
            self._started(ev)
        elif isinstance(ev, MovePlayed):
            mine = ev.seat == self.seat
            self.takebacks.moved(mine, ev.played.turn_passed)
            self.view = ev.view
            self.last_move = ev
            self.say(Style.ME if mine else Style.OPP, move_words(ev.move, ev.card, self.names[ev.seat], mine))
            for style, text in effects(ev.played, self.voice):
                self.say(style, text)
        elif isinstance(ev, MoveTakenBack | TakebackAsked | TakebackRefused):
            self.takebacks.show(ev)
        elif isinstance(ev, GameEnded):
            self.takebacks.game_ended()
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

    def _new_match(self) -> None:
        """The next match's first game is shown: the state of the last one goes."""
        self.finished = False
        self.scores = (0, 0)
        self.slots = ()
        self.hinted = None
        self.over = False

    def _started(self, ev: GameStarted) -> None:
        if self.finished and not self.failed:
            self._new_match()
        self.takebacks.new_game()
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

    def broken(self, error: Exception) -> None:
        """The session failed to give its next event: no more will come."""
        self._failed(_("the connection failed: {why}").format(why=error))
        self.port.changed()

    def _connection(self, ev: ConnectionChanged) -> None:
        if ev.state in (LinkState.LOST, LinkState.CLOSED) or (
            ev.state is LinkState.RECONNECTING and self.seat == 1
        ):
            # the connection is gone: no count is kept.  The joiner's count was the host's, told
            # on each connection: a host that comes back (restarted, its watchers gone) tells it
            # again if anyone watches, and a 0 is never sent to a joiner that knows none
            self.watchers = 0
        if ev.state is LinkState.LOST:  # SessionFailed follows: it says why, once
            self.connection = LinkState.CLOSED if peer_left(ev.ending) is not None else LinkState.LOST
            return
        self.connection = ev.state
        if ev.state is LinkState.CLOSED and self.finished:
            return  # (the peer left after the match's end: the toolbar says so, and no more)
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
