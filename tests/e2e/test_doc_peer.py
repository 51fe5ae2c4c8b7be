"""A peer written from the documents alone plays a two-game match against a real host.

Nothing from ``p2p_spite`` is used here but SPAKE2 and the sealed channel (the document
pins both with test vectors, see ``Sealed``): the opening, the frames, the messages, the join code,
the seed agreement, the state digest, the history hash and the record file are
made from docs/protocol.md (its "Byte-exact definitions") with a socket, msgpack
and hashlib; the rules are ``tests/reference_spec.py`` (written from SPEC alone).
The real host (``p2p-spite host --bot easy``) must accept every move it sends, and
let it take one move of each game back (*Taking back*), and its record file must be
byte for byte the one this peer writes (which holds only the moves that stand).
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
import re
import secrets
import socket
import time
from pathlib import Path
from typing import Any

import msgpack
import pytest

from p2p_spite.tunnel.channel import SealedChannel
from p2p_spite.tunnel.spake2 import Role, Spake2
from tests.core.test_protocol_vectors import DOC, history_root, move_key, resign_key, sha256, state_digest
from tests.reference_spec import RefGame
from tests.support.net import finish, read_code, reader, spawn, wait_listening

NAME = "Doc"
# the version the document describes (its title says it)
VERSION = int(re.findall(r"^# The p2p-spite network protocol \(version (\d+)\)$", DOC.read_text(), re.M)[0])
DEADLINE = 60.0  # seconds for the whole match (a game takes a second or two)


# docs/protocol.md, *The opening of a LAN connection with a join code*.  SPAKE2 (RFC 9382)
# and the sealed channel are the project's own (p2p_spite.tunnel): the document pins
# them with the RFC's vectors and its own, so a third party's are checkable; the opening
# around them (its bytes, w, the answer) is written here from the document.
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
LAN_AAD = b"p2p-spite lan v1|SPAKE2-P256-SHA256-HKDF-HMAC|scrypt N=16384 r=8 p=1"


def code_key(code: str) -> bytes:
    """The join code's key (docs/protocol.md, *The join code*)."""
    norm = "".join(c for c in code.upper() if c.isascii() and c.isalnum())
    return hashlib.pbkdf2_hmac("sha256", norm.encode(), b"p2p-spite/join-code/v1", 100_000, 32)


