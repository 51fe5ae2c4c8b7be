"""A private-deck peer written from the documents alone plays a match against a real host.

Like ``tests/e2e/test_doc_peer.py`` (whose frames, handshake and seed agreement it reuses),
nothing from ``p2p_spite`` is used: the private deck is docs/fairness.md's *Byte-exact
specification* as ``tests/support/docdeck.py`` writes it out (its own P-256, hashlib,
hmac), the network side is docs/protocol.md's *The private deck*, and the rules are
``tests/reference_spec.py`` played on stand-ins for the cards this seat may not see.  The
real host (``p2p-spite host --private --bot easy``) must accept every message it sends,
every proof and every action, and its record file must be byte for byte the one this
peer writes (version 2, with the deck and reshuffles its end-of-game check found).
"""

from __future__ import annotations

import random
import secrets
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_protocol_vectors import history_root, move_key, result_text, sha256
from tests.e2e.test_doc_peer import (
    DocPeer,
    Sealed,
    action_tag,
    choose,
    code_key,
    leave,
    open_match,
    record_text,
)
from tests.reference_spec import RefGame, RefStream, rank_of
from tests.support import docdeck as dd
from tests.support.docdeck import Ct, u32
from tests.support.net import finish, read_code, spawn, wait_listening
from tests.support.p256 import G, N, Pt, add, decode, mul, neg
from tests.support.p256 import encode as enc

NAME = "Doc"
DEADLINE = 600.0  # seconds for the whole match: this peer's plain curve makes a pass in seconds
HIDDEN = 1000  # the stand-in of the card in slot s is 1000 + s
ME, HOST = 1, 0
KEY, SHUFFLE, SHARES, REVEAL = 1, 2, 3, 4


class SlotStream:
    """The board's stream: a completed stack's reshuffle gives the new stock's stand-ins."""

    def __init__(self) -> None:
        self.next: list[int] | None = None

    def shuffle(self, items: list[int]) -> None:
        assert self.next is not None and len(self.next) == len(items), "a reshuffle the deck has not made"
        items[:] = [HIDDEN + s for s in self.next]
        self.next = None


def board(layout: list[int], seed: bytes, game: int) -> tuple[RefGame, int, int]:
    """SPEC's deal from ``layout`` (cards or stand-ins): the game, its starter, numbers drawn."""
    g = RefGame.__new__(RefGame)
    g.payoff = {0: layout[0:20], 1: layout[20:40]}
    g.hand = {0: layout[40:45], 1: layout[45:50]}
    g.stock = layout[50:104]
    g.side = {0: [[], [], [], []], 1: [[], [], [], []]}
    g.center = [[], [], []]
    t0, t1 = rank_of(g.payoff[0][-1]), rank_of(g.payoff[1][-1])
    stream = RefStream(seed, game)
    g.turn = 0 if t0 > t1 else 1 if t1 > t0 else stream.below(2)
    g.result = None
    g.rng = SlotStream()  # type: ignore[assignment]
    return g, g.turn, stream.i


@dataclass
class Round:
    inputs: list[Ct]
    input_slots: list[int] | None  # None: the deal
    passes: list[list[Ct]] = field(default_factory=list)
    digests: list[bytes] = field(default_factory=list)
    slots: list[int] = field(default_factory=list)


@dataclass
class Pending:
    seat: int
    move: list[Any]
    slot: int | None
    stage: str = "begun"  # then "tried", "ready"
    completes: bool = False  # it puts the 12th card on a center stack: a reshuffle round begins


