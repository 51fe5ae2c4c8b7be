"""The protocol core: one connection's state machine, with no I/O.

Bytes in (:meth:`Endpoint.receive_data`), events out (:meth:`Endpoint.next_event`),
bytes to send (:meth:`Endpoint.data_to_send`); h11-style.  Every rule of the
protocol lives here: the versioned handshake, the resume proof, the
commit-reveal seed agreement, the history sync that lets a match go on after a
reconnect, and the checks on every move from the peer (shape, sequence number,
the local engine's verdict, the state digest).

An action from the peer comes out as :class:`ActionReceived` (checked and applied
to the core); the caller writes it down, then calls :meth:`Endpoint.acknowledge`.
An action the protocol makes this side take (a resignation) comes out as
:class:`ActionDue`; the caller makes it like any of its own (written down, then
:meth:`Endpoint.send_action`).  Nothing here writes anything.

Errors: :class:`RemoteProtocolError` when the peer broke a rule (a ``refuse``
message telling it why is already queued in :meth:`data_to_send`),
:class:`PeerRefused` when the peer refused us, :class:`LocalProtocolError` when
this side misused the endpoint.  After any of them the endpoint is closed.
See docs/protocol.md for the messages.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from ..contracts.plaintext import MAX_CHAT
from ..contracts.session import ChatReceived, Event
from ..engine import IllegalMoveError
from .game import Action, Committed, DesyncError, GameCore, chain
from .handshake import PROTOCOL_VERSION, Agreed, Deal, Handshake, LocalConfig, Phase, Route, SeedOrigin
from .messages import (
    MAX_REASON,
    MAX_REFUSAL,
    MESSAGES,
    Ack,
    Bye,
    Chat,
    Commit,
    Deck,
    DeckBody,
    DeckIntent,
    Hello,
    Message,
    MoveAction,
    Ping,
    Pong,
    Proof,
    Refuse,
    RematchAnswer,
    ResignAction,
    ResignRequest,
    Reveal,
    Setup,
    Sync,
    TakebackAnswer,
    TakebackRequest,
    Undo,
    Watchers,
    clean_text,
)
from .private import PrivateDeck
from .rematch import Handover, RematchLedger, RematchReceived
from .takebacks import MAX_TAKEBACKS, TakebackAnswered, TakebackLedger, TakebackRequested, TakenBack
from .watchcount import WATCHERS_BURST, WATCHERS_RATE, WatcherCounts
from .wire import FrameDecoder, LocalProtocolError, ProtocolError, Refusal, RemoteProtocolError, encode

# pings: an honest peer sends one per heartbeat (2 s; tests go down to 0.05 s).  At most
# PONG_RATE per second are answered (the others are ignored: any data proves liveness);
# more than PING_BURST beyond PING_RATE per second is a flood and refused.
PONG_RATE: Final = 4.0
PONG_BURST: Final = 8
PING_RATE: Final = 25.0
PING_BURST: Final = 250
# chat: a person types far slower; faster than this is a flood and refused
CHAT_RATE: Final = 5.0
CHAT_BURST: Final = 10

__all__ = [
    "MAX_TAKEBACKS",
    "PROTOCOL_VERSION",
    "Acked",
    "ActionDue",
    "ActionReceived",
    "Agreed",
    "Deal",
    "Endpoint",
    "Handover",
    "Handshaken",
    "LocalConfig",
    "NeedData",
    "PeerBye",
    "PeerLeft",
    "PeerRefused",
    "Phase",
    "PlayEvent",
    "RematchReceived",
    "Route",
    "SeedOrigin",
    "TakebackAnswered",
    "TakebackRequested",
    "TakenBack",
]


class PeerRefused(ProtocolError):
    """The peer sent ``refuse``: it will not go on with us (``code`` says why)."""


class PeerLeft(ProtocolError):
    """The peer said ``bye`` before the handshake was done: no match with it on this
    connection (in play a ``bye`` is an event, :class:`PeerBye`); ``reason``: its own."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"it said goodbye during the handshake: {reason or 'no reason given'}")
        self.reason = reason


# -- events that are about the link, not the game ------------------------------


class NeedData:
    """next_event(): nothing more until more bytes arrive."""


NEED_DATA: Final = NeedData()


