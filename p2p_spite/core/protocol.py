"""The protocol core: one connection's state machine, with no I/O.

Bytes in (:meth:`Endpoint.receive_data`), events out (:meth:`Endpoint.next_event`),
bytes to send (:meth:`Endpoint.data_to_send`); h11-style.  Every rule of the
protocol lives here: the versioned handshake, the join-code challenge, the
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
from enum import Enum
from typing import Any, Final

from ..engine import DEFAULT_TARGET, IllegalMoveError, Match
from ..plaintext import MAX_CHAT, MAX_NAME
from ..session import ChatReceived, Event
from .game import Action, Committed, DesyncError, GameCore, chain
from .keys import auth_mac, commitment, proof_mac, resume_key, seed_from
from .messages import (
    HOST,
    JOIN,
    MATCH_ID_BYTES,
    MAX_REASON,
    MAX_REFUSAL,
    MESSAGES,
    NONCE_BYTES,
    Ack,
    Auth,
    Bye,
    Chat,
    Commit,
    Deck,
    DeckBody,
    Hello,
    Message,
    MoveAction,
    Ping,
    Pong,
    Proof,
    Refuse,
    ResignAction,
    ResignRequest,
    Reveal,
    Setup,
    Sync,
    clean_text,
)
from .private import PrivateDeck
from .wire import FrameDecoder, LocalProtocolError, ProtocolError, Refusal, RemoteProtocolError, encode

PROTOCOL_VERSION: Final = 2
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
    "PROTOCOL_VERSION",
    "Acked",
    "ActionDue",
    "ActionReceived",
    "Deal",
    "Endpoint",
    "Handshaken",
    "LocalConfig",
    "NeedData",
    "PeerBye",
    "PeerLeft",
    "PeerRefused",
    "Phase",
]


class PeerRefused(ProtocolError):
    """The peer sent ``refuse``: it will not go on with us (``code`` says why)."""


class PeerLeft(ProtocolError):
    """The peer said ``bye`` before the handshake was done: no match with it on this
    connection (in play a ``bye`` is an event, :class:`PeerBye`)."""


class Phase(Enum):
    HELLO = "hello"  # waiting for the peer's hello
    AUTH = "auth"  # join-code challenge-response
    PROOF = "proof"  # a returning joiner and the host prove they hold the match
    SETUP = "setup"  # the joiner waits for the host's match settings
    SEED = "seed"  # commit-reveal of the two halves of the seed
    SYNC = "sync"  # comparing histories (position + hash)
    PLAY = "play"
    CLOSED = "closed"


# -- events that are about the link, not the game ------------------------------


class NeedData:
    """next_event(): nothing more until more bytes arrive."""


NEED_DATA: Final = NeedData()


@dataclass(frozen=True, slots=True)
class Handshaken:
    """The handshake is done: the match is agreed and the histories line up."""

    peer_name: str
    # the host chose the seed (True) or both drew it (False); None: a resumed match
    # (the handshake does not say: the record does)
    seed_from_host: bool | None
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


LinkEvent = Handshaken | Acked | PeerBye | ActionReceived | ActionDue


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


# -- configuration -----------------------------------------------------------------


@dataclass(slots=True)
class LocalConfig:
    role: str  # HOST or JOIN
    name: str
    code_key: bytes | None = None  # derive_code_key(code), or None: no join code
    # the host's match settings (ignored on the joiner):
    seed: bytes | None = None  # None: commit-reveal
    target: int = DEFAULT_TARGET
    max_games: int | None = None
    # the host: offer a private-deck match; the joiner: insist on one (docs/fairness.md)
    private: bool = False
    protocol_version: int = PROTOCOL_VERSION  # tests may pretend to be another version


@dataclass(slots=True)
class Deal:
    """One side's half of a seed agreement in progress, kept across reconnections: once
    this side has revealed its secret (the joiner) or learned the seed (the host), the
    match's deal is fixed, and a new connection must open the same commitments."""

    match_id: bytes
    secret: bytes
    commit: bytes
    peer_commit: bytes | None = None
    peer_secret: bytes | None = None
    revealed: bool = False  # this side has sent its secret

    @property
    def fixed(self) -> bool:
        """Someone may know the seed: the joiner has revealed, or the host has the joiner's half."""
        return self.revealed or self.peer_secret is not None


# -- the endpoint ---------------------------------------------------------------------


