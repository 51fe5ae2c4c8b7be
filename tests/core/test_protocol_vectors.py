"""docs/protocol.md's byte-exact definitions, pinned to the document's own test vectors.

Every vector is computed here FROM THE DOCUMENT'S RECIPE, with hashlib/hmac written
out in this file, on game states from ``tests/reference_spec.py`` (an implementation
of SPEC written from its text alone): the engine's and the net layer's functions are
not used to make them.  Then:

(a) the recipe gives exactly the hex printed in docs/protocol.md (parsed out of the
    document, so the document and the code cannot drift apart unnoticed), and
(b) the engine's and the net layer's own functions agree with the recipe.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import struct
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgpack
import pytest

from p2p_spite.contracts.plaintext import MAX_NAME
from p2p_spite.contracts.spectator import TableShown
from p2p_spite.core import game as netgame
from p2p_spite.core import keys, watch
from p2p_spite.core.game import Action, GameCore
from p2p_spite.core.handshake import SeedOrigin
from p2p_spite.core.messages import clean_text
from p2p_spite.engine import Match, Move, public_view, view
from p2p_spite.storage import record as recordmod
from p2p_spite.storage.journal import journal_path
from p2p_spite.storage.keeper import RecordKeeper, record_extra
from tests.reference_spec import RefGame
from tests.support.keeping import apply_kept

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocol.md"
DATA = ROOT / "tests" / "data"
SECTION = "## Byte-exact definitions and test vectors"

SEED = bytes(range(32))  # SPEC's test-vector seed 00 01 .. 1f
MATCH_ID = bytes(range(0xA0, 0xB0))
HOST_NONCE = bytes(range(0x00, 0x10))
JOIN_NONCE = bytes(range(0x10, 0x20))
S_HOST = bytes([0x11]) * 32
S_JOIN = bytes([0x22]) * 32
CODE = "K7QP-3MXD"
HOST_KEY = bytes([0x33]) * 32  # the two sides' action keys (each side's own, never sent)
JOIN_KEY = bytes([0x44]) * 32

# the actions of the worked example: game 1's first four moves (the record
# tests/data/draw-on-empty-stock.json starts with them), seat 1 resigns, then
# game 2's first move
GAME1_MOVES: list[list[Any]] = [
    [1, "hand", 52, "center", 1],
    [1, "hand", 38, "center", 2],
    [1, "hand", 37, "side", 1],
    [0, "hand", 34, "side", 0],
]
GAME2_MOVE: list[Any] = [1, "hand", 52, "center", 0]


# -- the document's recipes, written out -------------------------------------------------


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def result_text(result: dict[str, Any] | None) -> bytes:
    if result is None:
        return b"None"
    w = "None" if result["winner"] is None else str(result["winner"])
    return f"({w}, {result['points']}, '{result['reason']}')".encode("ascii")


def state_bytes(g: RefGame, game: int, starter: int) -> bytes:
    """What the state digest hashes."""
    piles: list[list[int]] = [
        g.payoff[0],
        g.payoff[1],
        g.hand[0],
        g.hand[1],
        *g.side[0],
        *g.side[1],
        *g.center,
        g.stock,
    ]
    return (
        game.to_bytes(4, "big")
        + bytes([g.turn, starter])
        + g.rng.i.to_bytes(8, "big")
        + result_text(g.result)
        + b"".join(b"\xff" + bytes(p) for p in piles)
    )


def state_digest(g: RefGame, game: int, starter: int) -> bytes:
    return sha256(state_bytes(g, game, starter))


def move_key(game: int, move: Sequence[Any]) -> bytes:
    seat, source, arg, target, index = move
    a: bytes = b"-" if arg is None else arg.to_bytes(2, "big")
    key: bytes = (
        b"M"
        + game.to_bytes(4, "big")
        + str(seat).encode("ascii")
        + b"|"
        + source.encode("ascii")
        + b"|"
        + a
        + b"|"
        + target.encode("ascii")
        + b"|"
        + str(index).encode("ascii")
    )
    return key


def resign_key(game: int, seat: int) -> bytes:
    return b"R" + game.to_bytes(4, "big") + bytes([seat])


def action_tag(key: bytes, match_id: bytes, n: int, history_after: bytes) -> bytes:
    return hmac.new(
        key, b"p2p-spite/action/v1|" + match_id + n.to_bytes(8, "big") + history_after, "sha256"
    ).digest()


def history_root(seed: bytes) -> bytes:
    return sha256(b"p2p-spite/history/v1" + seed)


def code_key(code: str) -> bytes:
    norm = "".join(c for c in code.upper() if c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    return hashlib.pbkdf2_hmac("sha256", norm.encode("ascii"), b"p2p-spite/join-code/v1", 100_000, 32)


def resume_key(seed: bytes, match_id: bytes) -> bytes:
    return hmac.new(seed, b"p2p-spite/resume/v1|" + match_id, "sha256").digest()


def proof_mac(key: bytes, role: str) -> bytes:
    return hmac.new(
        key, b"p2p-spite/proof/v1|" + role.encode() + b"|" + HOST_NONCE + JOIN_NONCE, "sha256"
    ).digest()


def commit(role: str, secret: bytes) -> bytes:
    return sha256(b"p2p-spite/commit/v1|" + role.encode() + b"|" + MATCH_ID + secret)


def agreed_seed() -> bytes:
    return sha256(b"p2p-spite/seed/v1|" + MATCH_ID + S_HOST + S_JOIN)


def replay_digests(rec: dict[str, Any]) -> tuple[list[bytes], list[bytes]]:
    """The state digest after each action of a record, and the history hashes."""
    seed = bytes.fromhex(rec["seed"])
    digests: list[bytes] = []
    history = [history_root(seed)]
    for n, game in enumerate(rec["games"], 1):
        g = RefGame(seed, n)
        starter = g.turn
        for mv in game["moves"]:
            g.play(mv)
            digests.append(state_digest(g, n, starter))
            history.append(sha256(history[-1] + move_key(n, mv)))
        res = game.get("result")
        if res is not None and res["reason"] == "resign":
            loser = 1 - res["winner"]
            g.result = {"winner": res["winner"], "points": len(g.payoff[loser]), "reason": "resign"}
            digests.append(state_digest(g, n, starter))
            history.append(sha256(history[-1] + resign_key(n, loser)))
    return digests, history


def recipe_vectors() -> dict[str, str]:
    """Every vector the document prints, by name, computed from its recipes."""
    v: dict[str, str] = {}
    # the worked example
    h = history_root(SEED)
    v["h0"] = h.hex()
    g = RefGame(SEED, 1)
    starter = g.turn
    for n, mv in enumerate(GAME1_MOVES, 1):
        g.play(mv)
        h = sha256(h + move_key(1, mv))
        v[f"d{n}"], v[f"h{n}"] = state_digest(g, 1, starter).hex(), h.hex()
        if n == 1:
            v["bytes1"] = state_bytes(g, 1, starter).hex()
            v["tag1"] = action_tag(JOIN_KEY, MATCH_ID, 0, h).hex()  # seat 1 made action 0
    v["key1"] = move_key(1, GAME1_MOVES[0]).hex()
    g.result = {"winner": 0, "points": len(g.payoff[1]), "reason": "resign"}  # seat 1 resigns
    h = sha256(h + resign_key(1, 1))
    v["d5"], v["h5"] = state_digest(g, 1, starter).hex(), h.hex()
    v["key5"] = resign_key(1, 1).hex()
    g2 = RefGame(SEED, 2)
    starter2 = g2.turn
    g2.play(GAME2_MOVE)
    h = sha256(h + move_key(2, GAME2_MOVE))
    v["d6"], v["h6"] = state_digest(g2, 2, starter2).hex(), h.hex()
    v["key6"] = move_key(2, GAME2_MOVE).hex()
    # games that end on the board: a draw (empty stock) and a pay-off win
    for name, file, game_no in (
        ("draw", "draw-on-empty-stock.json", 1),
        ("win", "match-easy-vs-easy.json", 1),
    ):
        rec = json.loads((DATA / file).read_text())
        one = {**rec, "games": rec["games"][:game_no]}
        digests, history = replay_digests(one)
        v[f"{name}_d"], v[f"{name}_h"] = digests[-1].hex(), history[-1].hex()
    # the join code, the resume proof, the seed agreement
    key = code_key(CODE)
    v["code_key"] = key.hex()
    rk = resume_key(SEED, MATCH_ID)
    v["resume_key"] = rk.hex()
    v["proof_join"], v["proof_host"] = proof_mac(rk, "join").hex(), proof_mac(rk, "host").hex()
    v["commit_host"], v["commit_join"] = commit("host", S_HOST).hex(), commit("join", S_JOIN).hex()
    v["seed"] = agreed_seed().hex()
    # a table
    v["table_frame"] = table_frame_recipe().hex()
    # how many watch (host -> joiner), and a watcher's first message that follows play again
    v["watchers_frame"] = frame({"t": "watchers", "n": 2, "most": 4}).hex()
    watch_msg = {
        "t": "watch",
        "proto": 2,
        "app": "p2p-spite",
        "nonce": bytes(16),
        "code": False,
        "again": True,
    }
    v["watch_frame"] = frame(watch_msg).hex()
    return v


def frame(msg: dict[str, Any]) -> bytes:
    """*Frames*: a big-endian u32 length, then the msgpack map."""
    body: bytes = msgpack.packb(msg, use_bin_type=True)
    return len(body).to_bytes(4, "big") + body


def table_frame_recipe() -> bytes:
    """The `table` after game 1's first move, as *Watchers* defines it."""
    g = RefGame(SEED, 1)
    g.play(GAME1_MOVES[0])
    body: bytes = msgpack.packb(
        {
            "t": "table",
            "g": 1,
            "turn": g.turn,
            "ply": 1,
            "hands": [len(g.hand[0]), len(g.hand[1])],
            "tops": [g.payoff[0][-1], g.payoff[1][-1]],
            "left": [len(g.payoff[0]), len(g.payoff[1])],
            "sides": [[bytes(st) for st in g.side[seat]] for seat in (0, 1)],
            "center": [bytes(st) for st in g.center],
            "stock": len(g.stock),
            "scores": [0, 0],
            "end": None,
            "m": GAME1_MOVES[0],
            "c": GAME1_MOVES[0][2],
            "f": 0,
        },
        use_bin_type=True,
    )
    return struct.pack(">I", len(body)) + body


