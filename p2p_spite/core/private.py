"""The private deck over the network: one seat's driver of :mod:`p2p_spite.fairdeck`.

No I/O here (like ``protocol.py``): a :class:`PrivateDeck` hangs on the seat's
:class:`~p2p_spite.core.game.GameCore` (``core.private``, its hooks; the shell gets
the whole deck with :meth:`PrivateDeck.of`) for the whole match, runs one
:class:`~p2p_spite.fairdeck.FairDeck` per game, sends what it owes through a
:class:`Port` (the connection's endpoint) and queues what it must not lose as
:class:`~p2p_spite.core.tape.TapeEntry` lines; the shell takes them
(:meth:`PrivateDeck.take_unwritten`) and writes them to the journal before any byte
leaves (the seat machine's ``WriteTape`` effects before its ``Flush``,
core/deckside.py).  docs/fairness.md says
what is built and why.

The driver is made of parts, each with its own job: the tape
(:mod:`~p2p_spite.core.tape`), the numbered messages both ways
(:mod:`~p2p_spite.core.deckmail`), the action under way (:mod:`~p2p_spite.core.intents`)
and the end of each game (:mod:`~p2p_spite.core.outcomes`); the driver routes the
peer's messages, runs the deck from one step to the next, deals each game and answers
:class:`~p2p_spite.core.game.GameCore`'s hooks.

Every game:

1. each side draws its game secret, puts it on the tape (the shell fsyncs it
   before the ``KEY`` that follows goes out); the two passes of the deal and the deal's shares follow.
   When the deal is shown the seat's engine runs on it (a
   :class:`~p2p_spite.fairdeck.table.SeatGame`: stand-ins for the cards this
   seat may not see), and the game's ``GameStarted`` goes out;
2. the seat on turn *announces* its next action (an intent: the move and, for a
   hand card, its slot) before making it; both decks take the move's events, the
   cards it shows are shown, a completed stack is reshuffled jointly, and the
   move is tried on a copy of the engine to learn what it draws (and whether it
   ends the game: then both reveal their secrets and check the whole game).
   Only when its deck is settled does the mover make the action, as in a seeded
   match (sequence number, digest, tag); the receiver takes it only if it is the
   action announced;
3. the state digest of an action covers what both seats know (the hands count
   only by their sizes; every hidden card is the same stand-in on both sides);
4. the game's :class:`~p2p_spite.fairdeck.GameDeck` goes into the record (a
   version-2 record), or a cheat's evidence.

On the wire every private-deck message is ``deck{g, i, b}`` (``b``: fairdeck's
``to_wire`` bytes) or ``deck{g, i, m, s}`` (an intent), numbered ``i`` = 0, 1,
2, ... per sender and game.  After a reconnection each side sends again what
it sent (in the order it sent it, between the actions); the receiver skips a
number it has, if the bytes are the same.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from ..contracts.session import Event
from ..engine import GameState, IllegalMoveError, Played
from ..engine.refusals import Illegal
from ..fairdeck import (
    CheatError,
    FairDeck,
    GameDeck,
    Message,
    OrderError,
    ProofError,
    WireError,
    from_wire,
    private_game,
    to_wire,
)
from ..fairdeck.table import SeatGame
from .deckmail import DeckMail, Resend
from .deckundo import DeckUndo
from .game import Action, GameCore
from .intents import InPlay, Intents, Stage
from .messages import DeckBody, DeckBytes, DeckIntent
from .outcomes import GameOutcome, Outcomes
from .tape import Tape, TapeEntry, TapeKind
from .wire import Refusal, RemoteProtocolError


class Port(Protocol):
    """The driver's way out: the session's link of the moment."""

    def send_message(self, msg: DeckBody) -> None: ...

    def push_event(self, ev: Event) -> None: ...


def public_digest(st: GameState) -> bytes:
    """The digest of what both seats know of ``st``: every pile but the hands, which
    count only by their sizes (a hidden card is the same stand-in on both sides)."""
    h = hashlib.sha256(b"p2p-spite/private-state/v1")
    h.update(st.game.to_bytes(4, "big") + bytes((st.turn, st.starter)))
    h.update(st.stream.index.to_bytes(8, "big") + st.ply.to_bytes(8, "big"))
    h.update(repr(st.result.key() if st.result else None).encode())
    h.update(len(st.hands[0]).to_bytes(2, "big") + len(st.hands[1]).to_bytes(2, "big"))
    for pile in (*st.payoff, *st.sides[0], *st.sides[1], *st.center, st.stock):
        h.update(b"\xff\xff" + b"".join(c.to_bytes(2, "big") for c in pile))
    return h.digest()


def _take_bytes(b: bytes, deck: FairDeck | None, ends: Outcomes) -> None:
    """The peer's fairdeck message ``b`` to ``deck``: what the deck refuses is refused to
    the peer (RemoteProtocolError), a cheat it catches goes into the record (``ends``)."""
    assert deck is not None
    game = deck.head.game
    try:
        m = from_wire(b)
        if m.head.game != game:
            raise OrderError(f"a private-deck message of game {m.head.game} in game {game}'s frame")
        deck.receive(m)
    except WireError as e:
        raise RemoteProtocolError(f"a malformed private-deck message: {e}", Refusal.DECK_FORMAT) from None
    except OrderError as e:
        raise RemoteProtocolError(f"a private-deck message out of order: {e}", Refusal.DECK_ORDER) from None
    except ProofError as e:
        raise RemoteProtocolError(f"a false share: {e}", Refusal.BAD_SHARE) from None
    except CheatError as e:
        ends.convict(e, game)


class PrivateDeck:
    """Seat ``core.seat``'s private deck, game after game (see the module's text): the
    game in play (``now``), its ``tape``, its ``mail``, the action under way
    (``intents``) and the games' outcomes (``ends``)."""

    def __init__(self, core: GameCore) -> None:
        self.core = core
        self.seat = core.seat
        self.other = 1 - core.seat
        self.port: Port | None = None
        self.now = InPlay(core)
        self.tape = Tape()
        self.mail = DeckMail(core)
        self.intents = Intents(core, self.now)
        self.undo = DeckUndo(self.now, self.intents)
        self.ends = Outcomes(core.seat, self.now, self._outcome_came)
        self.on_change: Callable[[], None] | None = None  # the shell: an announced action may be ready
        self.on_outcome: Callable[[], None] | None = None  # the shell: a game's outcome came late
        self._next_due = False  # the game ended: the next one's deck starts at the next event

    @staticmethod
    def of(core: GameCore) -> PrivateDeck | None:
        """The private deck of ``core``'s match (None: a seeded match)."""
        deck = core.private
        if deck is not None and not isinstance(deck, PrivateDeck):
            raise TypeError(f"the match's deck is a {type(deck).__name__}, not a PrivateDeck")
        return deck

    # -- state -----------------------------------------------------------------------

    @property
    def installed(self) -> bool:
        """The match's current game is dealt from this deck (its GameStarted is out)."""
        return self.now.installed

    @property
    def resumable(self) -> bool:
        """A game in play whose secrets are not revealed: ``--resume`` takes it up from the
        journal's tape (which must then be kept)."""
        deck = self.now.deck
        return deck is not None and not deck.over and not self.core.finished

    @property
    def left(self) -> bool:
        """A seat left the current game before its end (both secrets are revealed)."""
        deck = self.now.deck
        return deck is not None and deck.left

    @property
    def outcomes(self) -> list[GameOutcome]:
        """By game - 1: the record's decks (the same list for the whole match)."""
        return self.ends.outcomes

    @property
    def taken(self) -> int:
        """Deck messages taken from the peer (the shell's deadline watches it move)."""
        return self.mail.taken

    def own_pending(self) -> Action | None:
        """Our action announced and not made yet (a restarted seat makes it: it is binding)."""
        return self.intents.own_pending()

    def ready(self, action: Action) -> bool:
        """Is ``action`` announced, and every card it shows shown?"""
        return self.intents.ready(action)

    # -- the shell -------------------------------------------------------------------------

    def attach(self, port: Port) -> None:
        """A session takes over a connection (the first, or after a reconnection); from
        now on it takes every tape entry noted (:meth:`take_unwritten`)."""
        self.port = port
        self.tape.writing = True
        core = self.core
        if self.now.game == 0 and not core.finished:
            self._start(core.match.game_number)

    def resync(self, port: Resend, peer_position: int) -> None:
        """Send again what this seat sent, between the actions the peer lacks (from
        ``peer_position`` on; they were sent in that order).  The peer skips what it has."""
        self.mail.resync(port, peer_position)

    def take_unwritten(self) -> list[TapeEntry]:
        """The tape entries noted since the last call, in order, for the shell to write
        down before it sends anything (a ``pk`` fsynced: its KEY may be queued behind it)."""
        return self.tape.take_unwritten()

    # -- this seat's actions ---------------------------------------------------------------

    def announce(self, action: Action) -> None:
        """Announce our next action (checked legal by the caller); the shell waits for
        :meth:`ready` before it makes it.  OrderError if the deck cannot take it now."""
        p = self.intents.announce(action)
        if p is None:
            return
        game, i = self.now.game, self.mail.next_index
        msg = DeckIntent(game, i, p.move, p.slot)
        self.undo.undone = None
        self.tape.note(TapeEntry(TapeKind.OWN, game, self.core.position, i, msg))
        self.mail.next_index += 1
        self.intents.begin(p)
        self._send(msg)
        self._pump()

    def work_ahead(self) -> int:
        """Idle (the other side thinks or computes): our proven shares of the next cards,
        made now instead of when they are owed
        (``FairDeck.precompute``: nothing is sent, and what is sent later is the same).
        Returns how many it made (0: nothing to do now)."""
        deck = self.now.deck
        if deck is None or self.intents.pending is not None or not deck.settled:
            return 0
        return deck.precompute()

    # -- the peer's messages -------------------------------------------------------------

    def on_deck(self, msg: DeckBody) -> None:
        """A ``deck`` message from the peer, its shape checked (RemoteProtocolError: refuse it)."""
        g, i = msg.game, msg.index
        b = msg.data if isinstance(msg, DeckBytes) else None
        now, ends = self.now, self.ends
        if self._next_due and g == now.game + 1:
            self._start_next()
        seen = self.mail.check(msg, now.game)
        if seen is None:
            return  # sent again after a reconnection: we have it
        prev = ends.prev
        if prev is not None and g == prev.head.game and b is not None:
            _take_bytes(b, prev, ends)  # the peer's secret of the game it resigned (or we did)
            if prev.result is not None:
                ends.set(g, prev.result)
                ends.prev = None
        elif g != now.game:
            raise RemoteProtocolError(
                f"a private-deck message for game {g} during game {now.game}", Refusal.DECK_ORDER
            )
        elif prev is not None:  # the peer reveals a finished game before it deals the next one
            ends.give_up(prev.head.game)
            raise RemoteProtocolError(
                f"no secret of game {prev.head.game} before game {g}", Refusal.DECK_ORDER
            )
        elif b is not None:
            _take_bytes(b, now.deck, ends)
            deck, table = now.deck, now.table
            over = table is not None and (table.state.result is not None or (deck is not None and deck.left))
            if deck is not None and deck.result is not None and over:  # (after a resignation, or a leave)
                ends.set(g, deck.result)
        else:
            assert isinstance(msg, DeckIntent)
            self.intents.take(msg)
            self.undo.undone = None
        self.mail.took(seen, msg)
        self.tape.note(TapeEntry(TapeKind.TAKEN, g, self.core.position, i, msg))
        self._pump()

    def _outcome_came(self) -> None:
        if self.on_outcome is not None:
            self.on_outcome()

    # -- from one step to the next ---------------------------------------------------------

    def _pump(self) -> None:
        """Send what the deck owes, and move on as far as the messages allow."""
        deck = self.now.deck
        assert deck is not None
        while True:
            self._send_all(deck.outgoing())
            if self.now.table is None and deck.settled:
                self._install()
                continue
            if self.intents.advance():
                continue
            if self.intents.settle() and self.on_change is not None:
                self.on_change()
            break
        table = self.now.table
        if table is not None and self.now.installed:
            table.refresh(table.state)

    def _send_all(self, messages: list[Message]) -> None:
        """The deck's messages, each numbered in the game in play."""
        for m in messages:
            self._send(DeckBytes(self.now.game, self.mail.next_index, to_wire(m)))
            self.mail.next_index += 1

    def _send(self, msg: DeckBody) -> None:
        self.mail.keep(self.now.game, msg)
        if self.port is not None:
            self.port.send_message(msg)

    # -- games -----------------------------------------------------------------------------

    def _start(self, game: int) -> None:
        """Deal ``game``: our secret goes to the tape before our KEY goes out."""
        secret = self.tape.secret(game, self.core.position)
        self._open(game, secret)
        self._pump()

    def _open(self, game: int, secret: bytes) -> None:
        now = self.now
        old = now.deck
        if old is not None and old.over and old.result is None:  # the peer's secret is still to come
            self._send_all(old.outgoing())  # (a restarted seat: our own secret, again, before the next deal)
            self.ends.prev = old
        else:
            self.ends.prev = None
        now.game = game
        now.deck = FairDeck(self.core.match_id, game, self.seat, secret)
        now.table = None
        self.intents.pending = None
        self.undo.reset()
        self.mail.open(game)
        self._next_due = False

    def _install(self) -> None:
        deck = self.now.deck
        assert deck is not None
        self.now.table = SeatGame(deck, self.core.match.seed)
        evs = self._deal_in()
        if self.port is not None:  # (a seat replaying its tape has none: its session starts with them)
            for ev in evs:
                self.port.push_event(ev)

    def _deal_in(self) -> list[Event]:
        """The match plays game ``now.game`` on this seat's table, once the match is at it:
        the game's GameStarted."""
        match, now = self.core.match, self.now
        table = now.table
        if table is None or match.game_number != now.game or now.dealt == now.game:
            return []
        state = table.state
        match.use_deal(lambda: state)
        now.dealt = now.game
        return self.core.start_events()

    def next_game(self) -> list[Event]:
        """The match dealt its next game (seeded, GameCore.events): the deck takes it over;
        its GameStarted comes once the deal is shown."""
        if self._next_due:
            self._start_next()
        return self._deal_in()

    def _start_next(self) -> None:
        self._start(self.now.game + 1)

    # -- hooks of GameCore.commit -----------------------------------------------------------

    def before_commit(self, action: Action) -> None:
        """``action`` is about to be made: it must be the one announced, its cards shown (or
        our own move taken back, that the peer catches us up with: DeckUndo.redo)."""
        if not self.ready(action) and self.undo.redo(action):
            self._pump()
        if not self.ready(action):
            raise RemoteProtocolError(
                f"action {self.core.position} is not the action announced (or comes before its cards "
                "are shown)",
                Refusal.DECK_ORDER,
            )
        table = self.now.table
        assert table is not None
        table.refresh(table.state)

    def digest(self, st: GameState) -> bytes:
        if self.now.table is not None:
            self.now.table.refresh(st)
        return public_digest(st)

    def digest_after(self, action: Action) -> bytes:
        table = self.now.table
        assert table is not None
        g = table.state.copy()
        if action.move is None:
            g.resign(action.seat)
        else:
            g.apply(action.move)
        return self.digest(g)

    def committed(self, action: Action) -> None:
        """``action`` is made (the engine applied it)."""
        p, self.intents.pending = self.intents.pending, None
        self.undo.committed(p)
        table = self.now.table
        assert table is not None
        table.refresh(table.state)
        if self.ends.moved():
            m = self.core.match
            limit = self.core.max_games
            self._next_due = not m.over and (limit is None or m.game_number < limit)

    def takeback_refusal(self, played: Played) -> Illegal | None:
        """Why the deck cannot take back ``played``, the last move, now (DeckUndo.refusal)."""
        return self.undo.refusal(played)

    def taken_back(self, played: Played, at: int) -> None:
        """``played`` was taken back (the engine did it; ``at`` actions were made before): the
        deck too.  The tape's line for it is written only with the record that no longer
        holds the move (RecordKeeper.withdraw starts the journal afresh with the tape)."""
        self.undo.take_back(played)
        self.mail.rewind(at - 1)
        self.tape.note(TapeEntry(TapeKind.UNDO, self.now.game, at), carried=True)
        table = self.now.table
        assert table is not None
        table.refresh(table.state)

    # -- the end of a game -----------------------------------------------------------------

    def resign_requested(self, game: int) -> bool:
        """The peer, off turn, asks us (on turn) to make its resignation of ``game``: True if
        we can now; else (our own announced move is under way) it is made once that move is."""
        return self.intents.resign_requested(game)

    def due_request(self) -> Action | None:
        """The peer's resignation asked for while our move was under way, once it can be made."""
        return self.intents.due_request()

    def leave(self) -> bool:
        """This seat leaves the match in the middle of a game (quit, SIGTERM): the game is
        over for it, so it reveals its secret, and the peer answers with its own; then both
        records hold the deck, and every move made is checked.  False: nothing to reveal
        (no deal shown yet, or the game is over already)."""
        deck = self.now.deck
        if deck is None or not deck.dealt or deck.over or self.now.table is None:
            return False
        deck.leave()
        self._pump()
        return True

    def after_action(self) -> None:
        """The shell has sent the action just made (ours) or is about to acknowledge it (the
        peer's): what the deck owes now goes out after it -- after a resignation, our
        secret, so that nobody reveals anything before the resignation is made."""
        deck = self.now.deck
        if deck is not None and deck.over and self.now.table is not None:
            self._pump()

    def owed_by_peer(self) -> bool:
        """Does the peer owe us a private-deck message now -- its key, its pass, a share,
        its secret, or the action it announced once its cards are shown?  (The shell puts
        a deadline on it that pings do not reset.)  A player thinking owes nothing."""
        deck, p = self.now.deck, self.intents.pending
        if self.core.finished and self.awaiting_reveal is None:
            return False
        if deck is None:
            return False
        if deck.keys[self.other] is None or deck.owes_us():
            return True
        if self.ends.prev is not None or (deck.over and deck.result is None):
            return True
        if deck.left and deck.peer_revealed and (p is None or p.seat != self.other):
            return True  # it left this game (or saw us leave it): its goodbye is due
        return p is not None and p.seat == self.other and p.stage == Stage.READY

    @property
    def awaiting_reveal(self) -> int | None:
        """The game whose end this seat has made and whose peer secret has not come yet
        (after a resignation the reveals follow the action), or None."""
        return self.ends.awaiting_reveal

    def give_up_reveal(self) -> None:
        """The peer did not reveal its secret in time: the record says so instead of the deck."""
        self.ends.give_up_reveal()


