"""One connection's handshake, with no I/O (docs/protocol.md, "The handshake").

Hello, the proof that a returning peer holds the match, the host's setup, the
commit-reveal of the seed and the comparison of histories.  A join code is never
checked here: a connection with one reached ``hello`` through the opening (SPAKE2 on
the code, net/opening.py) or the internet's meeting (tunnel/), inside the sealed
channel.  The path a handshake takes is decided once, as a :class:`Route`: the
host's on the joiner's hello (what it holds and what the hello names), the joiner's
when the setup comes.  The :class:`~p2p_spite.core.protocol.Endpoint`
owns the connection and hands each handshake message to :class:`Handshake`, which
sends through the endpoint and, at the sync, gives it the peer's position.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Final

from ..contracts.plaintext import MAX_NAME
from ..engine import DEFAULT_TARGET, Match
from .game import GameCore
from .keys import commitment, proof_mac, resume_key, seed_from
from .messages import (
    HOST,
    JOIN,
    MATCH_ID_BYTES,
    NONCE_BYTES,
    Commit,
    Hello,
    Message,
    Proof,
    Reveal,
    Role,
    Setup,
    Sync,
    clean_text,
)
from .private import PrivateDeck
from .wire import Refusal, RemoteProtocolError

PROTOCOL_VERSION: Final = 2


class Phase(Enum):
    HELLO = "hello"  # waiting for the peer's hello
    PROOF = "proof"  # a returning joiner and the host prove they hold the match
    SETUP = "setup"  # the joiner waits for the host's match settings
    SEED = "seed"  # commit-reveal of the two halves of the seed
    SYNC = "sync"  # comparing histories (position + hash)
    PLAY = "play"
    AGAIN = "again"  # both said yes to another match: reading up to the peer's next hello
    CLOSED = "closed"


class SeedOrigin(StrEnum):
    """Who chose a match's seed: the host (its setup sent it), or both (commit-reveal).
    The same words as a record's ``seed_by``."""

    HOST = "host"
    BOTH = "both"


class Route(Enum):
    """The path of one handshake, decided once."""

    SEEDED = "seeded"  # a new match on the host's seed (sent in the setup)
    DRAWN = "drawn"  # a new match, its seed drawn by both (commit-reveal)
    # a deal agreed on a cut connection whose seed the joiner has not seen: the exchange
    # again, with the same commitments
    DEAL = "deal"
    # a deal whose seed both may know (the host holds it whole): the joiner proves it
    # has the seed, like any returning joiner
    DEAL_WHOLE = "deal-whole"
    RESUMED = "resumed"  # a match both hold (its record): each proves it
    ADOPTED = "adopted"  # the host: a seeded match a cut first handshake agreed

    @property
    def new(self) -> bool:
        """A match that starts at action 0 (its setup sends the settings)."""
        return self in (Route.SEEDED, Route.DRAWN, Route.DEAL)

    @property
    def seed_by(self) -> SeedOrigin | None:
        """Who chose the seed, as the setup said it; None: a match both already hold
        (its record says)."""
        return _SETUP_SAYS.get(self)

    @property
    def origin(self) -> SeedOrigin | None:
        """Who chose the seed, as the handshake knows it when it ends (None: the record says)."""
        return _KNOWN_AT_END.get(self)


_SETUP_SAYS: Final = {
    Route.SEEDED: SeedOrigin.HOST,
    Route.DRAWN: SeedOrigin.BOTH,
    Route.DEAL: SeedOrigin.BOTH,
}
_KNOWN_AT_END: Final = _SETUP_SAYS | {Route.DEAL_WHOLE: SeedOrigin.BOTH, Route.ADOPTED: SeedOrigin.HOST}


@dataclass(frozen=True, slots=True)
class Agreed:
    """What both agreed to play again (docs/protocol.md, *Playing again*): a later match
    on the same connection has the first one's target, game limit, names (host, joiner)
    and deck, and its seed drawn by both."""

    target: int
    games: int | None
    names: tuple[str, str]
    private: bool
    played: frozenset[bytes] = frozenset()  # the ids of the matches played on the connection

    @classmethod
    def of(cls, core: GameCore) -> Agreed:
        m = core.match
        names = (m.players[0], m.players[1])
        return cls(m.target, core.max_games, names, core.private is not None, frozenset({core.match_id}))


