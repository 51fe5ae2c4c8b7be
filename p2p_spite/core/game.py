"""One seat's copy of the match: actions, their sequence numbers and history hash.

No I/O here: the shell (:mod:`p2p_spite.net.session`) writes each action down
before it is sent or shown.  An *action* is a move or a
resignation; the actions of a match are numbered 0, 1, 2, ... across all its
games, and ``history[n]`` is the hash chain over the first ``n`` actions, so
two peers can tell at a glance whether their histories agree and where.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, NoReturn, Protocol, TypeVar

from ..contracts.session import Event, GameEnded, GameStarted, MatchEnded, MovePlayed, MoveTakenBack
from ..engine import GameState, IllegalMoveError, Match, Move, Played, PlayerView, takeback, view
from ..engine.refusals import Illegal, MatchIsOver, PlaysForOther

RESIGN = "resign"


@dataclass(frozen=True, slots=True)
class Committed:
    action: Action
    played: Played | None  # what a move did (None: a resignation)


class DesyncError(Exception):
    """The peer's state digest differs from ours after the same action."""


@dataclass(frozen=True, slots=True)
class Action:
    """A move (``move`` set) or a resignation of ``seat`` in ``game``."""

    game: int
    seat: int
    move: Move | None = None

    def key(self) -> bytes:
        if self.move is None:
            return b"R" + self.game.to_bytes(4, "big") + bytes((self.seat,))
        m = self.move
        arg = b"-" if m.arg is None else m.arg.to_bytes(2, "big")
        return (
            b"M"
            + self.game.to_bytes(4, "big")
            + f"{m.seat}|{m.source}|".encode()
            + arg
            + f"|{m.target}|{m.slot}".encode()
        )


def history_root(seed: bytes) -> bytes:
    return hashlib.sha256(b"p2p-spite/history/v1" + seed).digest()


def chain(prev: bytes, action: Action) -> bytes:
    return hashlib.sha256(prev + action.key()).digest()


KEY_BYTES = 32
T = TypeVar("T")


class Window(Generic[T]):
    """A list indexed by absolute number (0, 1, 2, ... since the match began) that keeps
    only its items from ``base`` on: ``len()`` is the absolute end; a negative index
    counts from the end; an index before ``base`` raises IndexError."""

    __slots__ = ("base", "_items")

    def __init__(self, items: Sequence[T] = (), base: int = 0) -> None:
        self.base = base
        self._items = list(items)

    def __len__(self) -> int:
        return self.base + len(self._items)

    def __getitem__(self, n: int) -> T:
        items = self._items
        k = n - self.base if n >= 0 else n + len(items)  # an index into the items kept
        if not 0 <= k < len(items):
            raise IndexError(f"item {n} is not kept (kept: {self.base} to {len(self) - 1})")
        return items[k]

    def __iter__(self) -> NoReturn:  # not iterable: say which part (kept()) is meant
        raise TypeError("a Window is not iterable; use kept()")

    def kept(self) -> list[T]:
        """The items kept, from ``base`` on."""
        return list(self._items)

    def append(self, item: T) -> None:
        self._items.append(item)

    def pop(self) -> T:
        """Take the last item off (it must be kept)."""
        if not self._items:
            raise IndexError("no item kept to take off")
        return self._items.pop()

    def drop_before(self, n: int) -> None:
        """Forget the items numbered below ``n``."""
        if n > self.base:
            del self._items[: n - self.base]
            self.base = n


def action_tag(key: bytes, match_id: bytes, n: int, history_after: bytes) -> bytes:
    """The author's tag on action ``n``: a MAC, under a key that never leaves the author's
    machine, over the match and the whole history up to and including the action."""
    return hmac.new(
        key, b"p2p-spite/action/v1|" + match_id + n.to_bytes(8, "big") + history_after, "sha256"
    ).digest()


