"""The private deck over the network: one seat's driver of :mod:`p2p_spite.fairdeck`.

No I/O here (like ``protocol.py``): a :class:`PrivateDeck` hangs on the seat's
:class:`~p2p_spite.core.game.GameCore` (``core.private``) for the whole match, runs
one :class:`~p2p_spite.fairdeck.FairDeck` per game, sends what it owes through a
:class:`Port` (the connection's endpoint) and queues what it must not lose as
:class:`TapeEntry` lines; the shell takes them (:meth:`PrivateDeck.take_unwritten`)
and writes them to the journal before any byte leaves (``NetSession.write_pending``,
called by ``Link.flush``).  docs/fairness.md says what is built and why.

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
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Any, Final, Protocol

from ..engine import CENTER, HAND, GameState, IllegalMoveError, Move
from ..fairdeck import (
    CheatError,
    FairDeck,
    GameDeck,
    OrderError,
    ProofError,
    WireError,
    from_wire,
    private_game,
    to_wire,
)
from ..fairdeck.table import HIDDEN, SeatGame
from ..session import Event
from .game import Action, GameCore
from .messages import DeckBody, DeckBytes, DeckIntent
from .wire import Refusal, RemoteProtocolError

SECRET_BYTES: Final = 32
REPEATS: Final = 64  # messages a peer may send twice on a connection, beyond what it had sent

# what a game's entry in the record holds: its deck, or the evidence of a cheat (None: not known yet)
GameOutcome = GameDeck | dict[str, Any] | None


class Port(Protocol):
    """The driver's way out: the session's link of the moment."""

    def send_message(self, msg: DeckBody) -> None: ...

    def push_event(self, ev: Event) -> None: ...


class Resend(Protocol):
    """A new connection's endpoint, before play goes on: what was sent goes again."""

    def send_message(self, msg: DeckBody) -> None: ...

    def send_action(self, n: int) -> None: ...


class TapeKind(StrEnum):
    """What a tape line holds (its value is the journal line's key)."""

    SECRET = "pk"  # this seat's game secret
    TAKEN = "pd"  # a deck message from the peer, taken
    OWN = "po"  # this seat's own intent


@dataclass(frozen=True, slots=True)
class TapeEntry:
    """One line of a seat's private-deck tape, in the journal: this seat's secret of
    ``game`` (``secret``), a deck message from the peer it took, or its own intent
    (``msg``, numbered ``index``); ``at`` is the number of actions made when it happened
    (a restarted seat replays the tape between them)."""

    kind: TapeKind
    game: int
    at: int
    index: int = 0
    msg: DeckBody | None = None
    secret: bytes = b""


@dataclass(slots=True)
class _Sent:
    game: int
    at: int  # the core's position when it was sent: it goes before action number ``at``
    msg: DeckBody


class Stage(IntEnum):
    """Where an announced action stands."""

    BEGUN = 0  # its cards are being shown
    TRIED = 1  # tried on a copy of the engine: its draws taken
    READY = 2  # settled: it may be made


@dataclass(slots=True)
class _Pending:
    """An action announced and not yet made."""

    seat: int
    move: Move
    slot: int | None  # the hand card's slot
    stage: Stage = Stage.BEGUN


def _refuse(text: str, code: Refusal) -> RemoteProtocolError:
    return RemoteProtocolError(text, code)


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