class Sealed:
    """A connection to a host with a join code, once its opening is through: the game
    protocol's bytes sealed and opened (``sendall``, ``recv``) as a socket's."""

    def __init__(self, port: int, key: bytes) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        salt = b"p2p-spite SPAKE2 w v1|lan"
        w = int.from_bytes(hashlib.scrypt(key, salt=salt, n=16384, r=8, p=1, dklen=40, maxmem=2**26), "big")
        pake = Spake2(Role.B, w % P256_ORDER, aad=LAN_AAD)
        self.sock.sendall(b"P2PLAN1|B" + pake.message)
        element = self._exactly(74)
        assert element[:9] == b"P2PLAN1|A", element
        self.sock.sendall(pake.receive(element[9:]))
        assert self._exactly(1) == b"\x01", "the host refused the code"
        ke = pake.confirm(self._exactly(32))
        self.ch = SealedChannel(ke, Role.B)
        self.sock.sendall(self.ch.data_to_send())
        self.pending = b""
        self.closed = False  # (shutdown: nothing more is sent)
        while not self.ch.established:
            chunk = self.sock.recv(65536)
            assert chunk, "the host closed the channel while it opened"
            self.pending += b"".join(self.ch.receive_data(chunk))
            self.sock.sendall(self.ch.data_to_send())

    def _exactly(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            assert chunk, "the host closed during the opening"
            out += chunk
        return out

    def settimeout(self, t: float) -> None:
        self.sock.settimeout(t)

    def sendall(self, data: bytes) -> None:
        if self.closed:  # as a socket after shutdown(SHUT_WR): a pong to a late ping
            raise BrokenPipeError("the channel is closed for sending")
        self.ch.send(data)
        self.sock.sendall(self.ch.data_to_send())

    def recv(self, _n: int) -> bytes:
        """The next opened bytes (b"" at the end)."""
        while not self.pending:
            chunk = self.sock.recv(65536)
            if not chunk:
                return b""
            self.pending = b"".join(self.ch.receive_data(chunk))
            if self.ch.peer_closed and not self.pending:
                return b""
        out, self.pending = self.pending, b""
        return out

    def shutdown(self, how: int) -> None:
        self.closed = True
        self.ch.close()
        self.sock.sendall(self.ch.data_to_send())
        self.sock.shutdown(how)

    def close(self) -> None:
        self.sock.close()


class DocPeer:
    """Frames and messages as docs/protocol.md describes them, over a sealed connection."""

    def __init__(self, sock: Sealed, deadline: float) -> None:
        self.sock = sock
        self.deadline = deadline
        self.buf = b""
        self.acked = 0
        self.closed = False

    def send(self, msg: dict[str, Any]) -> None:
        body = msgpack.packb(msg, use_bin_type=True)
        self.sock.sendall(len(body).to_bytes(4, "big") + body)

    def _read(self, n: int) -> bytes:
        while len(self.buf) < n:
            left = self.deadline - time.monotonic()
            assert left > 0, "the host did not answer in time"
            self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            if not chunk:
                self.closed = True
                raise ConnectionError("the host closed the connection")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self) -> dict[str, Any]:
        """The next message that matters (pings answered, acks counted, chat skipped)."""
        while True:
            size = int.from_bytes(self._read(4), "big")
            msg: dict[str, Any] = msgpack.unpackb(self._read(size), raw=False)
            t = msg["t"]
            if t == "refuse":
                raise AssertionError(f"the host refused: {msg['code']}: {msg['msg']}")
            if t == "ping":
                self.send({"t": "pong", "k": msg["k"]})
            elif t == "ack":
                self.acked = max(self.acked, msg["n"])
            elif t not in ("pong", "chat"):
                return msg

    def expect(self, t: str) -> dict[str, Any]:
        msg = self.recv()
        assert msg["t"] == t, msg
        return msg

    def expect_ack(self) -> int:
        """The next ``ack`` (pings answered): its n."""
        while True:
            size = int.from_bytes(self._read(4), "big")
            msg: dict[str, Any] = msgpack.unpackb(self._read(size), raw=False)
            if msg["t"] == "ping":
                self.send({"t": "pong", "k": msg["k"]})
            elif msg["t"] == "ack":
                self.acked = max(self.acked, msg["n"])
                return int(msg["n"])
            else:
                assert msg["t"] in ("pong", "chat"), msg


def action_tag(key: bytes, match_id: bytes, n: int, history_after: bytes) -> bytes:
    """The author's tag on action n (docs/protocol.md, "Who may make an action")."""
    return hmac.new(
        key, b"p2p-spite/action/v1|" + match_id + n.to_bytes(8, "big") + history_after, "sha256"
    ).digest()


def choose(g: RefGame, rng: random.Random) -> list[Any]:
    legal = g.moves()
    center = [m for m in legal if m[3] == "center"]
    payoff = [m for m in center if m[1] == "payoff"]
    if payoff:
        return payoff[0]
    if center and rng.random() < 0.85:
        return rng.choice(center)
    return rng.choice([m for m in legal if m[3] == "side"])


