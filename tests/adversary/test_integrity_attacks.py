"""Issue 9, items 1, 2 and 6, against real ``p2p-spite host`` and ``join`` processes on
127.0.0.1: a hand-written peer (tests/adversary/hostile.py) tries to play or resign the
honest seat's turns, to claim positions it cannot hold, to replay, reorder and forge
actions, and to throw a deal away.  Each time the honest side refuses with the right
reason in one line, without a traceback, its exit code shows no forged result, and its
record holds no forged action and passes ``replay --check``."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.core.game import Action
from p2p_spite.core.keys import commitment
from tests.adversary.hostile import ADDR, Hostile, listener, seed_exchange_as_joiner
from tests.adversary.realhost import SEED, TIMEOUT, check_record, on_our_turn, one_line, run_host, start_host
from tests.support.net import finish, spawn


def _no_result(rec: dict[str, Any]) -> None:
    """Nothing was won: no game ended by a resignation or a pay-off, no points."""
    assert all("result" not in g for g in rec["games"]), rec["games"]
    assert rec.get("scores", [0, 0]) == [0, 0]


def _join(tmp: Path, port: int, *extra: str) -> subprocess.Popen[str]:
    return spawn(["join", f"{ADDR}:{port}", "--name", "Bob", "--record", "j.json", "--bot", "easy",
                  "--grace", "2", *extra], tmp)  # fmt: skip


# -- a hostile joiner against a real host -------------------------------------------------


def _fresh_sync_then_resign_the_host(port: int) -> dict[str, Any] | None:
    """The issue's attack: a fresh match, sync at 3, then 'resign' actions for the host."""
    p = Hostile.dial(port)
    try:
        p.join_seeded()
        p.send({"t": "sync", "pos": 3, "hist": b"\0" * 32})
        for n in range(3):
            p.send({"t": "resign", "n": n, "g": n + 1, "s": 0, "d": b"\0" * 32, "a": b"\0" * 32})
        return p.refusal()
    finally:
        p.close()


def _resign_the_host_mid_game(port: int) -> dict[str, Any] | None:
    """After an honest sync: the host's resignation, made up by the joiner."""
    p, c = on_our_turn(port)
    try:
        a = Action(1, 0)
        p.send({"t": "resign", "n": c.position, "g": 1, "s": 0, "d": c.digest_after(a), "a": b"\1" * 32})
        return p.refusal()
    finally:
        p.close()


def _move_for_the_host(port: int) -> dict[str, Any] | None:
    """On the host's turn, a legal move for the host's seat, with a forged tag."""
    p, c = on_our_turn(port)
    try:
        p.play_own(next(m for m in c.match.game.legal_moves() if m.target == "side"))  # the host's turn
        m = c.match.game.legal_moves()[0]
        assert m.seat == 0
        a = Action(1, 0, m)
        p.send({"t": "move", "n": c.position, "m": list(m), "d": c.digest_after(a), "a": b"\2" * 32})
        return p.refusal()
    finally:
        p.close()


def _replayed_action(port: int) -> dict[str, Any] | None:
    """The host's own last move, sent back to it as if new (a replay)."""
    p, c = on_our_turn(port)
    try:
        if not any(m["t"] == "move" for m in p.got):
            p.play_own(next(x for x in c.match.game.legal_moves() if x.target == "side"))
            p.receive_action()
        last = [m for m in p.got if m["t"] == "move"][-1]
        p.send({**last, "n": c.position})
        return p.refusal()
    finally:
        p.close()


def _reordered(port: int) -> dict[str, Any] | None:
    """Two of our own moves, the second sent first."""
    p, c = on_our_turn(port)
    try:
        n = c.position
        p.send({"t": "move", "n": n + 1, "m": [1, "hand", 0, "side", 0], "d": b"\0" * 32, "a": b"\0" * 32})
        return p.refusal()
    finally:
        p.close()


ATTACKS = {
    "a fresh match synced at 3, then the host's resignations": (_fresh_sync_then_resign_the_host, "position"),
    "the host's resignation from the joiner": (_resign_the_host_mid_game, "forged"),
    "a move for the host's turn with a forged tag": (_move_for_the_host, "forged"),
    "the host's own move replayed": (_replayed_action, "illegal-move"),
    "actions out of order": (_reordered, "sequence"),
}


