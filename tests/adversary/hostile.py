"""A scripted malicious peer speaking the real protocol over a blocking socket (host or
joiner side): every message is written by hand, so a test can lie where it wants
(a sync position, a seat, a tag, the order of the seed exchange).  Bounded waits only."""

from __future__ import annotations

import contextlib
import os
import socket
import time
from typing import Any

from p2p_spite.core.game import Action, GameCore
from p2p_spite.core.keys import commitment, proof_mac, resume_key, seed_from
from p2p_spite.core.protocol import PROTOCOL_VERSION
from p2p_spite.core.wire import FrameDecoder, encode
from p2p_spite.engine import Match, Move

ADDR = "127.0.0.1"


class Closed(Exception):
    """The honest side closed the connection."""


class Hostile:
    """One connection, as a hand-written peer sees it."""

    def __init__(self, sock: socket.socket, role: str, name: str = "mallory", timeout: float = 15.0) -> None:
        self.sock = sock
        self.role = role
        self.name = name
        self.deadline = time.monotonic() + timeout
        self.dec = FrameDecoder()
        self.got: list[dict[str, Any]] = []  # every message received, in order
        self.core: GameCore | None = None  # our copy of the match, once agreed

    @classmethod
    def dial(cls, port: int, **kw: Any) -> Hostile:
        return cls(socket.create_connection((ADDR, port), timeout=10), "join", **kw)

    @classmethod
    def accept(cls, server: socket.socket, **kw: Any) -> Hostile:
        server.settimeout(20)
        conn, _ = server.accept()
        return cls(conn, "host", **kw)

    def send(self, msg: dict[str, Any]) -> None:
        """Send ``msg`` (nothing if the honest side has already closed: it refused us)."""
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.sock.sendall(encode(msg))

    def recv(self) -> dict[str, Any]:
        while True:
            m = self.dec.next_message()
            if m is not None:
                self.got.append(m)
                return m
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the honest side said nothing in time")
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except ConnectionError:
                data = b""
            if not data:
                raise Closed("the honest side closed the connection")
            self.dec.feed(data)

    def expect(self, t: str) -> dict[str, Any]:
        """The next message of type ``t`` (pings skipped); AssertionError on another."""
        while True:
            m = self.recv()
            if m["t"] in ("ping", "pong"):
                continue
            assert m["t"] == t, f"expected {t!r}, got {m}"
            return m

    def refusal(self) -> dict[str, Any] | None:
        """Read until the honest side refuses or closes: its refuse message, if any."""
        try:
            while True:
                m = self.recv()
                if m["t"] == "refuse":
                    return m
        except (Closed, TimeoutError):
            return next((m for m in self.got if m["t"] == "refuse"), None)

    def close(self) -> None:
        self.sock.close()

    # -- the honest steps, by hand ---------------------------------------------------------

    def hello(self, match: bytes | None = None, **extra: Any) -> dict[str, Any]:
        self.nonce = os.urandom(16)
        self.send(
            {"t": "hello", "proto": PROTOCOL_VERSION, "app": "p2p-spite", "role": self.role,
             "name": self.name, "nonce": self.nonce, "code": False, "match": match, **extra}
        )  # fmt: skip
        self.peer_hello = self.expect("hello")
        return self.peer_hello

    def come_back(self) -> dict[str, Any]:
        """As a joiner returning to our match (``core``): hello with its id, our proof, the
        host's proof; returns the host's setup (the host's sync comes next)."""
        c = self.core
        assert c is not None
        self.hello(match=c.match_id)
        nonces = (self.peer_hello["nonce"], self.nonce)
        self.send({"t": "proof", "mac": proof_mac(resume_key(c.match.seed, c.match_id), "join", *nonces)})
        self.expect("proof")
        return self.expect("setup")

    def make_core(self, seed: bytes, match_id: bytes, names: tuple[str, str], target: int = 50) -> GameCore:
        seat = 1 if self.role == "join" else 0
        self.core = GameCore(Match(seed, target, names), seat, match_id, None)
        return self.core

    def join_seeded(self) -> dict[str, Any]:
        """As a joiner of a host that chose the seed: hello, then the host's setup (our core made)."""
        peer = self.hello()
        setup = self.expect("setup")
        assert setup["seed"] is not None, setup
        self.make_core(setup["seed"], setup["match"], (peer["name"], self.name), setup["target"])
        return setup

    def sync(self, pos: int | None = None, hist: bytes | None = None) -> dict[str, Any]:
        """Send our sync (a lie if ``pos``/``hist`` are given) and read the peer's."""
        c = self.core
        assert c is not None
        self.send({"t": "sync", "pos": c.position if pos is None else pos, "hist": hist or c.head})
        return self.expect("sync")

    def play_own(self, move: Move) -> None:
        """Make and send one of our own moves (with a tag of our own)."""
        c = self.core
        assert c is not None
        n = c.position
        c.apply(Action(c.match.game_number, move.seat, move))
        self.send({"t": "move", "n": n, "m": list(move), "d": c.digests[n], "a": b"\x5a" * 32})

    def receive_action(self) -> dict[str, Any]:
        """The honest side's next action, applied to our copy and acknowledged."""
        c = self.core
        assert c is not None
        while True:
            m = self.recv()
            if m["t"] in ("move", "resign"):
                break
        if m["t"] == "move":
            mv = Move(*m["m"])
            c.apply(Action(c.match.game_number, mv.seat, mv), tag=m["a"])
        else:
            c.apply(Action(m["g"], m["s"]), tag=m["a"])
        self.send({"t": "ack", "n": c.position})
        return m


def seed_exchange_as_joiner(peer: Hostile, setup: dict[str, Any]) -> tuple[bytes, bytes]:
    """Commit and reveal like an honest joiner; returns (our secret, the seed) once the host revealed."""
    secret = os.urandom(32)
    peer.send({"t": "commit", "c": commitment("join", secret, setup["match"])})
    host_commit = peer.expect("commit")["c"]
    peer.send({"t": "reveal", "r": secret})
    host_secret = peer.expect("reveal")["r"]
    assert commitment("host", host_secret, setup["match"]) == host_commit
    return secret, seed_from(host_secret, secret, setup["match"])


def listener() -> tuple[socket.socket, int]:
    s = socket.socket()
    s.bind((ADDR, 0))
    s.listen(4)
    return s, s.getsockname()[1]