def record_text(rec: dict[str, Any]) -> str:
    """The record file's layout, from "The record file, byte for byte" (and, in a private
    match's version-2 record, docs/fairness.md's game keys after ``result``: one line each)."""
    lines = ["{"]
    keys = list(rec)
    for i, key in enumerate(keys):
        comma = "," if i < len(keys) - 1 else ""
        if key != "games":
            lines.append(f"  {json.dumps(key)}: {json.dumps(rec[key], ensure_ascii=False)}{comma}")
            continue
        lines.append('  "games": [')
        for gi, game in enumerate(rec["games"]):
            lines.append("    {")
            gkeys = list(game)
            for j, gk in enumerate(gkeys):
                gcomma = "," if j < len(gkeys) - 1 else ""
                moves = game[gk]
                if gk == "moves" and moves:
                    lines.append('      "moves": [')
                    lines.extend(
                        "        " + json.dumps(m) + ("," if mi < len(moves) - 1 else "")
                        for mi, m in enumerate(moves)
                    )
                    lines.append("      ]" + gcomma)
                else:
                    lines.append(f"      {json.dumps(gk)}: {json.dumps(game[gk])}{gcomma}")
            lines.append("    }" + ("," if gi < len(rec["games"]) - 1 else ""))
        lines.append("  ]" + comma)
    lines.append("}")
    return "\n".join(lines) + "\n"


def greet(peer: DocPeer, match: bytes | None) -> tuple[bytes, bytes]:
    """hello (both at once; the code was proven in the opening, so none to prove here).
    Returns (host nonce, joiner nonce)."""
    my_nonce = secrets.token_bytes(16)
    peer.send(
        {"t": "hello", "proto": VERSION, "app": "p2p-spite", "role": "join", "name": NAME,
         "nonce": my_nonce, "code": False, "match": match}
    )  # fmt: skip
    hello = peer.expect("hello")
    assert hello["role"] == "host" and hello["proto"] == VERSION and hello["match"] is None
    assert hello["code"] is False
    return hello["nonce"], my_nonce


def open_match(peer: DocPeer, key: bytes) -> tuple[dict[str, Any], bytes]:
    """A new match: hello, the setup, the fair seed, sync at 0.  Returns the setup and
    the seed."""
    greet(peer, None)
    setup = peer.expect("setup")
    match_id = setup["match"]
    assert setup["seed"] is None and setup["players"][1] == NAME
    s = secrets.token_bytes(32)
    peer.send({"t": "commit", "c": sha256(b"p2p-spite/commit/v1|join|" + match_id + s)})
    host_commit = peer.expect("commit")["c"]
    peer.send({"t": "reveal", "r": s})
    s_host = peer.expect("reveal")["r"]
    assert sha256(b"p2p-spite/commit/v1|host|" + match_id + s_host) == host_commit
    seed = sha256(b"p2p-spite/seed/v1|" + match_id + s_host + s)
    h = history_root(seed)
    peer.send({"t": "sync", "pos": 0, "hist": h})
    sync = peer.expect("sync")
    assert sync["pos"] == 0 and sync["hist"] == h
    return setup, seed


def leave(peer: DocPeer, sock: Sealed, acked: int) -> None:
    """The end: the sender of the last action waits for its ack (``acked``: that action's
    number + 1, else 0), then both say bye."""
    while peer.acked < acked:
        peer.recv()
    peer.send({"t": "bye", "reason": "match over"})
    sock.shutdown(socket.SHUT_WR)
    try:
        while True:
            peer.recv()  # the host's bye, then the end of the stream
    except ConnectionError:
        pass


def take_back(
    peer: DocPeer,
    g: RefGame,
    h: bytes,
    m: list[Any],
    n: int,
    game_no: int,
    starter: int,
    key: bytes,
    match_id: bytes,
) -> tuple[RefGame, bytes]:
    """Play ``m`` as action ``n``, ask to take it back (the host's computer allows), take it
    back with ``undo`` and wait for its ``ack``: the game and the history as they were."""
    before = copy.deepcopy(g)
    g.play(m)
    after = sha256(h + move_key(game_no, m))
    peer.send(
        {
            "t": "move",
            "n": n,
            "m": m,
            "d": state_digest(g, game_no, starter),
            "a": action_tag(key, match_id, n, after),
        }
    )
    peer.send({"t": "takeback", "n": n})
    assert peer.expect("takeback-answer") == {"t": "takeback-answer", "n": n, "ok": True}
    peer.send({"t": "undo", "n": n, "d": state_digest(before, game_no, starter)})
    assert peer.expect_ack() == n  # (its ack of the move came before its answer)
    return before, h