# -- the document ---------------------------------------------------------------------------


def doc_section(doc: Path = DOC, section: str = SECTION) -> str:
    text = doc.read_text(encoding="utf-8")
    start = text.index(section)
    end = text.find("\n## ", start + len(section))
    return text[start : end if end >= 0 else len(text)]


def doc_vectors(doc: Path = DOC, section: str = SECTION) -> dict[str, str]:
    """``name = hex`` lines of the section's code blocks."""
    found: dict[str, str] = {}
    for m in re.finditer(r"^(\w+) += ([0-9a-f]+)$", doc_section(doc, section), re.M):
        assert m.group(1) not in found, f"vector {m.group(1)} twice in the document"
        found[m.group(1)] = m.group(2)
    return found


def doc_block(tag: str) -> str:
    """The fenced block that follows the marker line ``<!-- vector: tag -->``."""
    m = re.search(rf"<!-- vector: {tag} -->\n```[a-z]*\n(.*?)```\n", doc_section(), re.S)
    assert m is not None, f"no block {tag} in {DOC}"
    return m.group(1)


# -- (a) the recipe gives the document's hex -------------------------------------------------


def test_every_documented_vector_is_what_the_recipe_gives() -> None:
    documented, computed = doc_vectors(), recipe_vectors()
    assert set(documented) == set(computed)
    for name, value in computed.items():
        assert documented[name] == value, name