@pytest.mark.parametrize("what", list(ATTACKS))
def test_a_hostile_joiner_cannot_forge_at_a_real_host(tmp_path: Path, what: str) -> None:
    attack, code = ATTACKS[what]
    rc, err, told = run_host(tmp_path, attack, "--seed", SEED)
    assert told is not None and told["code"] == code, told
    line = one_line(err)
    if code == "position":
        warned = [x for x in err.splitlines() if "warning:" in x]
        assert len(warned) == 1 and "a new match starts at action 0, not 3" in warned[0], err
        assert line == "p2p-spite: interrupted" and rc == 130, (
            rc,
            err,
        )  # stopped by Ctrl-C while waiting: no match was played
    else:
        assert line.startswith("p2p-spite: ") and "mallory" in line, line
        assert rc == 1, (rc, err)  # a protocol error: neither a finished match (0) nor a win
    rec = check_record(tmp_path / "h.json")
    assert all(g.get("result", {}).get("reason") != "resign" for g in rec["games"]), rec["games"]


# -- a hostile host against a real joiner -------------------------------------------------


def _run_joiner(tmp: Path, attack: Callable[[Hostile], dict[str, Any] | None]) -> tuple[int, str, Any]:
    server, port = listener()
    join = _join(tmp, port)
    try:
        p = Hostile.accept(server)
        try:
            told = attack(p)
        finally:
            p.close()
        rc, _out, err = finish(join, TIMEOUT)
    finally:
        server.close()
        if join.poll() is None:
            join.kill()
            join.wait()
    return rc, err, told


def _host_setup(p: Hostile, seed: bytes | None) -> dict[str, Any]:
    peer = p.hello()
    match = b"\x77" * 16
    setup = {"t": "setup", "match": match, "seed": seed, "target": 50, "games": None,
             "players": [p.name, peer["name"]], "resume": False}  # fmt: skip
    p.send(setup)
    if seed is not None:
        p.make_core(seed, match, (p.name, peer["name"]))
    return setup


def _host_syncs_high_then_resigns_the_joiner(p: Hostile) -> dict[str, Any] | None:
    _host_setup(p, bytes.fromhex(SEED))
    p.send({"t": "sync", "pos": 2, "hist": b"\0" * 32})
    p.send({"t": "resign", "n": 0, "g": 1, "s": 1, "d": b"\0" * 32, "a": b"\0" * 32})
    return p.refusal()


def _host_resigns_the_joiner(p: Hostile) -> dict[str, Any] | None:
    _host_setup(p, bytes.fromhex(SEED))
    p.sync()
    c = p.core
    assert c is not None
    a = Action(1, 1)
    # whoever is on turn: the joiner's resignation is the joiner's to make or to ask for
    # (if its bot's first move crossed this one, the number is out of sequence instead)
    p.send({"t": "resign", "n": 0, "g": 1, "s": 1, "d": c.digest_after(a), "a": b"\3" * 32})
    return p.refusal()


@pytest.mark.parametrize(
    ("what", "attack", "codes"),
    [
        ("a fresh match synced at 2, then the joiner's resignation", _host_syncs_high_then_resigns_the_joiner,
         {"position"}),
        ("the joiner's resignation from the host", _host_resigns_the_joiner, {"forged", "sequence"}),
    ],
)  # fmt: skip
def test_a_hostile_host_cannot_forge_at_a_real_joiner(
    tmp_path: Path, what: str, attack: Callable[[Hostile], dict[str, Any] | None], codes: set[str]
) -> None:
    rc, err, told = _run_joiner(tmp_path, attack)
    assert told is not None and told["code"] in codes, (what, told)
    one_line(err)
    assert rc == 1, (rc, err)
    rec = check_record(tmp_path / "j.json")
    assert all(g.get("result", {}).get("reason") != "resign" for g in rec["games"]), rec["games"]


# -- the deal cannot be thrown away ---------------------------------------------------------