@dataclass(frozen=True, slots=True)
class Handshaken:
    """The handshake is done: the match is agreed and the histories line up."""

    peer_name: str
    # who chose the seed; None: a resumed match (the handshake does not say: the record does)
    seed_by: SeedOrigin | None
    resumed_at: int  # actions both sides already had (0 for a fresh match)
    peer_position: int = 0  # actions the peer had


@dataclass(frozen=True, slots=True)
class Acked:
    n: int  # the peer has applied and written down the first n actions


@dataclass(frozen=True, slots=True)
class PeerBye:
    reason: str


@dataclass(frozen=True, slots=True)
class ActionReceived:
    """The peer's action ``n``, checked and applied to the core (``tag``: its author's tag).
    Write it down, then :meth:`Endpoint.acknowledge` it, then show ``core.events(done)``."""

    n: int
    done: Committed
    tag: bytes | None


@dataclass(frozen=True, slots=True)
class ActionDue:
    """This side must make ``action`` now, a resignation: its own, asked for while off turn
    (the turn has come to it), or the peer's, at the peer's request.  Make it as any of
    this side's actions: commit it, write it down, then :meth:`Endpoint.send_action`."""

    action: Action


# what the endpoint tells the session in play, and with the handshake's end
PlayEvent = (
    Acked
    | PeerBye
    | ActionReceived
    | ActionDue
    | TakebackRequested
    | TakebackAnswered
    | TakenBack
    | RematchReceived
    | Handover
)
LinkEvent = Handshaken | PlayEvent