def test_the_recipe_is_not_vacuous() -> None:
    v = recipe_vectors()
    assert len(set(v.values())) == len(v)  # no two vectors alike
    # the digest covers the result: the same piles with and without it differ
    g = RefGame(SEED, 1)
    before = state_digest(g, 1, g.turn)
    g.result = {"winner": None, "points": 0, "reason": "stock"}
    assert state_digest(g, 1, g.turn) != before
    assert result_text({"winner": 0, "points": 7, "reason": "payoff"}) == b"(0, 7, 'payoff')"
    assert result_text({"winner": None, "points": 0, "reason": "stock"}) == b"(None, 0, 'stock')"


# -- (b) the engine and the net layer agree with the recipe ---------------------------------


def _core_after(actions: list[Action]) -> GameCore:
    return GameCore.replay(Match(SEED), 0, MATCH_ID, None, actions)


def test_engine_digests_and_history_match_the_worked_example() -> None:
    v = recipe_vectors()
    acts = [Action(1, m[0], Move(*m)) for m in GAME1_MOVES] + [Action(1, 1)]
    core = _core_after(acts)  # the resignation ends game 1: game 2 is dealt
    assert core.match.game.game == 2
    core.apply(Action(2, GAME2_MOVE[0], Move(*GAME2_MOVE)))
    assert core.window_start == 0  # games 1 and 2: both in the window
    assert [d.hex() for d in core.digests.kept()] == [v[f"d{i}"] for i in range(1, 7)]
    assert [h.hex() for h in core.history.kept()] == [v[f"h{i}"] for i in range(7)]
    assert core.actions[0].key().hex() == v["key1"]
    assert core.actions[4].key().hex() == v["key5"]
    assert core.actions[5].key().hex() == v["key6"]
    core.key = JOIN_KEY  # the joiner's core: action 0 is its own
    assert core.own_tag(0).hex() == v["tag1"]
    assert action_tag(JOIN_KEY, MATCH_ID, 0, core.history[1]) == netgame.action_tag(
        JOIN_KEY, MATCH_ID, 0, core.history[1]
    )