def play_as_joiner(port: int, code: str, cut_at: int | None = None) -> tuple[dict[str, Any], bytes, int]:
    """Join, agree on the seed, play the match to its end; return our record, the history hash
    and the moves taken back.
    ``cut_at``: once that many actions are played, after a host action that left it on turn, drop the
    connection and come back (a returning joiner: resume proof, sync, catch-up)."""
    deadline = time.monotonic() + DEADLINE
    key = code_key(code)
    sock = Sealed(port, key)
    peer = DocPeer(sock, deadline)
    try:
        setup, seed = open_match(peer, key)
        match_id, target, games = setup["match"], setup["target"], setup["games"]
        assert setup["resume"] is False
        h = history_root(seed)
        # play: seat 1 is us; our actions carry our tag, under a key that never leaves us
        action_key = secrets.token_bytes(32)
        rng = random.Random(7)
        host_at: tuple[int, bytes] | None = None  # the host's sync after a reconnect

        def come_back(n: int, h: bytes) -> tuple[int, bytes]:
            """A new connection for this match: proof, resumed setup, sync."""
            nonlocal sock, peer
            sock.close()  # abruptly: no bye
            sock = Sealed(port, key)  # a fresh opening: fresh SPAKE2 values, fresh channel nonces
            peer = DocPeer(sock, deadline)
            host_nonce, my_nonce = greet(peer, match_id)
            k = hmac.new(seed, b"p2p-spite/resume/v1|" + match_id, "sha256").digest()

            def proof(role: str) -> bytes:
                msg = b"p2p-spite/proof/v1|" + role.encode() + b"|" + host_nonce + my_nonce
                return hmac.new(k, msg, "sha256").digest()

            peer.send({"t": "proof", "mac": proof("join")})
            assert hmac.compare_digest(peer.expect("proof")["mac"], proof("host"))
            again = peer.expect("setup")
            assert again["resume"] is True and again["seed"] is None and again["match"] == match_id
            peer.send({"t": "sync", "pos": n, "hist": h})
            sync = peer.expect("sync")
            assert sync["pos"] >= n  # it was the host's turn: it may have played on
            return sync["pos"], sync["hist"]

        n = 0
        taken = 0
        scores = [0, 0]
        played: list[dict[str, Any]] = []
        game_no = 0
        last_was_ours = False
        while True:
            game_no += 1
            g = RefGame(seed, game_no)
            starter = g.turn
            moves: list[list[Any]] = []
            took_back = False  # once a game: a move played, taken back (*Taking back*), played anew
            while g.result is None:
                if g.turn == 1:
                    m = choose(g, rng)
                    # a move that shows no card: from the hand (not its last card) to a center it
                    # does not complete
                    quiet = m[1] == "hand" and m[3] == "center" and len(g.hand[1]) > 1
                    if not took_back and quiet and len(g.center[m[4]]) < 11:
                        took_back = True
                        taken += 1
                        g, h = take_back(peer, g, h, m, n, game_no, starter, action_key, match_id)
                        continue
                    g.play(m)
                    h = sha256(h + move_key(game_no, m))
                    tag = action_tag(action_key, match_id, n, h)
                    peer.send({"t": "move", "n": n, "m": m, "d": state_digest(g, game_no, starter), "a": tag})
                    last_was_ours = True
                else:
                    msg = peer.recv()
                    assert msg["t"] in ("move", "resign") and msg["n"] == n, msg
                    if msg["t"] == "resign":
                        assert msg["g"] == game_no and msg["s"] == 0
                        g.result = {"winner": 1, "points": len(g.payoff[0]), "reason": "resign"}
                        h = sha256(h + resign_key(game_no, 0))
                        m = None
                    else:
                        m = list(msg["m"])
                        assert m in g.moves(), m
                        g.play(m)
                        h = sha256(h + move_key(game_no, m))
                    assert msg["d"] == state_digest(g, game_no, starter), f"desync at action {n}"
                    peer.send({"t": "ack", "n": n + 1})
                    last_was_ours = False
                if m is not None:
                    moves.append(m)
                n += 1
                if host_at is not None and n == host_at[0]:
                    assert h == host_at[1], "the histories differ after the catch-up"
                    host_at = None
                if (
                    cut_at is not None
                    and n >= cut_at
                    and not last_was_ours
                    and g.turn == 0
                    and g.result is None
                ):
                    cut_at = None
                    host_at = come_back(n, h)
                    if host_at[0] == n:
                        assert h == host_at[1]
                        host_at = None
            played.append({"moves": moves, "result": g.result})
            if g.result["winner"] is not None:
                scores[g.result["winner"]] += g.result["points"]
            if max(scores) >= target or (games is not None and game_no >= games):
                break
        leave(peer, sock, n if last_was_ours else 0)
    finally:
        sock.close()
    record = {
        "format": "p2p-spite-record",
        "version": 1,
        "seed": seed.hex(),
        "players": setup["players"],
        "target": target,
        "games": played,
        "scores": scores,
        "match_id": match_id.hex(),
        "max_games": games,
        "join_key": key.hex(),
        "seed_by": "both",
    }
    return record, h, taken


