"""Issue 44, "Play again trusts the host's next setup", between real processes on
127.0.0.1: the project's own host with one edit, the configuration of its next match
(tests/adversary/nexthost.py), against the real ``join --bot easy --matches 2``.  Match 1
is played honestly and both say yes; a second ``setup`` with a seed of the host's choosing,
the private deck dropped, other rules or another name is refused before a card is dealt,
with the code ``not-agreed`` and one line, and the joiner exits 1 with the record of match
1 whole and none of match 2.  Honest, match 2 is played, the console says how its seed was
agreed, and a file already where its record would go is left alone."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.core.game import Action, GameCore
from p2p_spite.engine import Match
from tests.adversary.hostile import Hostile, listener
from tests.adversary.realhost import SEED, check_record, one_line
from tests.support.net import Outcome, finish, host_and_join, spawn

pytestmark = pytest.mark.slow  # (real processes)
TIMEOUT = 180.0
NEXTHOST = [sys.executable, "-m", "tests.adversary.nexthost"]
OURS = "p2p-spite: refused the next match with {name} before any card was dealt: "
NOT_AGREED = "it is not the match both agreed to play again"


def _run(tmp: Path, mode: str, *host_extra: str) -> tuple[Outcome, Outcome]:
    """The modified host (``mode``) and the real joiner, two matches of one game each:
    (exit code, stdout, stderr) of the host, then of the joiner."""
    return host_and_join(
        ["--bind", "127.0.0.1", "--port", "0", "--no-code", "--name", "Ann", "--games", "1",
         "--record", "h.json", "--bot", "easy", "--bot-seed", "1", "--matches", "2", "--grace", "2",
         *host_extra],
        ["--no-code", "--name", "Bob", "--record", "j.json", "--bot", "easy", "--bot-seed", "2",
         "--matches", "2", "--grace", "2"],
        tmp,
        TIMEOUT,
        host_program=[*NEXTHOST, mode],
    )  # fmt: skip


CHANGED = {
    "seed": ((), "setup: the host chose the seed; a later match's seed is drawn by both"),
    "public": (("--private",), "setup: a seeded deck; the match agreed has a private one"),
    "rules": ((), "setup: target 1; the match agreed has target 50"),
    "name": ((), "setup: players ['Mallory', 'Bob']; the match agreed has ['Ann', 'Bob']"),
}


@pytest.mark.parametrize("mode", list(CHANGED))
def test_a_next_match_other_than_the_one_agreed_is_refused_by_the_joiner(tmp_path: Path, mode: str) -> None:
    extra, detail = CHANGED[mode]
    (hrc, _hout, herr), (jrc, jout, jerr) = _run(tmp_path, mode, *extra)
    assert one_line(jerr) == f"{OURS.format(name='Ann')}{NOT_AGREED} ({detail})", jerr
    assert jrc == 1, (jrc, jout, jerr)
    assert "match 2 started" not in jout and "final scores" in jout, jout
    # the host is told why, in one line, and exits 1 too
    told = "p2p-spite: Bob refused the next match before any card was dealt: "
    assert one_line(herr) == f"{told}{NOT_AGREED} ({detail})", herr
    assert hrc == 1, (hrc, herr)
    # match 1 stands and checks; no card of match 2 was dealt: no record of it on either side
    assert check_record(tmp_path / "j.json")["games"], jout
    assert (tmp_path / "j.json").read_bytes() == (tmp_path / "h.json").read_bytes()
    assert not (tmp_path / "j-2.json").exists() and not (tmp_path / "h-2.json").exists()
    assert not list(tmp_path.glob("*.journal"))


def test_the_next_match_agreed_is_played_and_an_existing_file_is_left_alone(tmp_path: Path) -> None:
    precious = tmp_path / "j-2.json"
    precious.write_text("another match's record\n")
    (hrc, _hout, herr), (jrc, jout, jerr) = _run(tmp_path, "honest")
    assert (hrc, jrc) == (0, 0), (herr, jerr)
    assert "Traceback" not in herr + jerr
    # what the console says of the seed is how it was agreed: drawn by both
    joined = next(ln for ln in jout.splitlines() if ln.startswith("joined Ann's match; "))
    assert "seed drawn by both" in joined, jout  # (the first: no --seed, drawn by both too)
    started = next(ln for ln in jout.splitlines() if ln.startswith("match 2 started; "))
    assert started.startswith("match 2 started; seed drawn by both: "), jout
    assert precious.read_text() == "another match's record\n"  # never written over
    second = tmp_path / "j-2-2.json"
    assert f"record: {second.name}" in jout or f"record: {second}" in jout, jout
    assert second.read_bytes() == (tmp_path / "h-2.json").read_bytes()
    assert check_record(second)["seed_by"] == "both"


# -- a hand-written host: a setup early, twice, or for the match just over ----------------


def _host_match_one(p: Hostile) -> None:
    """As the host: a seeded one-game match with the real joiner, resigned on our turn;
    then the joiner's yes to another match (its --matches 2) is read."""
    p.hello()
    match_id, seed = bytes(range(16)), bytes.fromhex(SEED)
    names = ("mallory", "Bob")
    p.send({"t": "setup", "match": match_id, "seed": seed, "target": 50, "games": 1,
            "players": list(names), "resume": False})  # fmt: skip
    p.core = c = GameCore(Match(seed, 50, names), 0, match_id, 1)
    p.sync()
    while c.match.game.turn != 0:
        p.receive_action()
    a = Action(1, 0)
    p.send({"t": "resign", "n": c.position, "g": 1, "s": 0, "d": c.digest_after(a), "a": b"\3" * 32})
    c.apply(a)
    while (m := p.recv())["t"] != "rematch":
        pass
    assert m == {"t": "rematch", "match": match_id, "yes": True}, m
    p.send({"t": "rematch", "match": match_id, "yes": True})