# -- a restarted seat -------------------------------------------------------------------------


def resume_core(
    core: GameCore,
    actions: Sequence[Action],
    tags: Mapping[int, bytes],
    decks: Sequence[GameDeck | None],
    tape: Sequence[TapeEntry],
) -> GameCore:
    """A private-deck match, rebuilt on ``core`` (fresh, its match at game 1): the games
    before the tape's first one are dealt from the record's ``decks`` (the end-of-game
    check established them) and their actions replayed; from there a fresh deck takes
    this seat's secrets from the tape and replays the tape between the actions, so it
    is in the state it was, and has made again exactly what it sent (everything a seat
    sends is a function of its secret and what it received).  IllegalMoveError or
    RemoteProtocolError if the saved match does not replay."""
    match = core.match
    keys = {e.game: e.secret for e in tape if e.kind is TapeKind.SECRET}
    first = min(keys) if keys else None
    n = 0

    def make(k: int) -> None:
        a = actions[k]
        if a.move is not None:
            core.check_move(a.move, a.seat)
        elif match.game.result is not None:
            raise IllegalMoveError([], "a resignation after the game ended")
        core.apply(a, tag=tags.get(k))

    while n < len(actions) and (first is None or actions[n].game < first):
        g = match.game_number
        if not match.moves[-1] and match.game.result is None:
            deck = decks[g - 1] if g <= len(decks) else None
            if deck is None:
                raise IllegalMoveError([], f"game {g}: neither its deck nor its private-deck tape is kept")
            match.use_deal(_record_dealer(match.seed, g, deck))
        make(n)
        n += 1
    drv = PrivateDeck(core)
    core.private = drv
    drv.ends.outcomes = list(decks[: match.game_number - 1])
    if core.finished:
        return core
    if first is None:  # nothing of the current game was sent: it starts afresh
        return core
    if first != match.game_number:
        raise IllegalMoveError([], f"the private-deck tape starts at game {first}, not {match.game_number}")
    drv.tape.secrets = dict(keys)
    drv._start(first)

    def make_at() -> bool:
        """The action made at ``core.position``: the one that stands there, or, if the action
        announced there differs, that one (binding: it was made, then taken back: the tape's
        ``pu`` line follows).  False: none."""
        k = core.position
        p = drv.intents.pending
        made = Action(drv.now.game, p.seat, p.move) if p is not None and p.stage == Stage.READY else None
        if k < len(actions) and (made is None or actions[k] == made):
            make(k)
        elif made is not None:
            core.apply(made)
        else:
            return False
        return True

    for e in tape:
        while core.position < e.at and make_at():
            pass
        if e.kind is TapeKind.TAKEN:
            assert e.msg is not None
            drv.on_deck(e.msg)
        elif e.kind is TapeKind.OWN:
            assert isinstance(e.msg, DeckIntent)
            drv.announce(Action(e.game, drv.seat, e.msg.move))
        elif e.kind is TapeKind.UNDO:
            if core.position != e.at or e.game != match.game_number:
                raise IllegalMoveError([], f"a takeback on the tape after action {e.at - 1} does not replay")
            core.take_back(match.game.turn)
    while core.position < len(actions):
        make(core.position)
    return core


def _record_dealer(seed: bytes, game: int, deck: GameDeck) -> Callable[[], GameState]:
    return lambda: private_game(seed, game, deck.deal, [list(r) for r in deck.reshuffles])


__all__ = ["Port", "PrivateDeck", "public_digest", "resume_core"]