@pytest.mark.parametrize(
    "file", ["draw-on-empty-stock.json", "match-easy-vs-easy.json", "resign-then-unfinished.json"]
)
def test_engine_agrees_with_the_recipe_after_every_action_of_a_record(file: str) -> None:
    """Pay-off wins, draws, a resignation and the next game after each."""
    rec = json.loads((DATA / file).read_text())
    digests, history = replay_digests(rec)
    seed = bytes.fromhex(rec["seed"])
    match = Match(seed, rec["target"])
    core = GameCore(match, 0, MATCH_ID, None)
    k = 0
    for n, game in enumerate(rec["games"], 1):
        if n > 1:
            match.next_game()
        acts = [Action(n, m[0], Move(*m)) for m in game["moves"]]
        res = game.get("result")
        if res is not None and res["reason"] == "resign":
            acts.append(Action(n, 1 - res["winner"]))
        for a in acts:
            core.commit(a)
            assert core.digests[k] == digests[k], (file, k)
            k += 1
    assert k == len(digests) > 0
    assert core.history.kept() == history[core.window_start :] and core.head == history[-1]


def test_net_crypto_agrees_with_the_recipe() -> None:
    v = recipe_vectors()
    key = keys.derive_code_key(CODE)
    assert key.hex() == v["code_key"]
    for spelled in ("k7qp3mxd", " K7QP 3MXD ", "k7qp-3mxd"):
        assert keys.derive_code_key(spelled) == key
    rk = keys.resume_key(SEED, MATCH_ID)
    assert rk.hex() == v["resume_key"]
    assert keys.proof_mac(rk, "join", HOST_NONCE, JOIN_NONCE).hex() == v["proof_join"]
    assert keys.proof_mac(rk, "host", HOST_NONCE, JOIN_NONCE).hex() == v["proof_host"]
    assert keys.commitment("host", S_HOST, MATCH_ID).hex() == v["commit_host"]
    assert keys.commitment("join", S_JOIN, MATCH_ID).hex() == v["commit_join"]
    assert keys.seed_from(S_HOST, S_JOIN, MATCH_ID).hex() == v["seed"]