@dataclass(slots=True)
class LocalConfig:
    role: Role
    name: str
    # the host's match settings (ignored on the joiner):
    seed: bytes | None = None  # None: commit-reveal
    target: int = DEFAULT_TARGET
    max_games: int | None = None
    # the host: offer a private-deck match; the joiner: insist on one (docs/fairness.md)
    private: bool = False
    protocol_version: int = PROTOCOL_VERSION  # tests may pretend to be another version
    # a later match on the same connection: what both agreed to (None: the first match)
    again: Agreed | None = None


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


@dataclass(frozen=True, slots=True)
class NewSettings:
    """The joiner: a drawn seed's match settings, from the setup, until the seed is known."""

    target: int
    games: int | None
    names: tuple[str, str]


class Handshake:
    """The handshake's side of one connection.  ``core``: the match this side holds
    (None: a new one, or a deal only); ``deal``: the seed agreement it holds; the host's
    ``held_deal``/``held_core`` are asked when a joiner says hello.  ``send`` queues a
    message; ``random_bytes`` draws the nonce, a new match's id and this side's half of
    the seed."""

    def __init__(
        self,
        config: LocalConfig,
        core: GameCore | None,
        deal: Deal | None,
        held_deal: Callable[[], Deal | None] | None,
        held_core: Callable[[], GameCore | None] | None,
        send: Callable[[Message], None],
        random_bytes: Callable[[int], bytes] = secrets.token_bytes,
    ) -> None:
        if config.role not in (HOST, JOIN):
            raise ValueError(f"role must be {HOST!r} or {JOIN!r}")
        self.config = config
        self.role = Role(config.role)
        self.peer_role = Role.JOIN if self.role is Role.HOST else Role.HOST
        self.core = core
        self.phase = Phase.HELLO
        self.name = clean_text(config.name[:MAX_NAME], MAX_NAME)  # as the peer will see it
        self.peer: Hello | None = None  # the peer's hello
        self.route: Route | None = None  # decided once: see Route
        self.deal = deal  # the seed agreement (the caller keeps it across connections)
        self.match_id = core.match_id if core is not None else b""
        self.private = config.private if self.role is Role.HOST else False  # the match has a private deck
        self._send = send
        self._random = random_bytes
        self._nonce = random_bytes(NONCE_BYTES)
        self._held_deal = held_deal
        self._held_core = held_core
        self._settings: NewSettings | None = None  # the joiner, a drawn seed's match
        self._peer_commit = b""

    @property
    def peer_name(self) -> str:
        return self.peer.name if self.peer is not None else ""

    @property
    def seed_by(self) -> SeedOrigin | None:
        """What the setup said of the seed (None: not yet, or a match both already hold)."""
        return self.route.seed_by if self.route is not None else None

    def hello(self) -> Hello:
        """This side's hello."""
        c = self.core
        returning = None  # only a returning joiner names the match; the host never tells it to a stranger
        if self.role is Role.JOIN:
            returning = c.match_id if c is not None else self.deal.match_id if self.deal is not None else None
        return Hello(
            self.config.protocol_version,
            self.role,
            self.name,
            self._nonce,
            False,  # (no code is checked in the handshake: see on_hello)
            returning,
            # a joiner returning to a deal it has not seen the seed of: the exchange again
            self.role is Role.JOIN and c is None and self.deal is not None,
            watchers=self.role is Role.JOIN,  # the joiner's toolbar shows how many watch
        )

    # -- hello ----------------------------------------------------------------------

    def on_hello(self, msg: Hello) -> None:
        self.peer = msg
        # No code is checked inside: a hello that asks for one is of a peer that would
        # check it here (docs/protocol.md, *The handshake*, 2), which this version never does.
        if msg.code and self.role is Role.HOST:
            raise RemoteProtocolError(
                "this host does not use a join code (join without --code)", Refusal.NO_CODE
            )
        if msg.code:
            raise RemoteProtocolError(
                "the host needs a join code: join with --code CODE", Refusal.CODE_NEEDED
            )
        agreed = self.config.again
        if self.role is Role.HOST and agreed is not None and self.peer_name != agreed.names[1]:
            raise RemoteProtocolError(
                f"hello: the joiner is {agreed.names[1]!r} in the match agreed, not {self.peer_name!r}",
                Refusal.NOT_AGREED,
            )
        if self.role is Role.HOST:
            self.route = self._host_route()
            if self.route is Route.DEAL_WHOLE:
                self._core_from_deal()
        if self.core is not None:  # a returning joiner: both prove they hold the match before anything else
            self.phase = Phase.PROOF
            if self.role is Role.JOIN:
                self._send_proof()
            return
        if self.role is Role.JOIN:
            self.phase = Phase.SETUP
            return
        self._send_setup()

    def _nonces(self) -> tuple[bytes, bytes]:
        peer = self.peer.nonce if self.peer is not None else b""
        return (self._nonce, peer) if self.role is Role.HOST else (peer, self._nonce)

    def _host_route(self) -> Route:
        """The host's route, from what it holds and what the joiner's hello names.  A
        stranger never gets this far at a host with a code (the code is the opening's): it
        must not learn whether a match is in progress."""
        hello = self.peer
        assert hello is not None
        named = hello.match
        if self.core is None and self._held_core is not None:
            held_core = self._held_core()
            if held_core is not None and named == held_core.match_id:
                self.core = held_core  # the joiner comes back to it: it proves it holds it
                return Route.ADOPTED
        if self.deal is None and self._held_deal is not None:
            self.deal = self._held_deal()
        deal = self.deal
        if self.core is None and deal is not None:
            if named == deal.match_id:
                if hello.deal:
                    return Route.DEAL  # the seed exchange again, with the same commitments
                if deal.peer_secret is not None:
                    return Route.DEAL_WHOLE  # the joiner has the seed: it proves it
            if named is None and not deal.fixed:
                self.deal = deal = None  # nobody can know that deal: a new one
        if self.core is None and deal is not None and deal.fixed and named is None:
            raise RemoteProtocolError(
                "this host is waiting for the joiner that left after the deal was fixed", Refusal.SEAT_TAKEN
            )
        held = self.core.match_id if self.core is not None else None
        if named == held:
            if self.core is not None:
                return Route.RESUMED
            return Route.DRAWN if self.config.seed is None else Route.SEEDED
        if held is None:
            raise RemoteProtocolError(
                "this host has no match to continue (join without --resume)", Refusal.NO_MATCH
            )
        if named is None:
            raise RemoteProtocolError(
                "this host is in a match already (to continue it, join with --resume RECORD)",
                Refusal.SEAT_TAKEN,
            )
        raise RemoteProtocolError("this host is playing a different match", Refusal.OTHER_MATCH)

    # -- proof, setup --------------------------------------------------------------

    def _send_proof(self) -> None:
        c = self.core
        assert c is not None
        key = resume_key(c.match.seed, c.match_id)
        self._send(Proof(proof_mac(key, self.role, *self._nonces())))

    def on_proof(self, msg: Proof) -> None:
        c = self.core
        assert c is not None
        key = resume_key(c.match.seed, c.match_id)
        if not hmac.compare_digest(msg.mac, proof_mac(key, self.peer_role, *self._nonces())):
            raise RemoteProtocolError("the peer cannot prove it holds this match", Refusal.BAD_PROOF)
        if self.role is Role.JOIN:
            self.phase = Phase.SETUP
            return
        self._send_proof()  # only now: a stranger learns nothing it could test
        self._send_setup()

    def _core_from_deal(self) -> None:
        """The host rebuilds the match of a deal it holds whole (the joiner may have seen the
        seed, and comes back proving it like any returning joiner)."""
        deal = self.deal
        assert deal is not None and deal.peer_secret is not None
        cfg = self.config
        seed = seed_from(deal.secret, deal.peer_secret, deal.match_id)
        self.match_id = deal.match_id
        self.core = GameCore(
            Match(seed, cfg.target, (self.name, self.peer_name)), 0, deal.match_id, cfg.max_games
        )
        if self.private:
            self.core.private = PrivateDeck(self.core)

    def _send_setup(self) -> None:
        c, cfg, route = self.core, self.config, self.route
        names = (self.name, self.peer_name)
        if c is not None:
            m = c.match
            # the seed is not sent: the joiner's record has it (and proved so)
            names = (m.players[0], m.players[1])
            self._send(Setup(c.match_id, None, m.target, c.max_games, names, True, c.private is not None))
            self._start_sync()
        elif route is Route.DEAL:  # go on with the deal held
            assert self.deal is not None
            self.match_id = self.deal.match_id
            self._send(Setup(self.match_id, None, cfg.target, cfg.max_games, names, False, self.private))
            self._start_commit()
        else:
            self.match_id = self._random(MATCH_ID_BYTES)
            self._send(Setup(self.match_id, cfg.seed, cfg.target, cfg.max_games, names, False, self.private))
            if cfg.seed is None:
                self._start_commit()
            else:
                self._make_core(cfg.seed, cfg.target, cfg.max_games, names)

    def on_setup(self, msg: Setup) -> None:
        if self.config.again is not None:
            _check_agreed(msg, self.config.again)
        if self.config.private and not msg.private:
            raise RemoteProtocolError(
                "the host does not offer a private-deck match (without --private: play its seeded deal)",
                Refusal.NOT_PRIVATE,
            )
        self.private = msg.private
        c = self.core
        self.match_id = msg.match
        if c is not None:
            if not msg.resume or msg.match != c.match_id:
                raise RemoteProtocolError("the host is playing a different match", Refusal.OTHER_MATCH)
            resumed_deal = self.deal is not None and self.deal.match_id == msg.match
            self.route = Route.DEAL_WHOLE if resumed_deal else Route.RESUMED
            if (
                msg.target != c.match.target
                or msg.games != c.max_games
                or msg.private != (c.private is not None)
            ):
                raise RemoteProtocolError(
                    "the host's match settings differ from this side's record", Refusal.OTHER_MATCH
                )
            self._start_sync()  # the names are the record's (setup.players is not used)
            return
        if msg.resume:
            raise RemoteProtocolError(
                "the host is resuming a match this side does not have (join with --resume RECORD)",
                Refusal.NO_MATCH,
            )
        deal = self.deal
        if deal is not None and (msg.match != deal.match_id or msg.seed is not None):
            if deal.revealed:
                raise RemoteProtocolError(
                    "the host started another match after it had this side's half of the seed",
                    Refusal.OTHER_MATCH,
                )
            self.deal = None  # nothing was revealed: a new match is fine
        # The names are the ones the two hellos gave: a host cannot rename this player
        # in its own record (nor itself: both records must be the same).
        names = (self.peer_name, self.name)
        if msg.players[1] != names[1] or clean_text(msg.players[0], MAX_NAME) != names[0]:
            raise RemoteProtocolError(
                "setup: the players are not the two names the hellos gave", Refusal.MALFORMED
            )
        if msg.seed is None:
            self.route = Route.DEAL if self.deal is not None else Route.DRAWN
            self._settings = NewSettings(msg.target, msg.games, names)
            self._start_commit()
        else:
            self.route = Route.SEEDED
            self._make_core(msg.seed, msg.target, msg.games, names)

    # -- the seed ------------------------------------------------------------------

    def _start_commit(self) -> None:
        """Commit to our half of the seed: the same half, for the same match, on every
        connection (a deal is never drawn again once someone may know it)."""
        self.phase = Phase.SEED
        deal = self.deal
        if deal is None or deal.match_id != self.match_id:
            secret = self._random(32)
            deal = self.deal = Deal(self.match_id, secret, commitment(self.role, secret, self.match_id))
        self._send(Commit(deal.commit))

    def on_commit(self, msg: Commit) -> None:
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
        if self.role is Role.JOIN:  # the joiner reveals first; the host only once it has the joiner's
            deal.revealed = True
            self._send(Reveal(deal.secret))

    def on_reveal(self, msg: Reveal) -> None:
        deal = self.deal
        assert deal is not None
        if not self._peer_commit or (self.role is Role.JOIN and not deal.revealed):
            raise RemoteProtocolError("a reveal before its commitment", Refusal.UNEXPECTED)
        r = msg.r
        if not hmac.compare_digest(commitment(self.peer_role, r, self.match_id), self._peer_commit):
            raise RemoteProtocolError("the peer's reveal does not match its commitment", Refusal.BAD_REVEAL)
        deal.peer_secret = r
        if self.role is Role.HOST:
            deal.revealed = True
            self._send(Reveal(deal.secret))
        host_r, join_r = (deal.secret, r) if self.role is Role.HOST else (r, deal.secret)
        seed = seed_from(host_r, join_r, self.match_id)
        if self.role is Role.HOST:
            cfg = self.config
            self._make_core(seed, cfg.target, cfg.max_games, (self.name, self.peer_name))
        else:
            s = self._settings
            assert s is not None
            self._make_core(seed, s.target, s.games, s.names)

    def _make_core(self, seed: bytes, target: int, games: int | None, names: tuple[str, str]) -> None:
        match = Match(seed, target, names)
        self.core = GameCore(match, 0 if self.role is Role.HOST else 1, self.match_id, games)
        if self.private:
            self.core.private = PrivateDeck(self.core)
        self._start_sync()

    # -- the histories -------------------------------------------------------------

    def _start_sync(self) -> None:
        c = self.core
        assert c is not None
        self.phase = Phase.SYNC
        self._send(Sync(c.position, c.head))

    def check_sync(self, msg: Sync) -> GameCore:
        """The peer's position and history: do they line up with ours?  (The endpoint
        then goes on to play.)"""
        c = self.core
        assert c is not None and self.route is not None
        pos, mine = msg.pos, c.position
        if self.route.new and pos != 0:
            raise RemoteProtocolError(f"a new match starts at action 0, not {pos}", Refusal.POSITION)
        if pos < c.window_start:
            raise RemoteProtocolError(
                f"too far behind to catch up: {self.peer_name or 'the peer'} has {pos} actions, and "
                f"{self.name or 'this side'} keeps only those from action {c.window_start} on "
                f"(game {c.actions[c.window_start].game} and later)",
                Refusal.BEHIND,
            )
        if pos <= mine and not hmac.compare_digest(c.history[pos], msg.hist):
            raise RemoteProtocolError(
                f"the two histories disagree (the peer has {pos} actions, this side {mine})", Refusal.HISTORY
            )
        return c