def _next_setup(p: Hostile, **over: Any) -> dict[str, Any]:
    assert p.core is not None
    return {"t": "setup", "match": b"\x0b" * 16, "seed": None, "target": 50, "games": 1,
            "players": ["mallory", "Bob"], "resume": False, **over}  # fmt: skip


def _setup_before_hello(p: Hostile) -> None:
    p.send(_next_setup(p))  # (the next frame must be our next hello)


def _setup_twice(p: Hostile) -> None:
    p.hello()
    p.send(_next_setup(p))
    p.send(_next_setup(p))


def _setup_for_the_match_over(p: Hostile) -> None:
    assert p.core is not None
    p.hello()
    p.send(_next_setup(p, match=p.core.match_id, resume=True))


HOSTILE_HOSTS: dict[str, tuple[Callable[[Hostile], None], str, str]] = {
    "early": (_setup_before_hello, "unexpected", "a message came at the wrong time"),
    "twice": (_setup_twice, "unexpected", "a message came at the wrong time"),
    "wrong match": (_setup_for_the_match_over, "not-agreed", NOT_AGREED),
}


@pytest.mark.parametrize("what", list(HOSTILE_HOSTS))
def test_a_hostile_hosts_next_setup_is_refused_by_the_real_joiner(tmp_path: Path, what: str) -> None:
    attack, code, words = HOSTILE_HOSTS[what]
    server, port = listener()
    join = spawn(
        ["join", f"127.0.0.1:{port}", "--no-code", "--name", "Bob", "--record", "j.json",
         "--bot", "easy", "--bot-seed", "2", "--matches", "2", "--grace", "2"],
        tmp_path,
    )  # fmt: skip
    try:
        p = Hostile.accept(server, timeout=TIMEOUT)
        try:
            _host_match_one(p)
            attack(p)
            told = p.refusal()
        finally:
            p.close()
        rc, out, err = finish(join, TIMEOUT)
    finally:
        server.close()
        if join.poll() is None:
            join.kill()
            join.wait()
    assert told is not None and told["code"] == code, (told, err)
    line = one_line(err)
    assert line.startswith(OURS.format(name="mallory") + words), err
    assert rc == 1, (rc, out, err)
    assert check_record(tmp_path / "j.json")["games"], out  # match 1 whole; nothing of a match 2
    assert not (tmp_path / "j-2.json").exists() and "match 2 started" not in out