class Seat:
    """Seat 1's private deck and board for one game, from docs/fairness.md."""

    def __init__(self, match: bytes, game: int, seed: bytes, send: Any) -> None:
        self.match, self.game, self.seed, self.send = match, game, seed, send
        self.secret = secrets.token_bytes(32)
        self.x = dd.key_of(match, game, self.secret, ME)
        self.keys: list[Pt] = [None, mul(self.x, G)]
        self.y: Pt = None
        canonical: list[Ct] = [(None, dd.card(c)) for c in range(104)]
        self.rounds = [Round(canonical, None)]
        self.cts: list[Ct] = []
        self.known: dict[int, int] = {}  # slot -> card
        self.theirs: dict[int, Pt] = {}
        self.awaited: set[int] = set()
        self.owed: list[int] = []
        self.sent: set[int] = set()
        self.host_secret: bytes | None = None
        self.over = False
        self.revealed = False
        self.g: RefGame | None = None
        self.starter = self.drawn = self.ply = 0
        # where each slot lies, pile by pile (set when the deal is shown)
        self.payoff_slots: dict[int, list[int]] = {}
        self.hand_slots: dict[int, list[int]] = {}
        self.side_slots: dict[int, list[list[int]]] = {}
        self.center_slots: list[list[int]] = []
        self.stock_slots: list[int] = []
        self.pending: Pending | None = None
        self.moves: list[list[Any]] = []  # the actions made, as the record has them
        self.out = 0  # our next deck message number
        self.shares_after_pass = 0  # the host's shares of a move that completed a stack, after its pass
        self.deck_msg(dd.header(match, game, KEY, ME) + self.key_body())

    # -- sending ----------------------------------------------------------------------

    def deck_msg(self, b: bytes) -> None:
        self.send({"t": "deck", "g": self.game, "i": self.out, "b": b})
        self.out += 1

    def key_body(self) -> bytes:
        big_x, c, z = dd.schnorr(self.match, self.game, self.x, ME)
        return enc(big_x) + c + z.to_bytes(32, "big")

    @property
    def shuffling(self) -> bool:
        return len(self.rounds[-1].passes) < 2

    @property
    def settled(self) -> bool:
        return self.g is not None and not self.shuffling and not self.owed and not self.awaited

    def flush(self) -> None:
        """What FairDeck's outgoing() gives: our pass when it is ours, the shares owed, the reveal."""
        rnd = self.rounds[-1]
        if self.y is not None and len(rnd.passes) == 1:
            self.make_pass()
        if self.owed:
            owe = sorted(self.owed)
            self.owed.clear()
            for i in range(0, len(owe), 16):
                body = b""
                for slot in owe[i : i + 16]:
                    d, c, z = dd.dleq(self.match, self.game, self.x, ME, slot, self.cts[slot])
                    body += u32(slot) + enc(d) + c + z.to_bytes(32, "big")
                    self.sent.add(slot)
                chunk = owe[i : i + 16]
                self.deck_msg(dd.header(self.match, self.game, SHARES, ME) + bytes([len(chunk)]) + body)
        if self.over and not self.revealed and not self.shuffling:
            self.revealed = True
            self.deck_msg(dd.header(self.match, self.game, REVEAL, ME) + self.secret)

    def make_pass(self) -> None:
        r = len(self.rounds) - 1
        rnd = self.rounds[r]
        ins = rnd.passes[0]
        digest = dd.pass_input_digest(ins)
        assert self.y is not None
        of = dd.PassOf(self.match, self.game, self.secret, ME, r, self.y, digest)
        perm, rs = dd.permutation(of, len(ins)), dd.randomness(of, len(ins))
        outs = [dd.reencrypt(ins[perm[j]], rs[j], self.y) for j in range(len(ins))]
        ctx = dd.shuffle_context(self.match, self.game, ME, r)
        proof, _ = dd.prove(dd.pass_key(of, b"shuffle-proof"), ctx, self.y, ins, outs, perm, rs)
        self.deck_msg(dd.shuffle_message(self.match, self.game, ME, r, outs, proof))
        self.add_pass(outs, digest)

    def add_pass(self, outs: list[Ct], digest: bytes) -> None:
        rnd = self.rounds[-1]
        rnd.passes.append(outs)
        rnd.digests.append(digest)
        if len(rnd.passes) < 2:
            return
        first = len(self.cts)
        self.cts.extend(outs)
        rnd.slots = list(range(first, first + len(outs)))
        if rnd.input_slots is None:  # the deal: seat 0's hand and both tops are ours to show
            self.owed += [19, 39, *range(40, 45)]
            self.awaited |= {19, 39, *range(45, 50)}
        else:
            assert self.g is not None
            self.g.rng.next = rnd.slots  # type: ignore[attr-defined]

    # -- the host's deck messages ---------------------------------------------------------

    def on_bytes(self, b: bytes) -> None:
        assert b[1] == 2 and b[2:18] == self.match and int.from_bytes(b[18:22], "big") == self.game
        assert b[22] == HOST
        t = b[0]
        if t == KEY:
            assert len(b) == 120
            x0 = decode(b[23:56])
            assert x0 is not None and self.verify_key(x0, b[56:88], int.from_bytes(b[88:120], "big"))
            self.keys[HOST] = x0
            self.y = add(x0, self.keys[ME])
        elif t == SHUFFLE:
            rnd_no, step, outs, proof = dd.read_shuffle(b)
            r = len(self.rounds) - 1
            rnd = self.rounds[r]
            assert rnd_no == r and step == HOST and not rnd.passes and len(outs) == len(rnd.inputs)
            ctx = dd.shuffle_context(self.match, self.game, HOST, r)
            assert self.y is not None and dd.verify(ctx, self.y, rnd.inputs, outs, proof), "the host's proof"
            self.add_pass(outs, dd.pass_input_digest(rnd.inputs))
        elif t == SHARES:
            rnd = self.rounds[-1]
            # docs/fairness.md, *Around a reshuffle*: seat 0 sends its pass before its shares
            assert rnd.input_slots is None or rnd.passes, "the host's shares came before its reshuffle pass"
            p = self.pending
            if p is not None and p.completes and p.stage == "begun":
                self.shares_after_pass += 1  # the move's shares, after the pass it made for that move
            m = b[23]
            assert len(b) == 24 + 101 * m
            for k in range(m):
                at = 24 + 101 * k
                slot = int.from_bytes(b[at : at + 4], "big")
                d = decode(b[at + 4 : at + 37])
                c, z = b[at + 37 : at + 69], int.from_bytes(b[at + 69 : at + 101], "big")
                assert slot in self.awaited and d is not None and self.verify_share(slot, d, c, z)
                self.awaited.discard(slot)
                self.theirs[slot] = d
                self.learn(slot)
        else:
            assert t == REVEAL and self.over and len(b) == 55
            self.host_secret = b[23:55]
            host_x = dd.key_of(self.match, self.game, self.host_secret, HOST)
            assert mul(host_x, G) == self.keys[HOST], "the host's secret gives its key"

    def verify_key(self, x0: Pt, c: bytes, z: int) -> bool:
        ctx = dd.key_context(self.match, self.game, HOST)
        a = add(mul(z, G), mul(N - int.from_bytes(c, "big") % N, x0))
        return a is not None and dd.sha(dd.frame(dd.V1 + b"schnorr", ctx, enc(x0), enc(a))) == c

    def verify_share(self, slot: int, d: Pt, c: bytes, z: int) -> bool:
        c1, c2 = self.cts[slot]
        ci = int.from_bytes(c, "big") % N
        a1 = add(mul(z, G), mul(N - ci, self.keys[HOST]))
        a2 = add(mul(z, c1), mul(N - ci, d))
        if a1 is None or a2 is None:
            return False
        ctx = dd.share_context(self.match, self.game, HOST, slot, c2)
        items = (self.keys[HOST], c1, d, a1, a2)
        return dd.sha(dd.frame(dd.V1 + b"dleq", ctx, *(enc(p) for p in items))) == c

    def learn(self, slot: int) -> None:
        c1, c2 = self.cts[slot]
        m = add(c2, neg(add(mul(self.x, c1), self.theirs[slot])))
        card = next(c for c in range(104) if dd.card(c) == m)
        self.known[slot] = card
        self.reveal_on_board(slot, card)

    def reveal_on_board(self, slot: int, card: int) -> None:
        g = self.g
        if g is None:
            return
        for pile in (g.hand[0], g.hand[1], g.payoff[0], g.payoff[1]):
            if HIDDEN + slot in pile:
                pile[pile.index(HIDDEN + slot)] = card

    # -- the board ------------------------------------------------------------------------

    def install(self) -> None:
        layout = [self.known.get(s, HIDDEN + s) for s in range(104)]
        self.g, self.starter, self.drawn = board(layout, self.seed, self.game)

    def slot_in_hand(self, seat: int, card: int) -> int:
        return next(s for s in self.hand_slots[seat] if self.known.get(s) == card)

    def begin(self, seat: int, move: list[Any], slot: int | None) -> None:
        g = self.g
        assert g is not None and self.pending is None
        _, source, arg, target, index = move
        if source == "hand":
            assert slot is not None
            if seat == ME:
                self.owed.append(slot)
            else:
                self.awaited.add(slot)
        elif source == "payoff" and len(g.payoff[seat]) >= 2:
            top = self.payoff_slots[seat][-2]
            if top not in self.sent:
                self.owed.append(top)
            if top not in self.theirs:
                self.awaited.add(top)
        completes = target == "center" and len(g.center[index]) == 11
        if completes:
            played = slot if source == "hand" else None
            stock = self.stock_slots
            stack = self.center_slots[index] + [self.moving_slot(seat, source, arg, played)]
            self.rounds.append(Round([self.cts[s] for s in stock + stack], stock + stack))
        self.pending = Pending(seat, move, slot, completes=completes)

    def moving_slot(self, seat: int, source: str, arg: Any, slot: int | None) -> int:
        if source == "hand":
            assert slot is not None
            return slot
        if source == "payoff":
            return self.payoff_slots[seat][-1]
        side: int = arg
        return self.side_slots[seat][side][-1]

    def progress(self) -> None:
        """Move the pending action on as far as the messages allow (FairDeck and the net's _pump)."""
        while True:
            self.flush()
            if self.g is None and not self.shuffling and not self.owed and not self.awaited and self.cts:
                self.install()
                self.track_slots()
                continue
            p = self.pending
            if p is not None and p.stage == "begun" and not self.shuffling:
                if p.slot is not None and p.slot not in self.known:
                    return
                self.try_move(p)
                continue
            if p is not None and p.stage == "tried" and self.settled and (not self.over or self.host_secret):
                p.stage = "ready"
            return

    def try_move(self, p: Pending) -> None:
        g = self.g
        assert g is not None
        seat, source, arg, target, index = p.move
        if p.slot is not None:
            assert self.known[p.slot] == arg, "the slot holds the card the move names"
            hand = g.hand[seat]
            if HIDDEN + p.slot in hand:
                hand[hand.index(HIDDEN + p.slot)] = arg
        before = {s: list(g.hand[s]) for s in (0, 1)}
        moved = self.moving_slot(seat, source, arg, p.slot)
        g.play(p.move)
        self.ply += 1
        self.move_slot(seat, source, arg, target, index, moved)
        if p.slot is not None:
            before[seat].remove(arg)
        for s in (0, 1):
            for stand_in in g.hand[s][len(before[s]) :]:
                slot = self.stock_slots.pop()
                assert stand_in == HIDDEN + slot, (stand_in, slot)
                self.hand_slots[s].append(slot)
                if s == ME:
                    self.awaited.add(slot)
                else:
                    self.owed.append(slot)
        if g.result is not None:
            self.over = True
        p.stage = "tried"

    def track_slots(self) -> None:
        """The deal's slots in SPEC's layout."""
        self.payoff_slots = {0: list(range(20)), 1: list(range(20, 40))}
        self.hand_slots = {0: list(range(40, 45)), 1: list(range(45, 50))}
        self.side_slots = {0: [[], [], [], []], 1: [[], [], [], []]}
        self.center_slots = [[], [], []]
        self.stock_slots = list(range(50, 104))

    def move_slot(self, seat: int, source: str, arg: Any, target: str, index: int, slot: int) -> None:
        if source == "hand":
            self.hand_slots[seat].remove(slot)
        elif source == "payoff":
            self.payoff_slots[seat].pop()
        else:
            self.side_slots[seat][arg].pop()
        if target == "side":
            self.side_slots[seat][index].append(slot)
            return
        stack = self.center_slots[index]
        stack.append(slot)
        if len(stack) == 12:
            self.stock_slots = list(self.rounds[-1].slots)
            self.center_slots[index] = []

    def made(self, p: Pending) -> bool:
        """The action of ``p`` is made; True if it ended the game."""
        self.moves.append(p.move)
        self.pending = None
        return self.g is not None and self.g.result is not None

    def digest(self) -> bytes:
        g = self.g
        assert g is not None
        piles = [g.payoff[0], g.payoff[1], *g.side[0], *g.side[1], *g.center, g.stock]
        res = result_text(g.result)
        sizes = (len(g.hand[0]), len(g.hand[1]))
        return dd.private_digest(self.game, g.turn, self.starter, self.drawn, self.ply, sizes, piles, res)

    def game_deck(self) -> tuple[list[int], list[list[int]]]:
        """The deal and the reshuffles, by following both seats' permutations."""
        assert self.host_secret is not None
        plain: dict[int, int] = {}
        reshuffles: list[list[int]] = []
        for r, rnd in enumerate(self.rounds):
            if len(rnd.passes) < 2:
                break
            cur = list(range(104)) if rnd.input_slots is None else [plain[s] for s in rnd.input_slots]
            for step, secret in ((HOST, self.host_secret), (ME, self.secret)):
                assert self.y is not None
                of = dd.PassOf(self.match, self.game, secret, step, r, self.y, rnd.digests[step])
                perm = dd.permutation(of, len(cur))
                cur = [cur[perm[j]] for j in range(len(cur))]
            for j, s in enumerate(rnd.slots):
                plain[s] = cur[j]
            if r:
                reshuffles.append(cur)
        for s, c in self.known.items():
            assert plain[s] == c
        return [plain[s] for s in range(104)], reshuffles