class RateLimit:
    """A token bucket: ``take()`` is True at most ``burst`` times at once and ``rate`` times a second."""

    __slots__ = ("_clock", "_last", "_tokens", "burst", "rate")

    def __init__(self, rate: float, burst: int, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock()

    def take(self) -> bool:
        now = self._clock()
        self._tokens = min(float(self.burst), self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


class Liveness:
    """A connection's pings and pongs from the other end (a player's or a watcher's):
    together at most PING_RATE a second beyond a burst of PING_BURST (more: a flood);
    a ping is answered PONG_RATE times a second at most, the others ignored."""

    __slots__ = ("_pings", "_pongs")

    def __init__(self, clock: Callable[[], float]) -> None:
        self._pongs = RateLimit(PONG_RATE, PONG_BURST, clock)
        self._pings = RateLimit(PING_RATE, PING_BURST, clock)

    def heard(self, msg: Ping | Pong) -> Pong | None:
        """The answer to ``msg``, if any (RemoteProtocolError: a flood)."""
        if not self._pings.take():
            raise RemoteProtocolError(f"{msg.T}s faster than {PING_RATE:g} a second", Refusal.FLOOD)
        return Pong(msg.k) if isinstance(msg, Ping) and self._pongs.take() else None


# -- the endpoint ---------------------------------------------------------------------


class Endpoint:
    """One side of one connection.  ``core`` is the match (None until agreed, for a new
    one); the handshake (:class:`~p2p_spite.core.handshake.Handshake`) agrees it, then
    the endpoint plays it: actions, acknowledgements, resignation requests, chat, the
    private deck's messages, pings."""

    def __init__(
        self,
        config: LocalConfig,
        core: GameCore | None = None,
        clock: Callable[[], float] = time.monotonic,
        deal: Deal | None = None,
        held_deal: Callable[[], Deal | None] | None = None,
        held_core: Callable[[], GameCore | None] | None = None,
        random_bytes: Callable[[int], bytes] = secrets.token_bytes,
    ) -> None:
        self.config = config
        # held_deal/held_core, the host's: the deal it holds, and a seeded match a cut first
        # handshake agreed (the joiner may have begun it), asked when a joiner says hello
        self.hs = Handshake(config, core, deal, held_deal, held_core, self._send, random_bytes)
        self._decoder = FrameDecoder()
        self._out = bytearray()
        self._events: list[Event | LinkEvent] = []
        self._catch_up_to: tuple[int, bytes] | None = None  # (position, hash) the peer had
        self._sent_upto = 0  # the peer has, or has been sent, every action before this one
        self._started = False
        self._unacked: int | None = None  # an ActionReceived not acknowledged yet
        self.rematch = RematchLedger(self._send)  # another match on this connection
        self._live = Liveness(clock)
        self._chats = RateLimit(CHAT_RATE, CHAT_BURST, clock)
        self.takebacks = TakebackLedger(self._send)  # taking back (docs/protocol.md, *Taking back*)
        self.watchers = WatcherCounts(self._send, self.hs, RateLimit(WATCHERS_RATE, WATCHERS_BURST, clock))

    # -- what the handshake agreed ----------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self.hs.phase

    @phase.setter
    def phase(self, phase: Phase) -> None:
        self.hs.phase = phase

    @property
    def core(self) -> GameCore | None:
        return self.hs.core

    # -- plumbing -----------------------------------------------------------------

    def initiate(self) -> None:
        """Queue this side's hello (call once, right after connecting)."""
        if self._started:
            raise LocalProtocolError("initiate() called twice")
        self._started = True
        self._send(self.hs.hello())

    def receive_data(self, data: bytes) -> None:
        if self.phase is Phase.CLOSED:
            return
        self._decoder.feed(data)

    def data_to_send(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    @property
    def catching_up(self) -> bool:
        """The peer had more actions at the sync and has not sent them all yet."""
        return self._catch_up_to is not None

    @property
    def pending_bytes(self) -> int:
        """Received bytes that do not make a whole frame yet (a frame cut short)."""
        return self._decoder.pending

    def next_event(self) -> Event | LinkEvent | NeedData:
        """The next event, processing at most one more frame; NEED_DATA if none."""
        while not self._events:
            if self.phase is Phase.CLOSED:
                return NEED_DATA
            if self._unacked is not None:
                raise LocalProtocolError(f"action {self._unacked} was not acknowledged")
            try:
                if self.phase is Phase.AGAIN:
                    if not self._read_to_hello():
                        return NEED_DATA
                    continue
                msg = self._decoder.next_message()
                if msg is None:
                    return NEED_DATA
                self._handle(msg)
            except RemoteProtocolError as e:
                self.refuse(e.code, str(e))
                raise
            except (PeerRefused, PeerLeft):
                self.phase = Phase.CLOSED
                raise
        return self._events.pop(0)

    def _read_to_hello(self) -> bool:
        """Both said yes to another match: the peer's frames up to its next ``hello`` are
        this match's (pings, chat); that frame and what follows are handed over whole
        (:class:`Handover`).  False: more bytes are needed."""
        frame = self._decoder.next_frame()
        if frame is None:
            return False
        raw, msg = frame
        if msg["t"] == Hello.T:
            self._events.append(Handover(raw + self._decoder.rest()))
            self.phase = Phase.CLOSED
        else:
            self._handle(msg)
        return True

    def _send(self, msg: Message) -> None:
        self._out += encode(msg.to_wire())

    def send_message(self, msg: DeckBody) -> None:
        """Queue a private-deck message (core/private.py makes them); an intent voids our
        takeback request."""
        if self.phase is Phase.PLAY:
            if isinstance(msg, DeckIntent):
                self.takebacks.ours_announced()
            self._send(Deck(msg))

    def push_event(self, ev: Event) -> None:
        self._events.append(ev)

    def refuse(self, code: Refusal, text: str) -> None:
        """Tell the peer we stop (e.g. the seat is taken, or it broke a rule), and close."""
        if self.phase is not Phase.CLOSED:
            self._send(Refuse(code, text[:MAX_REFUSAL]))
            self.phase = Phase.CLOSED

    # -- what this side does ----------------------------------------------------------

    def _need_play(self) -> GameCore:
        if self.phase is not Phase.PLAY or self.core is None:
            raise LocalProtocolError(f"not playing (phase {self.phase.value})")
        return self.core

    def acknowledge(self) -> None:
        """The peer's action (the last :class:`ActionReceived`) is written down: say so.
        Then, if the turn has come to a resignation this side asked for, it is due."""
        core = self._need_play()
        if self._unacked is None:
            raise LocalProtocolError("no action to acknowledge")
        self._unacked = None
        self._send(Ack(core.position))
        if self._catch_up_to is None:
            action = core.due_resignation()
            if action is not None:
                self._events.append(ActionDue(action))

    def send_action(self, n: int) -> None:
        """Send action number ``n`` (already applied to the core) to the peer, with its
        author's tag (ours, or the peer's own as it sent it)."""
        core = self._need_play()
        a = core.actions[n]
        self._sent_upto = max(self._sent_upto, n + 1)
        self.takebacks.ours_sent(core)
        if a.move is None:
            self._send(ResignAction(n, core.digests[n], core.tags[n], a.game, a.seat))
        else:
            self._send(MoveAction(n, core.digests[n], core.tags[n], a.move))

    def send_takeback_request(self) -> int:
        """Ask to take back our last action (:meth:`TakebackLedger.request`); its number."""
        core = self._need_play()
        return self.takebacks.request(core, self._catch_up_to is not None)

    def answer_takeback(self, n: int, ok: bool, rule: bool = False) -> bool:
        """Answer the peer's request to take back action ``n`` (False: void, nothing sent;
        ``rule``: by this side's standing rule, nobody asked)."""
        self._need_play()
        return self.takebacks.answer(n, ok, rule)

    def send_undo(self, n: int) -> None:
        """Tell the peer we took back action ``n`` (done in the core and written down)."""
        core = self._need_play()
        self._sent_upto = min(self._sent_upto, core.position)
        self.takebacks.undo_sent(n, core)

    def send_resign_request(self, game: int) -> None:
        """Ask the player on turn to make our resignation of ``game`` their next action."""
        self._need_play()
        self._send(ResignRequest(game))

    def send_rematch(self, yes: bool) -> None:
        """Once the match is over: this side's answer to another match (once).  A yes
        to the peer's yes ends this match's reading at the peer's next hello."""
        self.rematch.answer(self._need_play(), yes)
        if self.rematch.both_yes:
            self.phase = Phase.AGAIN

    def send_missing(self) -> None:
        """Send the actions applied since the histories were compared that the peer
        has not been sent (made while this connection's handshake was finishing)."""
        core = self._need_play()
        for n in range(self._sent_upto, core.position):
            self.send_action(n)

    def send_chat(self, text: str) -> None:
        self._need_play()
        self._send(Chat(clean_text(text, MAX_CHAT)))

    def send_ping(self, k: int) -> None:
        if self.phase is not Phase.CLOSED:
            self._send(Ping(k))

    def send_bye(self, reason: str) -> None:
        if self.phase is not Phase.CLOSED:
            self._send(Bye(clean_text(reason, MAX_REASON)))
            self.phase = Phase.CLOSED

    # -- what the peer does -------------------------------------------------------------

    def _handle(self, raw: dict[str, Any]) -> None:
        t = raw["t"]
        cls = MESSAGES.get(t)
        if self._catch_up_to is not None and cls not in _CATCH_UP_TYPES:
            raise RemoteProtocolError(
                f"the peer claimed {self._catch_up_to[0]} actions, then sent a {clean_text(t, 20)!r} "
                "message before them",
                Refusal.POSITION,
            )
        if cls is None:
            raise RemoteProtocolError(
                f"a message of unknown type {clean_text(t, 20)!r} during the {self.phase.value} phase",
                Refusal.UNKNOWN_TYPE,
            )
        phases, handler = _HANDLERS[cls]
        if self.phase not in phases:
            raise RemoteProtocolError(
                f"a {t!r} message during the {self.phase.value} phase", Refusal.UNEXPECTED
            )
        if cls is Hello:
            msg: Message = Hello.from_wire(raw, proto=self.config.protocol_version, role=self.hs.peer_role)
        else:
            msg = cls.from_wire(raw)
        handler(self, msg)

    def _on_refuse(self, msg: Refuse) -> None:
        raise PeerRefused(msg.msg, msg.code)

    def _on_ping(self, msg: Ping | Pong) -> None:
        """Any data proves the peer alive: a pong only counts against the ping rate."""
        if (pong := self._live.heard(msg)) is not None:
            self._send(pong)

    def _on_bye(self, msg: Bye) -> None:
        if self.phase not in (Phase.PLAY, Phase.AGAIN):  # the handshake is not done: it ends here
            raise PeerLeft(msg.reason)
        self._events.append(PeerBye(msg.reason))
        self.phase = Phase.CLOSED

    def _on_sync(self, msg: Sync) -> None:
        c = self.hs.check_sync(msg)
        pos, mine = msg.pos, c.position
        self.phase = Phase.PLAY
        resumed_at = min(pos, mine)
        if pos > mine:
            self._catch_up_to = (pos, msg.hist)
        self._sent_upto = max(self._sent_upto, pos)
        route = self.hs.route
        assert route is not None
        self._events.append(Handshaken(self.hs.peer_name, route.origin, resumed_at, pos))
        if c.private is not None:
            return  # the session sends them again, between the private-deck messages
        for n in range(pos, mine):  # the peer missed these: send them again
            self.send_action(n)

    def _on_action(self, msg: MoveAction | ResignAction) -> None:
        c = self.core
        assert c is not None
        n, d, tag = msg.n, msg.d, msg.a
        if n != c.position:
            raise RemoteProtocolError(
                f"action number {n} out of sequence (expected {c.position})", Refusal.SEQUENCE
            )
        me, peer = c.seat, 1 - c.seat
        g = c.match.game
        # The next action of a game is always made by the seat on turn (its author).
        # Ours come from the peer only while it catches us up with what our journal
        # lost, and only with our own tag on them (a key that never leaves this side).
        author = peer if g.result is not None or c.finished else g.turn
        try:
            if isinstance(msg, MoveAction):
                move = msg.move
                c.check_move(move, move.seat if move.seat == author else peer)
                action = Action(c.match.game_number, move.seat, move)
            else:
                game, seat = msg.g, msg.s
                action = c.check_resign(seat, author)
                if game != action.game:
                    raise RemoteProtocolError(
                        f"a resignation of game {game} during game {action.game}", Refusal.SEQUENCE
                    )
                if author == peer and seat == me and game not in c.requests:
                    raise RemoteProtocolError(
                        "a resignation of this seat that it did not ask for", Refusal.FORGED
                    )
        except IllegalMoveError as e:
            raise RemoteProtocolError(
                f"{self.hs.peer_name or 'the peer'} sent an illegal move: {e.reason}", Refusal.ILLEGAL_MOVE
            ) from None
        if author == peer and tag is None:
            raise RemoteProtocolError(f"{msg.T}: a is missing (the author's tag)", Refusal.MALFORMED)
        if author == me:
            catching_up = self._catch_up_to is not None and n < self._catch_up_to[0]
            if not catching_up or tag is None or not c.tag_is_ours(action, tag):
                raise RemoteProtocolError(
                    f"an action for this side's turn (action {n}) that this side did not make", Refusal.FORGED
                )
            if c.undo_held and c.withdrawn == chain(c.head, action):
                raise RemoteProtocolError(
                    f"action {n} again, which this side took back and the peer acknowledged", Refusal.FORGED
                )
        claimed = self._catch_up_to
        caught_up = claimed is not None and n + 1 >= claimed[0]
        if claimed is not None and caught_up and not hmac.compare_digest(chain(c.head, action), claimed[1]):
            raise RemoteProtocolError("the two histories disagree after catching up", Refusal.HISTORY)
        try:
            done = c.commit(action, expect=d, tag=tag)  # undone if the digests differ
        except DesyncError:
            raise RemoteProtocolError(
                f"the game states disagree after action {n} (desync): the match is stopped", Refusal.DESYNC
            ) from None
        if caught_up:
            self._catch_up_to = None
        self.takebacks.peers_action(done, c)
        self._unacked = n
        self._events.append(ActionReceived(n, done, tag))

    def _on_resign_request(self, msg: ResignRequest) -> None:
        """The peer, off turn, resigns ``g``: maybe our next action (``GameCore.resign_request``)."""
        c = self.core
        assert c is not None
        if msg.g > (now := c.match.game.game):
            raise RemoteProtocolError(
                f"a resignation request for game {msg.g} during game {now}", Refusal.SEQUENCE
            )
        if (action := c.resign_request(msg.g)) is not None:
            self._events.append(ActionDue(action))

    def _on_rematch(self, msg: RematchAnswer) -> None:
        core = self.core
        assert core is not None
        self._events.append(self.rematch.on_answer(msg, core))
        if self.rematch.both_yes:
            self.phase = Phase.AGAIN

    def _on_ack(self, msg: Ack) -> None:
        c = self.core
        assert c is not None
        if msg.n > c.position:
            raise RemoteProtocolError(f"ack: n must be an integer in 0..{c.position}", Refusal.MALFORMED)
        if self.takebacks.acked():
            c.undo_held = True  # it holds our undo: a sync cannot bring the action back
        self._events.append(Acked(msg.n))

    def _on_takeback(self, msg: TakebackRequest) -> None:
        c = self.core
        assert c is not None
        self._events.append(self.takebacks.on_request(msg, c))

    def _on_takeback_answer(self, msg: TakebackAnswer) -> None:
        answered = self.takebacks.on_answer(msg)
        if answered is not None:
            self._events.append(answered)

    def _on_undo(self, msg: Undo) -> None:
        """The peer takes back its action ``n`` (the one we let it take back)."""
        c = self.core
        assert c is not None
        played = self.takebacks.on_undo(msg, c)
        self._sent_upto = min(self._sent_upto, c.position)
        self._unacked = msg.n
        self._events.append(TakenBack(msg.n, played))

    def _on_deck(self, msg: Deck) -> None:
        c = self.core
        assert c is not None
        deck = PrivateDeck.of(c)
        if deck is None:
            raise RemoteProtocolError("a private-deck message in a seeded match", Refusal.UNEXPECTED)
        deck.on_deck(msg.body)
        if isinstance(msg.body, DeckIntent):
            self.takebacks.peers_intent()  # its next action voids its takeback request

    def _on_chat(self, msg: Chat) -> None:
        c = self.core
        assert c is not None
        if not self._chats.take():
            raise RemoteProtocolError(f"chat faster than {CHAT_RATE:g} messages a second", Refusal.FLOOD)
        self._events.append(ChatReceived(1 - c.seat, msg.text))


_PLAYING = frozenset({Phase.PLAY})
_AFTER_HELLO = frozenset(Phase) - {Phase.HELLO}
_Handler = Callable[[Endpoint, Any], None]
# every message: the phases it may come in, and what the endpoint does with it
_HANDLERS: dict[type[Message], tuple[frozenset[Phase], _Handler]] = {
    Hello: (frozenset({Phase.HELLO}), lambda ep, msg: ep.hs.on_hello(msg)),
    Proof: (frozenset({Phase.PROOF}), lambda ep, msg: ep.hs.on_proof(msg)),
    Setup: (frozenset({Phase.SETUP}), lambda ep, msg: ep.hs.on_setup(msg)),
    Commit: (frozenset({Phase.SEED}), lambda ep, msg: ep.hs.on_commit(msg)),
    Reveal: (frozenset({Phase.SEED}), lambda ep, msg: ep.hs.on_reveal(msg)),
    Sync: (frozenset({Phase.SYNC}), Endpoint._on_sync),
    MoveAction: (_PLAYING, Endpoint._on_action),
    ResignAction: (_PLAYING, Endpoint._on_action),
    ResignRequest: (_PLAYING, Endpoint._on_resign_request),
    TakebackRequest: (_PLAYING, Endpoint._on_takeback),
    TakebackAnswer: (_PLAYING, Endpoint._on_takeback_answer),
    Undo: (_PLAYING, Endpoint._on_undo),
    Ack: (_PLAYING, Endpoint._on_ack),
    Chat: (frozenset({Phase.PLAY, Phase.AGAIN}), Endpoint._on_chat),
    RematchAnswer: (_PLAYING, Endpoint._on_rematch),
    Watchers: (frozenset({Phase.PLAY, Phase.AGAIN}), lambda ep, msg: ep.push_event(ep.watchers.take(msg))),
    Deck: (_PLAYING, Endpoint._on_deck),
    Ping: (_AFTER_HELLO, Endpoint._on_ping),
    Pong: (_AFTER_HELLO, Endpoint._on_ping),
    Bye: (_AFTER_HELLO, Endpoint._on_bye),
    Refuse: (frozenset(Phase), Endpoint._on_refuse),
}
assert set(_HANDLERS) == set(MESSAGES.values())
# what may come while the peer catches us up: the actions it claimed to have (and liveness)
_CATCH_UP_TYPES: frozenset[type[Message] | None] = frozenset(
    {MoveAction, ResignAction, Deck, Ping, Pong, Refuse, Bye}
)