def _check_agreed(msg: Setup, agreed: Agreed) -> None:
    """The joiner: a later match's setup is the match both agreed to play again, its seed
    to be drawn by both (RemoteProtocolError ``not-agreed`` otherwise, before any deal)."""
    wrong = ""
    deck = {True: "private", False: "seeded"}
    names = (clean_text(msg.players[0], MAX_NAME), msg.players[1])
    if msg.resume:
        wrong = "it resumes a match; the next one is a new match"
    elif msg.match in agreed.played:
        wrong = "the id of a match played already; the next one is a new match"
    elif msg.seed is not None:
        wrong = "the host chose the seed; a later match's seed is drawn by both"
    elif msg.private != agreed.private:
        wrong = f"a {deck[msg.private]} deck; the match agreed has a {deck[agreed.private]} one"
    elif msg.target != agreed.target:
        wrong = f"target {msg.target}; the match agreed has target {agreed.target}"
    elif msg.games != agreed.games:
        wrong = f"{_limit(msg.games)}; the match agreed has {_limit(agreed.games)}"
    elif names != agreed.names:
        wrong = f"players {list(names)}; the match agreed has {list(agreed.names)}"
    if wrong:
        raise RemoteProtocolError(f"setup: {wrong}", Refusal.NOT_AGREED)


def _limit(games: int | None) -> str:
    if games is None:
        return "no game limit"
    return f"a limit of {games} game" if games == 1 else f"a limit of {games} games"