def test_join_codes_use_the_documented_alphabet() -> None:
    alphabet = re.search(r"alphabet `([A-Z0-9]+)`", doc_section())
    assert alphabet is not None
    assert alphabet.group(1) == keys.CODE_ALPHABET
    assert len(set(alphabet.group(1))) == 31
    for _ in range(20):
        code = keys.new_join_code()
        assert re.fullmatch(r"[A-Z2-9]{4}-[A-Z2-9]{4}", code)
        assert set(code.replace("-", "")) <= set(alphabet.group(1))


def recipe_name(text: str) -> str:
    """A name as the document says both sides make it printable and cut it."""
    hidden = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"}
    return "".join(" " if ch != " " and unicodedata.category(ch) in hidden else ch for ch in text)[:40]


def test_names_are_made_printable_as_documented() -> None:
    assert '`"Ann\\tLee"` becomes `"Ann Lee"`' in doc_section()
    assert recipe_name("Ann\tLee") == clean_text("Ann\tLee", MAX_NAME) == "Ann Lee"
    every = "".join(map(chr, range(0x110000)))
    for i in range(0, len(every), 40):
        chunk = every[i : i + 40]
        assert clean_text(chunk, MAX_NAME) == recipe_name(chunk), hex(i)
    assert recipe_name("x" * 50) == "x" * 40


# -- the record file and the journal, byte for byte -------------------------------------------


def _example_match() -> Match:
    m = Match(SEED, 50, ("Ann", "Bob"))
    for mv in GAME1_MOVES:
        m.apply(mv)
    m.resign(1)
    m.next_game()
    m.apply(GAME2_MOVE)
    return m


def test_the_record_file_is_byte_for_byte_the_documented_one(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    extra = record_extra(MATCH_ID, 3, keys.derive_code_key(CODE), SeedOrigin.BOTH)
    keeper = RecordKeeper(path, _example_match(), MATCH_ID, 3, keys.derive_code_key(CODE), SeedOrigin.BOTH)
    keeper.close(keep_journal=True)
    assert keeper.extra == extra
    text = doc_block("record")
    assert path.read_bytes() == text.encode("utf-8")
    # the document's record is a valid record: it replays to its own result and scores
    recordmod.verify(recordmod.loads(text))


def test_the_journal_lines_are_the_documented_ones(tmp_path: Path) -> None:
    """The host's journal of the worked example: its key, then each action, the
    joiner's with the joiner's tag."""
    path = tmp_path / "r.json"
    match = Match(SEED, 50, ("Ann", "Bob"))
    keeper = RecordKeeper(path, match, MATCH_ID, None)
    core = GameCore(match, 0, MATCH_ID, None)
    core.key = HOST_KEY
    keeper.carry(core)
    actions = [Action(1, mv[0], Move(*mv)) for mv in GAME1_MOVES] + [Action(1, 1)]
    actions.append(Action(2, GAME2_MOVE[0], Move(*GAME2_MOVE)))
    for a in actions:
        author = core.match.game.turn
        tag = None
        if author == 1:
            after = sha256(
                core.head + (resign_key(a.game, a.seat) if a.move is None else move_key(a.game, a.move))
            )
            tag = action_tag(JOIN_KEY, MATCH_ID, core.position, after)
        apply_kept(core, keeper, a, tag)  # game 1's end rewrites the record, then game 2 is dealt
    assert journal_path(path).read_bytes() == doc_block("journal").encode("ascii")
    keeper.close()


def test_the_watcher_count_and_a_watch_that_follows_are_the_recipes_frames() -> None:
    from p2p_spite.core.messages import Watchers
    from p2p_spite.core.wire import encode

    vectors = recipe_vectors()
    assert encode(Watchers(2, 4).to_wire()).hex() == vectors["watchers_frame"]
    hello = watch.WatchHello(2, bytes(16), False, again=True)
    assert encode(hello.to_wire()).hex() == vectors["watch_frame"]


def test_a_watchers_table_is_the_recipes_frame() -> None:
    m = Match(SEED)
    mv = Move(*GAME1_MOVES[0])
    card = m.game.card_of(mv)
    m.apply(mv)
    shown = TableShown(public_view(view(m.game, 0)), (0, 0), mv, card)
    assert watch.table_frame(shown).hex() == recipe_vectors()["table_frame"]