class KeptAlive(DocPeer):
    """A DocPeer that is never silent while it computes: a thread sends a ``ping`` every
    second (docs/protocol.md: a heartbeat, any time after hello), so that however slow
    the machine makes this peer's plain curve, the host does not take the link as dead."""

    def __init__(self, sock: Sealed, deadline: float) -> None:
        super().__init__(sock, deadline)
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.pinger = threading.Thread(target=self._ping, daemon=True)
        self.pinger.start()

    def send(self, msg: dict[str, Any]) -> None:
        with self.lock:
            super().send(msg)

    def _ping(self) -> None:
        k = 0
        while not self.stop.wait(1.0):
            k += 1
            try:
                self.send({"t": "ping", "k": k})
            except OSError:
                return

    def close(self) -> None:
        self.stop.set()
        self.pinger.join(10)


def play_as_joiner(port: int, code: str) -> tuple[dict[str, Any], int]:
    """Join a private match, play it to its end; return our record, and how many times the
    host sent the shares of a move that completed a stack (after its pass, as documented)."""
    deadline = time.monotonic() + DEADLINE
    key = code_key(code)
    sock = Sealed(port, key)
    peer = KeptAlive(sock, deadline)
    after_pass = 0
    try:
        setup, seed = open_match(peer, key)
        assert setup["private"] is True
        match_id, target, games = setup["match"], setup["target"], setup["games"]
        h = history_root(seed)
        action_key = secrets.token_bytes(32)
        rng = random.Random(7)
        n = 0
        scores = [0, 0]
        played: list[dict[str, Any]] = []
        game_no = 0
        last_was_ours = False
        while True:
            game_no += 1
            seat = Seat(match_id, game_no, seed, peer.send)
            host_in = 0
            while True:
                seat.progress()
                g = seat.g
                p = seat.pending
                if p is not None and p.stage == "ready" and p.seat == ME:
                    h = sha256(h + move_key(game_no, p.move))
                    tag = action_tag(action_key, match_id, n, h)
                    peer.send({"t": "move", "n": n, "m": p.move, "d": seat.digest(), "a": tag})
                    last_was_ours = True
                    n += 1
                    if seat.made(p):
                        break
                    continue
                if g is not None and p is None and seat.settled and g.result is None and g.turn == ME:
                    m = choose(g, rng)
                    slot = seat.slot_in_hand(ME, m[2]) if m[1] == "hand" else None
                    peer.send({"t": "deck", "g": game_no, "i": seat.out, "m": m, "s": slot})
                    seat.out += 1
                    seat.begin(ME, m, slot)
                    continue
                msg = peer.recv()
                if msg["t"] == "deck":
                    assert msg["g"] == game_no and msg["i"] == host_in, msg
                    host_in += 1
                    if msg.get("b") is not None:
                        seat.on_bytes(msg["b"])
                    else:
                        assert seat.pending is None and seat.settled and g is not None and g.turn == HOST
                        seat.begin(HOST, list(msg["m"]), msg["s"])
                elif msg["t"] == "move":
                    assert p is not None and p.seat == HOST and p.stage == "ready" and msg["n"] == n, msg
                    assert list(msg["m"]) == p.move and msg["d"] == seat.digest(), f"desync at action {n}"
                    h = sha256(h + move_key(game_no, p.move))
                    peer.send({"t": "ack", "n": n + 1})
                    last_was_ours = False
                    n += 1
                    if seat.made(p):
                        break
                else:
                    raise AssertionError(f"unexpected {msg}")
            assert seat.g is not None and seat.g.result is not None
            after_pass += seat.shares_after_pass
            deal, reshuffles = seat.game_deck()
            played.append(
                {"moves": seat.moves, "result": seat.g.result, "deck": deal, "reshuffles": reshuffles}
            )
            if seat.g.result["winner"] is not None:
                scores[seat.g.result["winner"]] += seat.g.result["points"]
            if max(scores) >= target or (games is not None and game_no >= games):
                break
        peer.close()
        leave(peer, sock, n if last_was_ours else 0)
    finally:
        peer.close()
        sock.close()
    return {
        "format": "p2p-spite-record",
        "version": 2,
        "seed": seed.hex(),
        "players": setup["players"],
        "target": target,
        "games": played,
        "scores": scores,
        "private": True,
        "match_id": match_id.hex(),
        "max_games": games,
        "join_key": key.hex(),
        "seed_by": "both",
    }, after_pass