class Endpoint:
    """One side of one connection.  ``core`` is the match (None until agreed, for a new one)."""

    def __init__(
        self,
        config: LocalConfig,
        core: GameCore | None = None,
        clock: Callable[[], float] = time.monotonic,
        deal: Deal | None = None,
        held_deal: Callable[[], Deal | None] | None = None,
        held_core: Callable[[], GameCore | None] | None = None,
    ) -> None:
        if config.role not in (HOST, JOIN):
            raise ValueError(f"role must be {HOST!r} or {JOIN!r}")
        self.config = config
        self.role = config.role
        self.peer_role = JOIN if config.role == HOST else HOST
        self.core = core
        self.phase = Phase.HELLO
        self.name = clean_text(config.name[:MAX_NAME], MAX_NAME)  # as the peer will see it
        self.peer_name = ""
        # the host chose the seed (True) or both drew it (False); None until a new match's
        # setup, and for a resumed match (its record says)
        self.seed_from_host: bool | None = None
        self._peer_match: bytes | None = None  # the match a returning joiner named in its hello
        self._decoder = FrameDecoder()
        self._out = bytearray()
        self._events: list[Event | LinkEvent] = []
        self._nonce = secrets.token_bytes(NONCE_BYTES)
        self._peer_nonce = b""
        self._match_id = core.match_id if core is not None else b""
        self.deal = deal  # the seed agreement (the caller keeps it across connections)
        self._held_deal = held_deal  # the host: the deal it holds, asked when a joiner says hello
        # the host: a seeded match a cut first handshake agreed (the joiner may have begun it)
        self._held_core = held_core
        self._adopted_origin: bool | None = None
        self._peer_deal = False  # the returning joiner holds only a deal, not its seed
        self._deal_resumed = False  # a returning joiner with the seed of a deal we hold
        self._peer_commit = b""
        self._catch_up_to: tuple[int, bytes] | None = None  # (position, hash) the peer had
        self._sent_upto = 0  # the peer has, or has been sent, every action before this one
        self._resumed_at = 0
        self._started = False
        self.private = config.private if config.role == HOST else False  # the match has a private deck
        self._unacked: int | None = None  # an ActionReceived not acknowledged yet
        self._pongs = RateLimit(PONG_RATE, PONG_BURST, clock)
        self._pings = RateLimit(PING_RATE, PING_BURST, clock)
        self._chats = RateLimit(CHAT_RATE, CHAT_BURST, clock)

    # -- plumbing -----------------------------------------------------------------

    def initiate(self) -> None:
        """Queue this side's hello (call once, right after connecting)."""
        if self._started:
            raise LocalProtocolError("initiate() called twice")
        self._started = True
        c = self.core
        self._send(
            Hello(
                self.config.protocol_version,
                self.role,
                self.name,
                self._nonce,
                self.config.code_key is not None,
                # only a returning joiner names the match; the host never tells it to a stranger
                self._returning_to(),
                # a joiner returning to a deal it has not seen the seed of: the exchange again
                self.role == JOIN and c is None and self.deal is not None,
            )
        )

    def _returning_to(self) -> bytes | None:
        if self.role != JOIN:
            return None
        if self.core is not None:
            return self.core.match_id
        return self.deal.match_id if self.deal is not None else None

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
                msg = self._decoder.next_message()
                if msg is None:
                    return NEED_DATA
                self._handle(msg)
            except RemoteProtocolError as e:
                self._refuse(e.code, str(e))
                raise
            except (PeerRefused, PeerLeft):
                self.phase = Phase.CLOSED
                raise
        return self._events.pop(0)

    def _send(self, msg: Message) -> None:
        self._out += encode(msg.to_wire())

    def send_message(self, msg: DeckBody) -> None:
        """Queue a private-deck message (core/private.py makes them)."""
        if self.phase is Phase.PLAY:
            self._send(Deck(msg))

    def push_event(self, ev: Event) -> None:
        self._events.append(ev)

    def _refuse(self, code: Refusal, text: str) -> None:
        if self.phase is not Phase.CLOSED:
            self._send(Refuse(code, text[:MAX_REFUSAL]))
            self.phase = Phase.CLOSED

    def refuse(self, code: Refusal, text: str) -> None:
        """Tell the peer we stop (e.g. the seat is taken), and close."""
        self._refuse(code, text)

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
        if a.move is None:
            self._send(ResignAction(n, core.digests[n], core.tags[n], a.game, a.seat))
        else:
            self._send(MoveAction(n, core.digests[n], core.tags[n], a.move))

    def send_resign_request(self, game: int) -> None:
        """Ask the player on turn to make our resignation of ``game`` their next action."""
        self._need_play()
        self._send(ResignRequest(game))

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
            msg: Message = Hello.from_wire(raw, proto=self.config.protocol_version, role=self.peer_role)
        else:
            msg = cls.from_wire(raw)
        handler(self, msg)

    def _on_refuse(self, msg: Refuse) -> None:
        raise PeerRefused(msg.msg, msg.code)

    def _on_ping(self, msg: Ping) -> None:
        if not self._pings.take():
            raise RemoteProtocolError(f"pings faster than {PING_RATE:g} a second", Refusal.FLOOD)
        if self._pongs.take():  # more than a few a second are not answered
            self._send(Pong(msg.k))

    def _on_pong(self, msg: Pong) -> None:
        """Any data proves the peer alive: a pong only counts against the ping rate."""
        if not self._pings.take():
            raise RemoteProtocolError(f"pongs faster than {PING_RATE:g} a second", Refusal.FLOOD)

    def _on_bye(self, msg: Bye) -> None:
        if self.phase is not Phase.PLAY:  # the handshake is not done: it ends here
            raise PeerLeft(f"it said goodbye during the handshake: {msg.reason or 'no reason given'}")
        self._events.append(PeerBye(msg.reason))
        self.phase = Phase.CLOSED

    def _on_hello(self, msg: Hello) -> None:
        self.peer_name = msg.name
        self._peer_nonce = msg.nonce
        wants_code = msg.code
        peer_match = msg.match
        if self.role == HOST:
            if self.config.code_key is not None and not wants_code:
                raise RemoteProtocolError(
                    "this host needs a join code (join with --code)", Refusal.CODE_NEEDED
                )
        elif wants_code and self.config.code_key is None:
            raise RemoteProtocolError(
                "the host needs a join code: join with --code CODE", Refusal.CODE_NEEDED
            )
        if self.role == HOST and self.config.code_key is None and wants_code:
            # the joiner brought a code we do not use: it cannot authenticate us; say so
            raise RemoteProtocolError(
                "this host does not use a join code (join without --code)", Refusal.NO_CODE
            )
        self._peer_match = peer_match
        self._peer_deal = msg.deal and self.role == HOST and peer_match is not None
        if self.config.code_key is not None:
            self.phase = Phase.AUTH
            if self.role == JOIN:
                self._send_auth()
        else:
            self._after_auth()

    def _nonces(self) -> tuple[bytes, bytes]:
        return (self._nonce, self._peer_nonce) if self.role == HOST else (self._peer_nonce, self._nonce)

    def _send_auth(self) -> None:
        key = self.config.code_key
        assert key is not None
        self._send(Auth(auth_mac(key, self.role, *self._nonces())))

    def _on_auth(self, msg: Auth) -> None:
        key = self.config.code_key
        assert key is not None
        if not hmac.compare_digest(msg.mac, auth_mac(key, self.peer_role, *self._nonces())):
            raise RemoteProtocolError("wrong join code", Refusal.BAD_CODE)
        if self.role == HOST:
            self._send_auth()  # only now: a guesser learns nothing from the host
        self._after_auth()

    def _check_match(self) -> None:
        """The host: is the joiner's match (None: a new one) the one held here?  Asked only
        after the join code: a stranger must not learn whether a match is in progress."""
        if self.core is None and self._held_core is not None:
            held_core = self._held_core()
            if held_core is not None and self._peer_match == held_core.match_id:
                self.core = held_core  # the joiner comes back to it: it proves it holds it
                self._adopted_origin = True
                return
        if self.deal is None and self._held_deal is not None:
            self.deal = self._held_deal()
        deal = self.deal
        if self.core is None and deal is not None:
            if self._peer_match == deal.match_id:
                if self._peer_deal:
                    return  # the seed exchange again, with the same commitments
                if deal.peer_secret is not None:
                    self._core_from_deal(deal)  # the joiner has the seed: it proves it
                    return
            if self._peer_match is None and not deal.fixed:
                self.deal = None  # nobody can know that deal: a new one
                return
        if self.core is None and deal is not None and deal.fixed and self._peer_match is None:
            raise RemoteProtocolError(
                "this host is waiting for the joiner that left after the deal was fixed", Refusal.SEAT_TAKEN
            )
        held = self.core.match_id if self.core is not None else None
        if self._peer_match == held:
            return
        if held is None:
            raise RemoteProtocolError(
                "this host has no match to continue (join without --resume)", Refusal.NO_MATCH
            )
        if self._peer_match is None:
            raise RemoteProtocolError(
                "this host is in a match already (to continue it, join with --resume RECORD)",
                Refusal.SEAT_TAKEN,
            )
        raise RemoteProtocolError("this host is playing a different match", Refusal.OTHER_MATCH)

    def _after_auth(self) -> None:
        if self.role == HOST:
            self._check_match()
        c = self.core
        if c is not None:  # a returning joiner: both prove they hold the match before anything else
            self.phase = Phase.PROOF
            if self.role == JOIN:
                self._send_proof()
            return
        if self.role == JOIN:
            self.phase = Phase.SETUP
            return
        self._send_setup()

    def _send_proof(self) -> None:
        c = self.core
        assert c is not None
        key = resume_key(c.match.seed, c.match_id)
        self._send(Proof(proof_mac(key, self.role, *self._nonces())))

    def _on_proof(self, msg: Proof) -> None:
        c = self.core
        assert c is not None
        key = resume_key(c.match.seed, c.match_id)
        if not hmac.compare_digest(msg.mac, proof_mac(key, self.peer_role, *self._nonces())):
            raise RemoteProtocolError("the peer cannot prove it holds this match", Refusal.BAD_PROOF)
        if self.role == JOIN:
            self.phase = Phase.SETUP
            return
        self._send_proof()  # only now: a stranger learns nothing it could test
        self._send_setup()

    def _core_from_deal(self, deal: Deal) -> None:
        """The host rebuilds the match of a deal it holds whole (the joiner may have seen the
        seed, and comes back proving it like any returning joiner)."""
        assert deal.peer_secret is not None
        cfg = self.config
        seed = seed_from(deal.secret, deal.peer_secret, deal.match_id)
        self._match_id = deal.match_id
        self.core = GameCore(
            Match(seed, cfg.target, (self.name, self.peer_name)), 0, deal.match_id, cfg.max_games
        )
        if self.private:
            self.core.private = PrivateDeck(self.core)
        self._deal_resumed = True

    def _send_setup(self) -> None:
        c = self.core
        cfg = self.config
        if c is None and self.deal is not None:  # go on with the deal held
            self._match_id = self.deal.match_id
            self.seed_from_host = False
            names = (self.name, self.peer_name)
            self._send(Setup(self._match_id, None, cfg.target, cfg.max_games, names, False, self._private()))
            self._start_commit()
            return
        if c is None:
            self._match_id = secrets.token_bytes(MATCH_ID_BYTES)
            self.seed_from_host = cfg.seed is not None
            names = (self.name, self.peer_name)
            private = self._private()
            self._send(Setup(self._match_id, cfg.seed, cfg.target, cfg.max_games, names, False, private))
            if cfg.seed is None:
                self._start_commit()
            else:
                self._make_core(cfg.seed, cfg.target, cfg.max_games, (self.name, self.peer_name))
        else:
            m = c.match
            # the seed is not sent: the joiner's record has it (and proved so)
            names = (m.players[0], m.players[1])
            self._send(Setup(c.match_id, None, m.target, c.max_games, names, True, self._private()))
            self._start_sync()

    def _private(self) -> bool:
        """The setup's ``private``: a private-deck match (the key is sent only when true)."""
        return self.private if self.core is None else self.core.private is not None

    def _on_setup(self, msg: Setup) -> None:
        offered = msg.private
        if self.config.private and not offered:
            raise RemoteProtocolError(
                "the host does not offer a private-deck match (without --private: play its seeded deal)",
                Refusal.NOT_PRIVATE,
            )
        self.private = offered
        match_id, seed, target, games, players, resume = (
            msg.match,
            msg.seed,
            msg.target,
            msg.games,
            msg.players,
            msg.resume,
        )
        c = self.core
        self._match_id = match_id
        if c is None:
            if resume:
                raise RemoteProtocolError(
                    "the host is resuming a match this side does not have (join with --resume RECORD)",
                    Refusal.NO_MATCH,
                )
            deal = self.deal
            if deal is not None and (match_id != deal.match_id or seed is not None):
                if deal.revealed:
                    raise RemoteProtocolError(
                        "the host started another match after it had this side's half of the seed",
                        Refusal.OTHER_MATCH,
                    )
                self.deal = None  # nothing was revealed: a new match is fine
            self.seed_from_host = seed is not None
            # The names are the ones the two hellos gave: a host cannot rename this player
            # in its own record (nor itself: both records must be the same).
            names = (self.peer_name, self.name)
            if players[1] != names[1] or clean_text(players[0], MAX_NAME) != names[0]:
                raise RemoteProtocolError(
                    "setup: the players are not the two names the hellos gave", Refusal.MALFORMED
                )
            if seed is None:
                self._pending_setup = (target, games, names)
                self._start_commit()
            else:
                self._make_core(seed, target, games, names)
        else:
            if not resume or match_id != c.match_id:
                raise RemoteProtocolError("the host is playing a different match", Refusal.OTHER_MATCH)
            self._deal_resumed = self.deal is not None and self.deal.match_id == match_id
            if target != c.match.target or games != c.max_games or offered != (c.private is not None):
                raise RemoteProtocolError(
                    "the host's match settings differ from this side's record", Refusal.OTHER_MATCH
                )
            # the names are the record's (setup.players is not used)
            self._start_sync()

    def _start_commit(self) -> None:
        """Commit to our half of the seed: the same half, for the same match, on every
        connection (a deal is never drawn again once someone may know it)."""
        self.phase = Phase.SEED
        deal = self.deal
        if deal is None or deal.match_id != self._match_id:
            secret = secrets.token_bytes(32)
            deal = self.deal = Deal(self._match_id, secret, commitment(self.role, secret, self._match_id))
        self._send(Commit(deal.commit))

    def _on_commit(self, msg: Commit) -> None:
        deal = self.deal
        assert deal is not None
        if self._peer_commit:
            raise RemoteProtocolError("a second commitment", Refusal.UNEXPECTED)
        c = msg.c
        if hmac.compare_digest(c, deal.commit):
            raise RemoteProtocolError("the peer echoed our commitment", Refusal.ECHO)
        if deal.peer_commit is not None and not hmac.compare_digest(c, deal.peer_commit):
            raise RemoteProtocolError(
                "the peer changed its commitment: this match's deal is fixed", Refusal.BAD_REVEAL
            )
        self._peer_commit = deal.peer_commit = c
        if self.role == JOIN:  # the joiner reveals first; the host only once it has the joiner's
            deal.revealed = True
            self._send(Reveal(deal.secret))

    def _on_reveal(self, msg: Reveal) -> None:
        deal = self.deal
        assert deal is not None
        if not self._peer_commit or (self.role == JOIN and not deal.revealed):
            raise RemoteProtocolError("a reveal before its commitment", Refusal.UNEXPECTED)
        r = msg.r
        if not hmac.compare_digest(commitment(self.peer_role, r, self._match_id), self._peer_commit):
            raise RemoteProtocolError("the peer's reveal does not match its commitment", Refusal.BAD_REVEAL)
        deal.peer_secret = r
        if self.role == HOST:
            deal.revealed = True
            self._send(Reveal(deal.secret))
        host_r, join_r = (deal.secret, r) if self.role == HOST else (r, deal.secret)
        seed = seed_from(host_r, join_r, self._match_id)
        if self.role == HOST:
            cfg = self.config
            self._make_core(seed, cfg.target, cfg.max_games, (self.name, self.peer_name))
        else:
            target, games, names = self._pending_setup
            self._make_core(seed, target, games, names)

    def _make_core(self, seed: bytes, target: int, games: int | None, names: tuple[str, str]) -> None:
        match = Match(seed, target, names)
        self.core = GameCore(match, 0 if self.role == HOST else 1, self._match_id, games)
        if self.private:
            self.core.private = PrivateDeck(self.core)
        self._start_sync()

    def _start_sync(self) -> None:
        c = self.core
        assert c is not None
        self.phase = Phase.SYNC
        self._send(Sync(c.position, c.head))

    def _on_sync(self, msg: Sync) -> None:
        c = self.core
        assert c is not None
        pos, hist = msg.pos, msg.hist
        mine = c.position
        if self.seed_from_host is not None and pos != 0:  # a new match
            raise RemoteProtocolError(f"a new match starts at action 0, not {pos}", Refusal.POSITION)
        if pos < c.window_start:
            raise RemoteProtocolError(
                f"too far behind to catch up: {self.peer_name or 'the peer'} has {pos} actions, and "
                f"{self.name or 'this side'} keeps only those from action {c.window_start} on "
                f"(game {c.actions[c.window_start].game} and later)",
                Refusal.BEHIND,
            )
        if pos <= mine and not hmac.compare_digest(c.history[pos], hist):
            raise RemoteProtocolError(
                f"the two histories disagree (the peer has {pos} actions, this side {mine})", Refusal.HISTORY
            )
        self.phase = Phase.PLAY
        self._resumed_at = min(pos, mine)
        if pos > mine:
            self._catch_up_to = (pos, hist)
        self._sent_upto = max(self._sent_upto, pos)
        origin = False if self._deal_resumed else self.seed_from_host  # a deal held whole: both drew it
        if self._adopted_origin is not None:
            origin = self._adopted_origin
        self._events.append(Handshaken(self.peer_name, origin, self._resumed_at, pos))
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
                f"{self.peer_name or 'the peer'} sent an illegal move: {e.reason}", Refusal.ILLEGAL_MOVE
            ) from None
        if author == peer and tag is None:
            raise RemoteProtocolError(f"{msg.T}: a is missing (the author's tag)", Refusal.MALFORMED)
        if author == me:
            catching_up = self._catch_up_to is not None and n < self._catch_up_to[0]
            if not catching_up or tag is None or not c.tag_is_ours(action, tag):
                raise RemoteProtocolError(
                    f"an action for this side's turn (action {n}) that this side did not make", Refusal.FORGED
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
        self._unacked = n
        self._events.append(ActionReceived(n, done, tag))

    def _on_resign_request(self, msg: ResignRequest) -> None:
        """The peer, off turn, resigns ``g``: if we are on turn in that game, its resignation
        is our next action; if the game is over (the request crossed its end) or the turn has
        passed to the peer (it will resign itself), there is nothing to do."""
        c = self.core
        assert c is not None
        game = msg.g
        g = c.match.game
        if game > g.game:
            raise RemoteProtocolError(
                f"a resignation request for game {game} during game {g.game}", Refusal.SEQUENCE
            )
        if c.finished or game < g.game or g.result is not None or g.turn != c.seat:
            return
        if c.private is not None and not c.private.resign_requested(game):
            return  # our announced move first: the deck makes the resignation due after it
        self._events.append(ActionDue(c.check_resign(1 - c.seat, c.seat)))

    def _on_ack(self, msg: Ack) -> None:
        c = self.core
        assert c is not None
        if msg.n > c.position:
            raise RemoteProtocolError(f"ack: n must be an integer in 0..{c.position}", Refusal.MALFORMED)
        self._events.append(Acked(msg.n))

    def _on_deck(self, msg: Deck) -> None:
        c = self.core
        assert c is not None
        if c.private is None:
            raise RemoteProtocolError("a private-deck message in a seeded match", Refusal.UNEXPECTED)
        c.private.on_deck(msg.body)

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
    Hello: (frozenset({Phase.HELLO}), Endpoint._on_hello),
    Auth: (frozenset({Phase.AUTH}), Endpoint._on_auth),
    Proof: (frozenset({Phase.PROOF}), Endpoint._on_proof),
    Setup: (frozenset({Phase.SETUP}), Endpoint._on_setup),
    Commit: (frozenset({Phase.SEED}), Endpoint._on_commit),
    Reveal: (frozenset({Phase.SEED}), Endpoint._on_reveal),
    Sync: (frozenset({Phase.SYNC}), Endpoint._on_sync),
    MoveAction: (_PLAYING, Endpoint._on_action),
    ResignAction: (_PLAYING, Endpoint._on_action),
    ResignRequest: (_PLAYING, Endpoint._on_resign_request),
    Ack: (_PLAYING, Endpoint._on_ack),
    Chat: (_PLAYING, Endpoint._on_chat),
    Deck: (_PLAYING, Endpoint._on_deck),
    Ping: (_AFTER_HELLO, Endpoint._on_ping),
    Pong: (_AFTER_HELLO, Endpoint._on_pong),
    Bye: (_AFTER_HELLO, Endpoint._on_bye),
    Refuse: (frozenset(Phase), Endpoint._on_refuse),
}
assert set(_HANDLERS) == set(MESSAGES.values())
# what may come while the peer catches us up: the actions it claimed to have (and liveness)
_CATCH_UP_TYPES: frozenset[type[Message] | None] = frozenset(
    {MoveAction, ResignAction, Deck, Ping, Pong, Refuse, Bye}
)