def against_host(
    tmp_path: Path, games: int, cut_at: int | None = None, watched: bool = False
) -> tuple[dict[str, Any], str]:
    """Play a match against a real ``host --bot easy``; our record and the host's output.
    The host's record must be byte for byte ours.  ``watched``: a ``p2p-spite watch``
    watches it (the host counts it, and tells a joiner that asked: not us)."""
    host_record = tmp_path / "host.json"
    host = spawn(
        ["host", "--bind", "127.0.0.1", "--port", "0", "--bot", "easy", "--bot-seed", "3", "--name", "Ann",
         "--games", str(games), "--no-announce", "--record", str(host_record)],
        tmp_path,
    )  # fmt: skip
    try:
        port, _ = wait_listening(host)
        code = read_code(host)
        watcher = spawn(["watch", f"127.0.0.1:{port}", "--code", code], tmp_path) if watched else None
        if watcher is not None:
            reader(watcher).wait(r"^watching the match at ", 20)  # counted from the start of the match
        record, _, taken = play_as_joiner(port, code, cut_at)
        assert taken > 0, "no move was taken back"
    except BaseException:
        host.kill()  # it would wait for a joiner that behaves
        raise
    finally:
        rc, out, err = finish(host, 30)
        if watcher is not None:
            wrc, wout, werr = finish(watcher, 30)
    assert rc == 0, (out, err)
    if watcher is not None:
        assert wrc == 0 and "Watching Ann against Doc" in wout and "Traceback" not in werr, (wout, werr)
        # a piped watch says in words what it does (it said "in: the match ... is shown ...")
        assert f"watching the match at 127.0.0.1:{port}: each move is shown as it is played\n" in wout, wout
    assert host_record.read_text(encoding="utf-8") == record_text(record)
    return record, out


@pytest.mark.slow
def test_a_peer_written_from_the_documents_plays_a_game_with_the_real_host(tmp_path: Path) -> None:
    record, _ = against_host(tmp_path, games=2, watched=True)  # (the host never tells us of it)
    assert len(record["games"]) == 2  # the next game is dealt by each side after the first ends
    assert all(len(g["moves"]) > 20 and g["result"] is not None for g in record["games"])


@pytest.mark.slow
def test_the_documents_only_peer_comes_back_after_a_cut(tmp_path: Path) -> None:
    """The resume proof, the resumed setup and the sync: the host may have played on
    while the connection was down, and sends what we missed right behind its sync."""
    _, out = against_host(tmp_path, games=1, cut_at=12)
    assert re.search(r"Doc is back: game 1 goes on, \d+ moves? in", out), out