class DeckHooks(Protocol):
    """What the core asks of a private-deck match's deck (``GameCore.private``: the
    seat's :class:`~p2p_spite.core.private.PrivateDeck`, which the code that drives it
    gets with ``PrivateDeck.of(core)``): each game is dealt from it, and every action
    made goes through it (:meth:`GameCore.commit`, :meth:`~p2p_spite.core.machine.SeatMachine.settle`)."""

    @property
    def installed(self) -> bool:
        """The match's current game is dealt from the deck (its GameStarted is out)."""
        ...

    def before_commit(self, action: Action) -> None:
        """``action`` is about to be made: RemoteProtocolError unless it may be."""
        ...

    def digest_after(self, action: Action) -> bytes:
        """The state digest after ``action``, nothing changed."""
        ...

    def digest(self, st: GameState) -> bytes:
        """The state digest of ``st`` (what both seats know of it)."""
        ...

    def committed(self, action: Action) -> None:
        """``action`` is made (the engine applied it)."""
        ...

    def after_action(self) -> None:
        """The action just made is sent (ours) or about to be acknowledged (the peer's):
        what the deck owes now goes out after it."""
        ...

    def next_game(self) -> list[Event]:
        """The match dealt its next game: the events of its start, once they are known."""
        ...

    def takeback_refusal(self, played: Played) -> Illegal | None:
        """Why the deck cannot take back ``played``, the last move (the rules allow it), now."""
        ...

    def taken_back(self, played: Played, at: int) -> None:
        """``played`` was taken back (the engine did it; ``at`` actions were made before)."""
        ...

    def resign_requested(self, game: int) -> bool:
        """The peer asks us (on turn) to make its resignation of ``game``: True if it can be
        made now; else our announced move comes first, and the resignation is due after it."""
        ...