@pytest.mark.slow
@pytest.mark.watchdog(2 * DEADLINE)  # the match is bounded by DEADLINE, however slow the machine
def test_a_private_peer_written_from_the_documents_plays_the_real_host(tmp_path: Path) -> None:
    """The host is the real program with only its private-deck deadline lengthened to the
    test's (this peer's plain curve is slow, and slower on a loaded machine); this peer
    pings while it computes.  Every wait has the test's deadline, none the machine's speed."""
    host_record = tmp_path / "host.json"
    host = spawn(
        ["host", "--private", "--bind", "127.0.0.1", "--port", "0", "--bot", "easy", "--bot-seed", "3",
         "--name", "Ann", "--games", "2", "--no-announce", "--record", str(host_record)],
        tmp_path,
        program=[sys.executable, "-m", "tests.support.patient", str(DEADLINE)],
    )  # fmt: skip
    try:
        port, _ = wait_listening(host, DEADLINE)
        code = read_code(host, DEADLINE)
        record, after_pass = play_as_joiner(port, code)
    except BaseException:
        host.kill()
        raise
    finally:
        rc, out, err = finish(host, DEADLINE)
    assert rc == 0, (out, err)
    print(f"the host's shares of a stack-completing move, after its pass: {after_pass} times")
    assert host_record.read_text(encoding="utf-8") == record_text(record)
    games = record["games"]
    assert len(games) == 2 and all(len(g["moves"]) > 20 and g["result"] is not None for g in games)
    assert any(g["reshuffles"] for g in games)  # a proven reshuffle each way, and its slots