class PrivateDeck:
    """Seat ``core.seat``'s private deck, game after game (see the module's text)."""

    def __init__(self, core: GameCore) -> None:
        self.core = core
        self.seat = core.seat
        self.other = 1 - core.seat
        self.port: Port | None = None
        self._writing = False  # attached: every entry noted is queued for the shell to write
        self.game = 0  # the game whose deck is being played (0: none yet)
        self.deck: FairDeck | None = None
        self._prev: FairDeck | None = None  # the last game's deck, while the peer's secret is to come
        self._asked = 0  # a game whose resignation the peer asked for while our move was under way
        self.taken = 0  # deck messages taken from the peer (the shell's deadline watches it move)
        self.table: SeatGame | None = None  # once the deal is shown
        self.dealt = 0  # the last game whose deal the match plays on
        self.outcomes: list[GameOutcome] = []  # by game - 1: the record's decks
        self.pending: _Pending | None = None
        self.sent: list[_Sent] = []  # what this seat sent in this game and the one before
        self._next_index = 0
        self._received: dict[int, list[DeckBody]] = {}  # game -> the deck messages taken, in order
        self.on_change: Callable[[], None] | None = None  # the shell: an announced action may be ready
        self.on_outcome: Callable[[], None] | None = None  # the shell: a game's outcome came late
        self._next_due = False  # the game ended: the next one's deck starts at the next event
        self.entries: list[TapeEntry] = []  # the tape of this game and the one before
        self._secrets: dict[int, bytes] = {}  # a restarted seat: the secrets its tape holds
        # noted, not yet taken by the shell (before the first attach: only secrets, the
        # journal's carried() writes the rest of ``entries`` when it starts)
        self._unwritten: list[TapeEntry] = []
        self._repeats = REPEATS  # messages the peer may send again on this connection (after a cut)

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
        return self.dealt == self.core.match.game_number and self.table is not None

    @property
    def resumable(self) -> bool:
        """A game in play whose secrets are not revealed: ``--resume`` takes it up from the
        journal's tape (which must then be kept)."""
        return self.deck is not None and not self.deck.over and not self.core.finished

    @property
    def left(self) -> bool:
        """A seat left the current game before its end (both secrets are revealed)."""
        return self.deck is not None and self.deck.left

    def own_pending(self) -> Action | None:
        """Our action announced and not made yet (a restarted seat makes it: it is binding)."""
        p = self.pending
        if p is None or p.seat != self.seat:
            return None
        return Action(self.game, p.seat, p.move)

    def ready(self, action: Action) -> bool:
        """Is ``action`` announced, and every card it shows shown?"""
        p = self.pending
        if action.move is None:  # a resignation shows no card: it waits only for a quiet deck
            return p is None and self.installed and action.game == self.game
        return (
            p is not None
            and p.stage == Stage.READY
            and p.seat == action.seat
            and p.move == action.move
            and action.game == self.game
        )

    # -- the shell -------------------------------------------------------------------------

    def attach(self, port: Port) -> None:
        """A session takes over a connection (the first, or after a reconnection); from
        now on it takes every tape entry noted (:meth:`take_unwritten`)."""
        self.port = port
        self._writing = True
        core = self.core
        if self.game == 0 and not core.finished:
            self._start(core.match.game_number)

    def resync(self, port: Resend, peer_position: int) -> None:
        """Send again what this seat sent, between the actions the peer lacks (from
        ``peer_position`` on; they were sent in that order).  The peer skips what it has."""
        self._repeats = REPEATS + sum(len(v) for v in self._received.values())
        n = peer_position
        end = self.core.position
        for rec in self.sent:
            while n < min(rec.at, end):
                port.send_action(n)
                n += 1
            port.send_message(rec.msg)
        while n < end:
            port.send_action(n)
            n += 1

    # -- this seat's actions ---------------------------------------------------------------

    def announce(self, action: Action) -> None:
        """Announce our next action (checked legal by the caller); the shell waits for
        :meth:`ready` before it makes it.  OrderError if the deck cannot take it now."""
        if not self.installed or action.game != self.game:
            raise OrderError("the deal is not shown yet")
        if self.pending is not None:
            if self.pending.seat == action.seat and self.pending.move == action.move:
                return  # announced already (the shell asks again after a reconnection)
            raise OrderError("another action is under way")
        move = action.move
        if move is None:
            return  # a resignation is made, not announced: nothing is revealed before it is made
        deck, table = self.deck, self.table
        assert deck is not None and table is not None
        if not deck.settled:
            raise OrderError("cards are still being shown")
        slot = table.slot_of(move)
        msg = DeckIntent(self.game, self._next_index, move, slot)
        self._note(TapeEntry(TapeKind.OWN, self.game, self.core.position, self._next_index, msg))
        self._next_index += 1
        self._begin(_Pending(action.seat, move, slot))
        self._send(msg)
        self._pump()

    def work_ahead(self) -> int:
        """Idle (the other side thinks or computes): our proven shares of the next cards,
        made now instead of when they are owed
        (``FairDeck.precompute``: nothing is sent, and what is sent later is the same).
        Returns how many it made (0: nothing to do now)."""
        deck = self.deck
        if deck is None or self.pending is not None or not deck.settled:
            return 0
        return deck.precompute()

    # -- the peer's messages -------------------------------------------------------------

    def on_deck(self, msg: DeckBody) -> None:
        """A ``deck`` message from the peer, its shape checked (RemoteProtocolError: refuse it)."""
        g, i = msg.game, msg.index
        b = msg.data if isinstance(msg, DeckBytes) else None
        if self._next_due and g == self.game + 1:
            self._start_next()
        seen = self._received.get(g)
        if seen is None:
            raise _refuse(f"a private-deck message for game {g} during game {self.game}", Refusal.DECK_ORDER)
        if i < len(seen):
            if seen[i] != msg:
                raise _refuse(
                    f"private-deck message {i} of game {g} sent twice, different", Refusal.DECK_ORDER
                )
            self._repeats -= 1
            if self._repeats < 0:
                raise _refuse("private-deck messages sent again and again", Refusal.FLOOD)
            return  # sent again after a reconnection: we have it
        if i > len(seen):
            raise _refuse(
                f"private-deck message {i} of game {g} before message {len(seen)}", Refusal.DECK_ORDER
            )
        prev = self._prev
        if prev is not None and g == prev.head.game and b is not None:
            self._take_bytes(b, prev)  # the peer's secret of the game it resigned (or we did)
            if prev.result is not None:
                self._set_outcome(g, prev.result)
                self._prev = None
        elif g != self.game:
            raise _refuse(f"a private-deck message for game {g} during game {self.game}", Refusal.DECK_ORDER)
        elif prev is not None:  # the peer reveals a finished game before it deals the next one
            self._give_up(prev.head.game)
            raise _refuse(f"no secret of game {prev.head.game} before game {g}", Refusal.DECK_ORDER)
        elif b is not None:
            self._take_bytes(b, self.deck)
            deck, table = self.deck, self.table
            over = table is not None and (table.state.result is not None or (deck is not None and deck.left))
            if deck is not None and deck.result is not None and over:  # (after a resignation, or a leave)
                self._set_outcome(g, deck.result)
        else:
            assert isinstance(msg, DeckIntent)
            self._take_intent(msg)
        seen.append(msg)
        self.taken += 1
        self._note(TapeEntry(TapeKind.TAKEN, g, self.core.position, i, msg))
        self._pump()

    def _note(self, e: TapeEntry) -> None:
        self.entries.append(e)
        if self._writing or e.kind is TapeKind.SECRET:
            self._unwritten.append(e)

    def take_unwritten(self) -> list[TapeEntry]:
        """The tape entries noted since the last call, in order, for the shell to write
        down before it sends anything (a ``pk`` fsynced: its KEY may be queued behind it)."""
        out, self._unwritten = self._unwritten, []
        return out

    def _take_bytes(self, b: bytes, deck: FairDeck | None) -> None:
        assert deck is not None
        game = deck.head.game
        try:
            m = from_wire(b)
            if m.head.game != game:
                raise OrderError(f"a private-deck message of game {m.head.game} in game {game}'s frame")
            deck.receive(m)
        except WireError as e:
            raise _refuse(f"a malformed private-deck message: {e}", Refusal.DECK_FORMAT) from None
        except OrderError as e:
            raise _refuse(f"a private-deck message out of order: {e}", Refusal.DECK_ORDER) from None
        except ProofError as e:
            raise _refuse(f"a false share: {e}", Refusal.BAD_SHARE) from None
        except CheatError as e:
            self._convict(e, game)

    def _set_outcome(self, game: int, outcome: GameOutcome) -> None:
        while len(self.outcomes) < game:
            self.outcomes.append(None)
        table = self.table
        if isinstance(outcome, GameDeck) and game == self.game and table is not None:
            # a game left in the middle: only the reshuffles its moves made (one may have been
            # made for a move announced and never made)
            outcome = GameDeck(outcome.deal, outcome.reshuffles[: table.state.stream.used])  # type: ignore[attr-defined]
        self.outcomes[game - 1] = outcome
        if self.on_outcome is not None:
            self.on_outcome()

    def _convict(self, e: CheatError, game: int) -> None:
        self._set_outcome(game, e.evidence)
        if e.kind == "shuffle-proof":
            rnd = e.evidence.get("round")
            what = "the deal" if rnd == 0 else f"reshuffle {rnd}"
            raise _refuse(
                f"its shuffle of {what} has no valid proof (seat {e.seat}): no card was shown for it, "
                "and the evidence is in the record",
                Refusal.BAD_SHUFFLE,
            )
        raise _refuse(f"the private deck shows a cheat: {e}", Refusal.CHEAT)

    def _take_intent(self, msg: DeckIntent) -> None:
        """The peer, on turn, announces its next action."""
        if not self.installed:
            raise _refuse("an action announced before the deal is shown", Refusal.DECK_ORDER)
        deck, table = self.deck, self.table
        assert deck is not None and table is not None
        if deck.peer_revealed:  # (only a move announced before it may still be made)
            raise _refuse("an action announced after its game secret", Refusal.DECK_ORDER)
        st = table.state
        if st.result is not None:
            raise _refuse("an action announced after the game ended", Refusal.DECK_ORDER)
        if st.turn != self.other:
            raise _refuse("an action announced by the seat that is not on turn", Refusal.FORGED)
        if self.pending is not None or not deck.settled:
            raise _refuse("an action announced while another is under way", Refusal.DECK_ORDER)
        move, slot = msg.move, msg.slot
        if move.seat != self.other:
            raise _refuse("an action announced for the other seat", Refusal.FORGED)
        if move.source == HAND:
            if slot is None or slot not in deck.hands[self.other]:
                raise _refuse("deck: a hand move names a slot of the mover's hand", Refusal.DECK_ORDER)
        elif slot is not None:
            raise _refuse("deck: only a hand move names a slot", Refusal.MALFORMED)
        # Check the move before any card is shown for it (an illegal pay-off move must
        # not make us show the card under the top): a hand card is taken as named here,
        # and checked against its share before the move is made.
        trial = self._trial(move, slot, move.arg if slot is not None else None)
        reason = trial.check(move)
        if reason is not None:
            raise _refuse(f"an illegal move announced: {reason}", Refusal.ILLEGAL_MOVE)
        self._begin(_Pending(self.other, move, slot))

    # -- the engine's events, in the same order on both seats ------------------------------

    def _trial(self, move: Move, slot: int | None, card: int | None) -> GameState:
        """A copy of the engine with every shown card in place (and ``card`` for the stand-in of ``slot``)."""
        table = self.table
        assert table is not None
        trial = table.state.copy()
        table.refresh(trial)
        if slot is not None and card is not None:
            hand = trial.hands[move.seat]
            if HIDDEN + slot in hand:
                hand[hand.index(HIDDEN + slot)] = card
        return trial

    def _begin(self, p: _Pending) -> None:
        deck, table = self.deck, self.table
        assert deck is not None and table is not None and p.move is not None
        try:
            seat, source, arg, target, index = p.move
            if source == HAND:
                assert p.slot is not None
                deck.play_hand(seat, p.slot, target, index)
            elif p.move.source == "payoff":
                deck.play_payoff(seat, index)
            else:
                assert arg is not None
                deck.play_side(seat, arg, index)
            if target == CENTER and 0 <= index < 3 and len(table.state.center[index]) == 11:
                deck.complete(index)
        except OrderError as e:
            raise _refuse(f"an action the private deck cannot take: {e}", Refusal.DECK_ORDER) from None
        self.pending = p

    def _try(self, p: _Pending) -> None:
        """Its cards are shown and any reshuffle made: try the move on a copy of the
        engine, and let the deck draw what it draws (and end the game if it does)."""
        deck = self.deck
        assert deck is not None
        card = deck.card(p.slot) if p.slot is not None else None
        if p.slot is not None and card != p.move.arg:
            raise _refuse(
                f"the move names card {p.move.arg}, but slot {p.slot} holds card {card}", Refusal.ILLEGAL_MOVE
            )
        trial = self._trial(p.move, p.slot, card)
        before = [len(h) for h in trial.hands]
        try:
            trial.apply(p.move)
        except IllegalMoveError as e:
            raise _refuse(f"an illegal move announced: {e.reason}", Refusal.ILLEGAL_MOVE) from None
        if p.slot is not None:
            before[p.seat] -= 1
        for s in (0, 1):
            for stand_in in trial.hands[s][before[s] :]:
                slot = deck.draw(s)
                if stand_in != HIDDEN + slot:  # the engine and the deck disagree: a bug, not the peer
                    raise AssertionError(f"the engine drew {stand_in}, the deck slot {slot}")
        if trial.result is not None:
            deck.end()
        p.stage = Stage.TRIED

    def _pump(self) -> None:
        """Send what the deck owes, and move on as far as the messages allow."""
        deck = self.deck
        assert deck is not None
        while True:
            for m in deck.outgoing():
                self._send(DeckBytes(self.game, self._next_index, to_wire(m)))
                self._next_index += 1
            if self.table is None and deck.settled:
                self._install()
                continue
            p = self.pending
            shown = p is not None and (p.slot is None or deck.card(p.slot) is not None)
            if p is not None and p.stage == Stage.BEGUN and not deck.shuffling and shown:
                self._try(p)
                continue
            if (
                p is not None
                and p.stage == Stage.TRIED
                and deck.settled
                and (not deck.over or deck.result or deck.left)
            ):
                p.stage = Stage.READY
                if self.on_change is not None:
                    self.on_change()
            break
        if self.table is not None and self.installed:
            self.table.refresh(self.table.state)

    def _send(self, msg: DeckBody) -> None:
        self.sent.append(_Sent(self.game, self.core.position, msg))
        if self.port is not None:
            self.port.send_message(msg)

    # -- games -----------------------------------------------------------------------------

    def _start(self, game: int) -> None:
        """Deal ``game``: our secret goes to the tape before our KEY goes out."""
        self.entries = [e for e in self.entries if e.game == game - 1]
        secret = self._secrets.pop(game, None)
        if secret is not None:  # a restarted seat: the secret its tape holds (written already)
            self.entries.append(TapeEntry(TapeKind.SECRET, game, self.core.position, secret=secret))
        else:
            secret = secrets.token_bytes(SECRET_BYTES)
            self._note(TapeEntry(TapeKind.SECRET, game, self.core.position, secret=secret))
        self._open(game, secret)
        self._pump()

    def _open(self, game: int, secret: bytes) -> None:
        old = self.deck
        if old is not None and old.over and old.result is None:  # the peer's secret is still to come
            for m in old.outgoing():  # (a restarted seat: our own secret, again, before the next deal)
                self._send(DeckBytes(self.game, self._next_index, to_wire(m)))
                self._next_index += 1
            self._prev = old
        else:
            self._prev = None
        self.game = game
        self.deck = FairDeck(self.core.match_id, game, self.seat, secret)
        self.table = None
        self.pending = None
        self._next_index = 0
        self.sent = [s for s in self.sent if s.game == game - 1]
        self._received = {g: v for g, v in self._received.items() if g == game - 1}
        self._received[game] = []
        self._next_due = False

    def _install(self) -> None:
        deck = self.deck
        assert deck is not None
        self.table = SeatGame(deck, self.core.match.seed)
        evs = self._deal_in()
        if self.port is not None:  # (a seat replaying its tape has none: its session starts with them)
            for ev in evs:
                self.port.push_event(ev)

    def _deal_in(self) -> list[Event]:
        """The match plays game ``self.game`` on this seat's table, once the match is at it:
        the game's GameStarted."""
        match, table = self.core.match, self.table
        if table is None or match.game_number != self.game or self.dealt == self.game:
            return []
        state = table.state
        match.use_deal(lambda: state)
        self.dealt = self.game
        return self.core.start_events()

    def next_game(self) -> list[Event]:
        """The match dealt its next game (seeded, GameCore.events): the deck takes it over;
        its GameStarted comes once the deal is shown."""
        if self._next_due:
            self._start_next()
        return self._deal_in()

    def _start_next(self) -> None:
        self._start(self.game + 1)

    # -- hooks of GameCore.commit -----------------------------------------------------------

    def before_commit(self, action: Action) -> None:
        """``action`` is about to be made: it must be the one announced, its cards shown."""
        if not self.ready(action):
            raise _refuse(
                f"action {self.core.position} is not the action announced (or comes before its cards "
                "are shown)",
                Refusal.DECK_ORDER,
            )
        table = self.table
        assert table is not None
        table.refresh(table.state)

    def digest(self, st: GameState) -> bytes:
        if self.table is not None:
            self.table.refresh(st)
        return public_digest(st)

    def digest_after(self, action: Action) -> bytes:
        table = self.table
        assert table is not None
        g = table.state.copy()
        if action.move is None:
            g.resign(action.seat)
        else:
            g.apply(action.move)
        return self.digest(g)

    def committed(self, action: Action) -> None:
        """``action`` is made (the engine applied it)."""
        self.pending = None
        table, deck = self.table, self.deck
        assert table is not None and deck is not None
        table.refresh(table.state)
        if deck.left and deck.result is not None:  # an action that crossed a leave: the deck with it
            try:
                again = deck.recheck()
            except CheatError as e:
                self._set_outcome(self.game, e.evidence)
            else:
                self._set_outcome(self.game, again)
        if table.state.result is not None:
            if not deck.over:  # a resignation: now that it is made, both reveal (after_action)
                deck.end()
            while len(self.outcomes) < self.game:
                self.outcomes.append(None)
            self.outcomes[self.game - 1] = deck.result
            m = self.core.match
            limit = self.core.max_games
            self._next_due = not m.over and (limit is None or m.game_number < limit)

    def resign_requested(self, game: int) -> bool:
        """The peer, off turn, asks us (on turn) to make its resignation of ``game``: True if
        we can now; else (our own announced move is under way) it is made once that move is."""
        if self.pending is None:
            return True
        self._asked = game
        return False

    def due_request(self) -> Action | None:
        """The peer's resignation asked for while our move was under way, once it can be made."""
        g = self.core.match.game
        if self._asked != g.game or self.pending is not None or g.result is not None or self.core.finished:
            return None
        if g.turn != self.seat:
            self._asked = 0  # the turn passed to the peer: it resigns itself
            return None
        self._asked = 0
        return self.core.check_resign(self.other, self.seat)

    def leave(self) -> bool:
        """This seat leaves the match in the middle of a game (quit, SIGTERM): the game is
        over for it, so it reveals its secret, and the peer answers with its own; then both
        records hold the deck, and every move made is checked.  False: nothing to reveal
        (no deal shown yet, or the game is over already)."""
        deck = self.deck
        if deck is None or not deck.dealt or deck.over or self.table is None:
            return False
        deck.leave()
        self._pump()
        return True

    def after_action(self) -> None:
        """The shell has sent the action just made (ours) or is about to acknowledge it (the
        peer's): what the deck owes now goes out after it -- after a resignation, our
        secret, so that nobody reveals anything before the resignation is made."""
        if self.deck is not None and self.deck.over and self.table is not None:
            self._pump()

    def owed_by_peer(self) -> bool:
        """Does the peer owe us a private-deck message now -- its key, its pass, a share,
        its secret, or the action it announced once its cards are shown?  (The shell puts
        a deadline on it that pings do not reset.)  A player thinking owes nothing."""
        deck, p = self.deck, self.pending
        if self.core.finished and self.awaiting_reveal is None:
            return False
        if deck is None:
            return False
        if deck.keys[self.other] is None or deck.owes_us():
            return True
        if self._prev is not None or (deck.over and deck.result is None):
            return True
        if deck.left and deck.peer_revealed and (p is None or p.seat != self.other):
            return True  # it left this game (or saw us leave it): its goodbye is due
        return p is not None and p.seat == self.other and p.stage == Stage.READY

    @property
    def awaiting_reveal(self) -> int | None:
        """The game whose end this seat has made and whose peer secret has not come yet
        (after a resignation the reveals follow the action), or None."""
        for deck in (self._prev, self.deck):
            if deck is not None and deck.over and deck.result is None:
                g = deck.head.game
                if g > len(self.outcomes) or self.outcomes[g - 1] is None:
                    return g
        return None

    def give_up_reveal(self) -> None:
        """The peer did not reveal its secret in time: the record says so instead of the deck."""
        g = self.awaiting_reveal
        if g is not None:
            self._give_up(g)

    def _give_up(self, game: int) -> None:
        self._set_outcome(
            game,
            {
                "kind": "unrevealed",
                "seat": self.other,
                "reason": f"seat {self.other} did not reveal its game secret, so the deck order of game "
                f"{game} is not known (every card shown was proven when it was shown)",
                "game": game,
            },
        )
        if self._prev is not None and self._prev.head.game == game:
            self._prev = None


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
    drv.outcomes = list(decks[: match.game_number - 1])
    if core.finished:
        return core
    if first is None:  # nothing of the current game was sent: it starts afresh
        return core
    if first != match.game_number:
        raise IllegalMoveError([], f"the private-deck tape starts at game {first}, not {match.game_number}")
    drv._secrets = dict(keys)
    drv._start(first)
    for e in tape:
        while n < len(actions) and core.position < e.at:
            make(n)
            n += 1
        if e.kind is TapeKind.TAKEN:
            assert e.msg is not None
            drv.on_deck(e.msg)
        elif e.kind is TapeKind.OWN:
            assert isinstance(e.msg, DeckIntent)
            drv.announce(Action(e.game, drv.seat, e.msg.move))
    while n < len(actions):
        make(n)
        n += 1
    return core


def _record_dealer(seed: bytes, game: int, deck: GameDeck) -> Callable[[], GameState]:
    return lambda: private_game(seed, game, deck.deal, [list(r) for r in deck.reshuffles])


__all__ = ["PrivateDeck", "Stage", "TapeEntry", "TapeKind", "public_digest", "resume_core"]