class GameCore:
    """The match as this seat knows it, plus the events a driver should see.

    A long match's memory stays flat: the per-action lists (``actions``,
    ``history``, ``digests``, ``tags``, ``authors``) are :class:`Window` s that keep
    only the *window*, the actions since the start of the previous game
    (``window_start``; the match keeps only the current game's moves and the
    results of the others).  A peer that is further behind than that cannot be
    caught up (docs/protocol.md, *Sync*: ``behind``).
    """

    def __init__(
        self,
        match: Match,
        seat: int,
        match_id: bytes,
        max_games: int | None = None,
    ) -> None:
        self.match = match
        self.seat = seat
        self.match_id = match_id
        self.max_games = max_games
        self.key = secrets.token_bytes(KEY_BYTES)  # this seat's action key (never sent)
        self.tags: Window[bytes | None] = Window()  # each action's author's tag (None: not known)
        self.authors: Window[int] = Window()  # the seat on turn when each action was made: its author
        self.requests: set[int] = set()  # games this seat asked to resign while off turn
        self.actions: Window[Action] = Window()
        self.history: Window[bytes] = Window([history_root(match.seed)])  # history[n]: after n actions
        self.digests: Window[bytes] = Window()  # the game state's digest right after each action
        self._position = 0  # len(self.actions) and ...
        self._head = self.history[-1]  # ... self.history[-1], read for every message: kept at hand
        self._game_start = 0  # the number of the current game's first action
        self.finished = False  # the match is over (target reached or max_games played)
        match.keep_current_only()
        self.private: DeckHooks | None = None  # a private-deck match's deck (core/private.py)
        # the history hash our own action just taken back gave (until the next action), and
        # whether the peer acknowledged that undo: then it cannot catch us up with it again
        self.withdrawn: bytes | None = None
        self.undo_held = False
        self._check_finished()

    # -- queries ---------------------------------------------------------------

    @property
    def position(self) -> int:
        return self._position

    @property
    def head(self) -> bytes:
        return self._head

    def game_at(self, n: int) -> tuple[int, int]:
        """The game under way after the first ``n`` actions (at most ``position``), and how
        many of its moves were made by then: where a resumed match goes on, said the same
        on both sides from the action they agreed on.  Before the window: the game now."""
        m, acts = self.match, self.actions
        if n >= self._game_start:  # (the game dealt after a game's last action: 0 moves in)
            return m.game_number, sum(1 for k in range(self._game_start, n) if acts[k].move is not None)
        if n <= self.window_start:
            return m.game_number, m.game.ply
        game = acts[n - 1].game  # (the game before this one)
        kept = (acts[k] for k in range(self.window_start, n))
        return game, sum(1 for a in kept if a.game == game and a.move is not None)

    @property
    def window_start(self) -> int:
        """The first action still kept: the first of the previous game (0 in game 1)."""
        return self.actions.base

    def view(self) -> PlayerView | None:
        """This seat's view of the game in play; None while a private game's deal is being
        made: the engine then holds a stand-in dealt from the seed, no one's cards, which
        must never be shown (its GameStarted brings the real table)."""
        if self.private is not None and not self.private.installed:
            return None
        return view(self.match.game, self.seat)

    def start_events(self) -> list[Event]:
        """What a driver needs to see first: the current game (or the end)."""
        if self.private is not None and not self.private.installed:
            return [self.end_event(None)] if self.finished else []  # GameStarted once the deal is shown
        evs: list[Event] = [self._started()]
        if self.finished:
            evs.append(self.end_event(None))
        return evs

    def _started(self) -> GameStarted:
        m = self.match
        g = m.game
        scores = (m.scores[0], m.scores[1])
        return GameStarted(g.game, g.starter, view(g, self.seat), scores, m.target, by_lot=g.by_lot)

    def end_event(self, record_path: str | None) -> MatchEnded:
        s = self.match.scores
        return MatchEnded(self.match.winner, (s[0], s[1]), record_path)

    # -- actions ---------------------------------------------------------------

    def check_move(self, move: Move, seat: int) -> Move:
        """Raise IllegalMoveError unless ``move`` is legal for ``seat`` now; nothing changes."""
        if self.finished:
            raise IllegalMoveError(move, MatchIsOver())
        if move.seat != seat:
            raise IllegalMoveError(move, PlaysForOther(seat, move.seat))
        reason = self.match.game.check(move)
        if reason is not None:
            raise IllegalMoveError(move, reason)
        return move

    def digest_after(self, action: Action) -> bytes:
        """The state digest after ``action`` (checked legal), without changing anything."""
        g = self.match.game.copy()
        if action.move is None:
            g.resign(action.seat)
        else:
            g.apply(action.move)
        return g.digest()

    def check_resign(self, seat: int, author: int | None = None) -> Action:
        """The resignation of ``seat`` in the current game, made by ``author`` (the seat on
        turn: the resigner itself, or the other seat answering its request; see
        :func:`~p2p_spite.engine.state.GameState.check_resign`)."""
        if self.finished:
            raise IllegalMoveError([], MatchIsOver())
        g = self.match.game
        reason = g.check_resign(seat, seat if author is None else author)
        if reason is not None:
            raise IllegalMoveError([], reason)
        return Action(g.game, seat)

    def resign_request(self, game: int) -> Action | None:
        """The peer, off turn, asks us to make its resignation of ``game`` (not a later game
        than the one in play: the caller checks): the action to make now, or None -- the
        request crossed the game's end, the turn passed to the peer (it resigns itself), or
        a private deck's move of ours is under way (the deck makes it due after it)."""
        g = self.match.game
        if self.finished or game < g.game or g.result is not None or g.turn != self.seat:
            return None
        if self.private is not None and not self.private.resign_requested(game):
            return None
        return self.check_resign(1 - self.seat, self.seat)

    def own_tag(self, n: int) -> bytes:
        """Our tag on action ``n`` (one of ours, already applied)."""
        return action_tag(self.key, self.match_id, n, self.history[n + 1])

    def tag_is_ours(self, action: Action, tag: bytes) -> bool:
        """Is ``tag`` our own tag on ``action`` as the next action (it came back from the peer)?"""
        want = action_tag(self.key, self.match_id, self.position, chain(self.head, action))
        return hmac.compare_digest(tag, want)

    @classmethod
    def replay(
        cls,
        match: Match,
        seat: int,
        match_id: bytes,
        max_games: int | None,
        actions: Sequence[Action],
        tags: Mapping[int, bytes] | None = None,
        key: bytes | None = None,
    ) -> GameCore:
        """The core after ``actions`` from a fresh ``match`` (IllegalMoveError if one is refused);
        ``tags``: the peer's tags on its actions, by number, as far as they are known;
        ``key``: this seat's action key (from its journal)."""
        core = cls(match, seat, match_id, max_games)
        if key is not None:
            core.key = key
        tags = tags or {}
        for n, a in enumerate(actions):
            if a.move is None:
                if core.finished or core.match.game.result is not None:
                    raise IllegalMoveError([], "a resignation after the game ended")
            else:
                core.check_move(a.move, a.seat)
            core.apply(a, tag=tags.get(n))
        return core

    def apply(self, action: Action, expect: bytes | None = None, tag: bytes | None = None) -> list[Event]:
        """Replay a checked action of a saved match: :meth:`commit`, its events and the next
        game dealt, with nothing written, sent or shown (a live action's effects:
        :meth:`~p2p_spite.core.machine.SeatMachine.settle`)."""
        done = self.commit(action, expect, tag)
        return self.events(done) + self.deal_next()

    def commit(self, action: Action, expect: bytes | None = None, tag: bytes | None = None) -> Committed:
        """Apply a checked action to the state and the history.

        ``expect``: the state digest the peer announced for after the action; if
        ours differs, the action is undone (state exactly as before) and
        DesyncError is raised.  The seat on turn is the action's author; ``tag``
        is its tag when the peer is (ours is computed).  A game that ends stays
        on the board until :meth:`deal_next` (the record's checkpoint of it, if
        one is due, comes in between); :meth:`events` tells what happened.
        """
        match = self.match
        n = self._position
        author = match.game.turn
        private = self.private
        if private is not None:  # the action announced, its cards shown; the digest checked first
            private.before_commit(action)
            if expect is not None and private.digest_after(action) != expect:
                raise DesyncError(f"the game states disagree after action {n} (desync)")
        played = None if action.move is None else match.play(action.move)
        if played is None:
            match.resign(action.seat)
        g = match.game
        digest = g.digest() if private is None else private.digest(g)
        if private is not None:
            private.committed(action)
        if expect is not None and digest != expect:
            match.undo()
            raise DesyncError(f"the game states disagree after action {n} (desync)")
        self.digests.append(digest)
        self.actions.append(action)
        self._head = chain(self._head, action)
        self.history.append(self._head)
        self._position = n + 1
        self.authors.append(author)
        self.tags.append(self.own_tag(n) if author == self.seat else tag)
        self.withdrawn, self.undo_held = None, False
        self._check_finished()
        return Committed(action, played)

    def takeback_refusal(self, seat: int) -> Illegal | None:
        """Why ``seat`` cannot take back the last action now (None: it can): only the seat on
        turn, its last move of the turn, one that showed it no card (the engine's rule)."""
        if self.finished:
            return MatchIsOver()
        why = self.match.takeback_refusal(seat)
        last = self.match.last_played()
        if why is None and self.private is not None and last is not None:
            why = self.private.takeback_refusal(last)  # (a private deck: nothing under way)
        return why

    def state_digest(self) -> bytes:
        """The state digest of the game now (a private deck's: what both seats know)."""
        g = self.match.game
        return g.digest() if self.private is None else self.private.digest(g)

    def digest_after_takeback(self, seat: int) -> bytes:
        """The state digest once ``seat``'s last move is taken back (checked possible), without
        changing anything: the digest of the state before that move."""
        last = self.match.last_played()
        assert last is not None
        g = self.match.game.copy()
        takeback.take_back(g, last)
        return g.digest() if self.private is None else self.private.digest(g)

    def take_back(self, seat: int) -> Played:
        """``seat`` takes back the last action, its move (IllegalMoveError, nothing changed, if it
        cannot: :meth:`takeback_refusal`): the action leaves the history as if it had never
        been made (the position goes back by one).  Returns what the move had done."""
        why = self.takeback_refusal(seat)
        if why is not None:
            raise IllegalMoveError([], why)
        played = self.match.take_back(seat)
        if self.private is not None:
            self.private.taken_back(played, self._position)  # its deck too
        self.withdrawn, self.undo_held = (self._head if seat == self.seat else None), False
        for w in (self.actions, self.history, self.digests, self.tags, self.authors):
            w.pop()
        self._position -= 1
        self._head = self.history[-1]
        return played

    def taken_back(self, seat: int, played: Played) -> list[Event]:
        """What the driver sees of a move of ``seat`` just taken back."""
        return [MoveTakenBack(seat, played, view(self.match.game, self.seat))]

    def request_resign(self) -> int:
        """Ask to resign the current game while the other seat is on turn (its side makes
        the resignation its next action; the shell writes the request down before it is
        sent)."""
        g = self.match.game
        if self.finished or g.result is not None:
            raise IllegalMoveError([], "the game is over")
        self.requests.add(g.game)
        return g.game

    def due_resignation(self) -> Action | None:
        """Our own resignation, when we are on turn in a game we asked to resign."""
        g = self.match.game
        if not self.finished and g.result is None and g.turn == self.seat and g.game in self.requests:
            return Action(g.game, self.seat)
        return None

    def events(self, done: Committed) -> list[Event]:
        """What the driver sees of the action just committed (the move, the game's end);
        changes nothing."""
        match = self.match
        action, played = done.action, done.played
        g = match.game
        evs: list[Event] = []
        if played is not None:
            evs.append(MovePlayed(action.seat, played, view(g, self.seat)))
        if g.result is not None:
            s = match.scores
            # a private game that got this far had every pass and every card shown proven on receipt
            proven = self.private is not None
            evs.append(GameEnded(g.game, g.result, (s[0], s[1]), view(g, self.seat), proven))
        return evs

    def deal_next(self) -> list[Event]:
        """Deal the next game if the current one has ended and the match goes on."""
        if self.match.game.result is None or self.finished:
            return []
        self.match.next_game()
        self._slide()
        if self.private is not None:
            return self.private.next_game()  # GameStarted once its deal is shown
        return [self._started()]

    def _slide(self) -> None:
        """A new game was dealt: forget the actions before the one that just ended."""
        start, self._game_start = self._game_start, self.position
        for w in (self.actions, self.digests, self.tags, self.authors, self.history):
            w.drop_before(start)

    def _check_finished(self) -> None:
        m = self.match
        if m.game.result is None:
            return
        if m.over or (self.max_games is not None and m.game_number >= self.max_games):
            self.finished = True