@pytest.mark.slow
def test_a_joiner_that_drops_after_seeing_the_deal_cannot_get_another(tmp_path: Path) -> None:
    """The issue's attack: the joiner computes the seed after the host's reveal, drops and
    dials again.  The host holds the fixed deal (a new joiner gets seat-taken), then says
    plainly that the joiner left after the deal was fixed (exit 3), and writes no match."""
    host, port = start_host(tmp_path)
    try:
        p = Hostile.dial(port)
        p.hello()
        setup = p.expect("setup")
        _secret, seed = seed_exchange_as_joiner(p, setup)  # we know the deal now
        p.close()
        seen = []
        for _ in range(3):  # dial again for a fresh deal
            q = Hostile.dial(port)
            try:
                q.hello()
                seen.append(q.refusal())
            finally:
                q.close()
        rc, _out, err = finish(host, TIMEOUT)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    assert all(r is not None and r["code"] == "seat-taken" for r in seen), seen
    line = one_line(err)
    assert "left during the seed exchange, after the deal was fixed" in line, line
    assert rc == 3, (rc, err)
    assert len(seed) == 32


def test_a_joiner_that_drops_after_seeing_the_deal_gets_the_same_one_back(tmp_path: Path) -> None:
    """A returning joiner (the same commitments) is dealt the same seed as before."""
    host, port = start_host(tmp_path, "--games", "1")
    try:
        p = Hostile.dial(port)
        p.hello()
        setup = p.expect("setup")
        secret, seed = seed_exchange_as_joiner(p, setup)
        p.close()
        q = Hostile.dial(port)
        q.hello(match=setup["match"], deal=True)
        again = q.expect("setup")
        assert again["match"] == setup["match"] and again["seed"] is None
        q.send({"t": "commit", "c": commitment("join", secret, setup["match"])})
        q.expect("commit")
        q.send({"t": "reveal", "r": secret})
        host_secret = q.expect("reveal")["r"]
        from p2p_spite.core.keys import seed_from

        assert seed_from(host_secret, secret, setup["match"]) == seed  # the same deal
        q.close()
        finish(host, TIMEOUT)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()


def test_a_host_that_drops_after_the_joiners_reveal_cannot_deal_again(tmp_path: Path) -> None:
    """A hostile host gets the joiner's half (so it knows the seed), drops, and offers a
    new match when the joiner dials again: the joiner refuses it and says in one line that
    the host left after it had its half of the seed (exit 3)."""

    def attack(p: Hostile) -> dict[str, Any] | None:
        setup = _host_setup(p, None)
        p.expect("commit")
        p.send({"t": "commit", "c": commitment("host", b"\1" * 32, setup["match"])})
        p.expect("reveal")  # we know the deal: say nothing and drop
        return None

    server, port = listener()
    join = _join(tmp_path, port)
    try:
        first = Hostile.accept(server)
        try:
            attack(first)
        finally:
            first.close()
        second = Hostile.accept(server)  # the joiner dials again: a brand new match for it
        try:
            hello = second.hello()
            assert hello["match"] is not None and hello.get("deal") is True, hello
            second.send({"t": "setup", "match": b"\x66" * 16, "seed": None, "target": 50, "games": None,
                         "players": [second.name, hello["name"]], "resume": False})  # fmt: skip
            told = second.refusal()
        finally:
            second.close()
        rc, _out, err = finish(join, TIMEOUT)
    finally:
        server.close()
        if join.poll() is None:
            join.kill()
            join.wait()
    assert told is not None and told["code"] == "other-match", told
    line = one_line(err)
    assert "the host left after it had your half of the seed" in line, line
    assert rc == 3, (rc, err)


@pytest.mark.slow
def test_whole_matches_through_the_cutting_proxy() -> None:
    """A few of scripts/cut_matches' 200: cut at seeded points, every match finishes with
    identical records equal to the uninterrupted match (the bot driver has no idle check)."""
    from tests.adversary.cut_matches import one

    # 38 and 45: the first handshake is cut after the joiner had begun the match but before
    # the host had the joiner's sync (the host kept no match, and said no-match when the
    # joiner came back: 12 of the first 200 hung so); 1000 and 1001: any
    out = [one(k) for k in (38, 45, 1000, 1001)]
    assert all(o.ok for o in out), [o.why for o in out if not o.ok]
    assert sum(o.cuts for o in out) > 0
