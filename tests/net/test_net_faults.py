"""Fault injection: headless bot matches through a proxy that cuts, delays, splits,
coalesces and freezes the connection; processes killed with SIGKILL and resumed.

Every match must finish with identical records on both sides; through the
proxy, the record must equal the uninterrupted match with the same seed and bots.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.storage import record
from p2p_spite.storage.journal import read_journal
from p2p_spite.storage.resume import load_saved, record_actions
from tests.adversary.cut_matches import expected as _expected
from tests.adversary.cut_matches import record_core as _core
from tests.support.net import (
    CLI,
    bot_host_args,
    bot_join_args,
    finish_all,
    free_port,
    reader,
    spawn,
    wait_listening,
)
from tests.support.proxy import FaultProxy, Plan

TIMEOUT = 90
GAMES = 3
GRACE = 30  # seconds each side waits for a lost peer
FIGURES: dict[str, int] = {}


def _add(key: str, n: int) -> None:
    FIGURES[key] = FIGURES.get(key, 0) + n


def _moves(rec: dict[str, Any]) -> int:
    return sum(len(g["moves"]) for g in rec["games"])


def _wait(*procs: subprocess.Popen[str]) -> list[tuple[int, str, str]]:
    """Both peers to the end (a hang fails the test with both sides' output)."""
    return finish_all(procs, TIMEOUT)


def _host_args(
    seed_hex: str, extra: list[str], games: int | None = None, with_code: bool = False
) -> list[str]:
    return bot_host_args(seed_hex, extra, games or GAMES, GRACE, with_code)


def _join_args(port: int, extra: list[str]) -> list[str]:
    return bot_join_args(port, extra, GRACE)


def _through_proxy(tmp: Path, seed_hex: str, plan: Plan) -> FaultProxy:
    host = spawn([*_host_args(seed_hex, []), "--port", "0"], tmp)
    try:
        port, _ = wait_listening(host)
        with FaultProxy(port, plan) as proxy:
            join = spawn(_join_args(proxy.port, []), tmp)
            (jrc, jout, jerr), (hrc, hout, herr) = _wait(join, host)
    finally:
        if host.poll() is None:
            host.kill()
    assert (hrc, jrc) == (0, 0), (herr, jerr, hout[-1500:], jout[-1500:])
    assert "Traceback" not in herr + jerr
    return proxy


SEEDS = [f"{i:02x}" * 32 for i in (1, 2, 3, 4, 5)]
CUTS_PER_MATCH = 5


@pytest.mark.slow
@pytest.mark.parametrize("k", range(len(SEEDS)))
def test_cut_connections_still_give_the_uninterrupted_record(tmp_path: Path, k: int) -> None:
    seed_hex = SEEDS[k]
    plan = Plan.seeded(1000 + k, CUTS_PER_MATCH)
    proxy = _through_proxy(tmp_path, seed_hex, plan)
    h = json.loads((tmp_path / "h.json").read_text())
    j = json.loads((tmp_path / "j.json").read_text())
    want = _expected(seed_hex, GAMES)
    _add("faults injected", proxy.stats.cuts)
    _add("matches", 1)
    _add("moves lost", max(0, _moves(want) - min(_moves(h), _moves(j))))
    assert _core(h) == _core(j), "the two records differ"
    assert _core(h) == _core(want), "the record differs from the uninterrupted match"
    _add("matches finished", 1)
    assert proxy.stats.cuts == CUTS_PER_MATCH, proxy.stats
    print(
        f"\nseed {k}: cuts at {proxy.stats.cut_offsets}, {_moves(h)} moves, "
        f"{proxy.stats.connections} connections"
    )


@pytest.mark.parametrize(
    "plan",
    [
        Plan(split=3, cuts=[30, 2000]),
        Plan(coalesce=0.002, cuts=[5000]),
        Plan(delay=0.0005, cuts=[120, 9000]),
    ],
    ids=["split", "coalesce", "delay"],
)
def test_split_coalesced_and_delayed_frames(tmp_path: Path, plan: Plan) -> None:
    seed_hex = "ee" * 32
    global GAMES
    games, GAMES = GAMES, 1
    try:
        proxy = _through_proxy(tmp_path, seed_hex, plan)
        want = _expected(seed_hex, 1)
    finally:
        GAMES = games
    h = json.loads((tmp_path / "h.json").read_text())
    j = json.loads((tmp_path / "j.json").read_text())
    assert _core(h) == _core(j) == _core(want)
    _add("faults injected", proxy.stats.cuts)
    _add("matches", 1)
    _add("matches finished", 1)


@pytest.mark.slow
def test_a_silent_peer_is_noticed_by_heartbeats(tmp_path: Path) -> None:
    """A frozen (half-open) connection: the heartbeats notice it, the joiner redials."""
    seed_hex = "dd" * 32
    global GAMES
    games, GAMES = GAMES, 1
    try:
        hb = ["--heartbeat", "0.2"]
        host = spawn([*_host_args(seed_hex, hb), "--port", "0"], tmp_path)
        try:
            port, _ = wait_listening(host)
            with FaultProxy(port, Plan(freezes=[3000])) as proxy:
                t0 = time.monotonic()
                join = spawn(_join_args(proxy.port, hb), tmp_path)
                (jrc, jout, jerr), (hrc, _hout, herr) = _wait(join, host)
                took = time.monotonic() - t0
        finally:
            if host.poll() is None:
                host.kill()
        want = _expected(seed_hex, 1)
    finally:
        GAMES = games
    assert (hrc, jrc) == (0, 0), (herr, jerr)
    assert proxy.stats.freezes == 1 and proxy.stats.connections >= 2
    assert "the connection to host was lost; " in jout, jout
    # without the heartbeats the frozen connection would hang until the test's TIMEOUT;
    # a loaded 2-core CI machine may be slow, but nowhere near a whole grace period
    assert took < GRACE, f"the frozen connection took {took:.1f} s to notice"
    _add("faults injected", 1)
    _add("matches", 1)
    _add("matches finished", 1)
    h = json.loads((tmp_path / "h.json").read_text())
    assert _core(h) == _core(json.loads((tmp_path / "j.json").read_text())) == _core(want)


# -- kill -9 and --resume ----------------------------------------------------------------------


def _actions_of(path: Path) -> list[Any]:
    saved = load_saved(path)
    return [(a.game, a.seat, a.move) for a in saved.actions]


def _wait_for_moves(journal: Path, n: int, proc: subprocess.Popen[str], timeout: float = 30) -> None:
    """Until the journal holds ``n`` actions (a seeded point in the match) or the process ended."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if journal.read_bytes().count(b"\n") >= n:
                return
        except FileNotFoundError:
            pass
        time.sleep(0.002)


KILL_GAMES = 40  # up to the target: a whole match (~2 s), time to kill it mid-way
KILLS = [
    ("host", 11),
    ("join", 12),
    ("host", 13),
    ("join", 14),
    ("join", 15),
    ("host", 16),
    ("host", 17),
    ("join", 18),
]
WITH_CODE = {17, 18}  # these matches use a join code: resuming needs no new one
SAVED_PORT = 16  # this host resumes with no --port: it listens where it did (its journal says)


@pytest.mark.slow
@pytest.mark.parametrize("victim,seed", KILLS)
def test_kill_9_and_resume(tmp_path: Path, victim: str, seed: int) -> None:
    rng = random.Random(seed)
    seed_hex = f"{seed:02x}" * 32
    port = free_port()
    code = ["--code", "WXYZ-2345"] if seed in WITH_CODE else []
    host = spawn([*_host_args(seed_hex, code, KILL_GAMES, bool(code)), "--port", str(port)], tmp_path)
    procs = [host]
    try:
        wait_listening(host)
        join = spawn(_join_args(port, code), tmp_path)
        procs.append(join)
        proc = host if victim == "host" else join
        reader(proc).wait(r"^game 1 started", 20)
        path = tmp_path / ("h.json" if victim == "host" else "j.json")
        _wait_for_moves(path.with_name(path.name + ".journal"), rng.randrange(5, 1500), proc)
        killed = proc.poll() is None
        if killed:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
            before = _actions_of(path)
            _add("kill -9", 1)
            time.sleep(rng.uniform(0.0, 0.5))
            if victim == "host":  # (seed SAVED_PORT: no --port, the journal's port is the default)
                where = [] if seed == SAVED_PORT else ["--port", str(port)]
                again = spawn(
                    [*_host_args(seed_hex, ["--resume", "h.json"], KILL_GAMES, bool(code)), *where], tmp_path
                )
                assert wait_listening(again)[0] == port
            else:
                again = spawn(_join_args(port, ["--resume", "j.json"]), tmp_path)
            procs.append(again)
            survivor = join if victim == "host" else host
            codes = _wait(again, survivor)
        else:
            before = []
            codes = _wait(host, join)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for rc, out, err in codes:
        assert rc == 0, (err, out[-2000:])
        assert "Traceback" not in err
    h = json.loads((tmp_path / "h.json").read_text())
    j = json.loads((tmp_path / "j.json").read_text())
    assert _core(h) == _core(j)
    for name in ("h.json", "j.json"):
        r = subprocess.run(
            [*CLI, "replay", "--check", name], cwd=tmp_path, capture_output=True, text=True, timeout=60
        )
        assert r.returncode == 0, r.stderr
    after = _actions_of(tmp_path / "h.json")
    assert after[: len(before)] == before, "a move shown before the kill was lost or changed"
    assert max(h["scores"]) >= 50 or len(h["games"]) == KILL_GAMES
    assert killed, "the match ended before the kill: make it longer"
    _add("moves kept through kill -9", len(before))
    _add("resumed matches finished", 1)


@pytest.mark.slow
def test_cuts_during_the_first_handshake_with_a_code_and_a_drawn_seed(tmp_path: Path) -> None:
    """Cut the first connections inside the handshake (hello, auth, setup, commit-reveal, sync)."""
    plan = Plan(cuts=[20, 130, 260, 330, 400, 6000])
    host = spawn(
        ["host", "--bind", "127.0.0.1", "--port", "0", "--games", "1", "--bot", "easy", "--record", "h.json",
         "--grace", "30", "--code", "PQRS-TUVW"],
        tmp_path,
    )  # fmt: skip
    try:
        port, _ = wait_listening(host)
        with FaultProxy(port, plan, capture=True) as proxy:
            join = spawn(
                ["join", f"127.0.0.1:{proxy.port}", "--bot", "easy", "--record", "j.json", "--grace", "30",
                 "--code", "pqrs-tuvw"],
                tmp_path,
            )  # fmt: skip
            (jrc, _jout, jerr), (hrc, _hout, herr) = _wait(join, host)
    finally:
        if host.poll() is None:
            host.kill()
    assert (hrc, jrc) == (0, 0), (herr, jerr)
    # The five handshake cuts always happen; the one at byte 6000 of the sixth
    # connection only if the (freshly drawn) deal gives a game that long.
    assert proxy.stats.cut_offsets[:5] == plan.cuts[:5]
    assert (tmp_path / "h.json").read_bytes() == (tmp_path / "j.json").read_bytes()
    assert proxy.wire is not None
    for form in (b"PQRS-TUVW", b"PQRSTUVW", b"pqrs-tuvw", b"pqrstuvw"):
        assert form not in proxy.wire
    _add("faults injected", proxy.stats.cuts)
    _add("matches", 1)
    _add("matches finished", 1)


def test_zz_figures() -> None:
    """Prints the totals of the fault tests above (run with -s to see them)."""
    print("\nfault-injection figures:", ", ".join(f"{k}: {v}" for k, v in FIGURES.items()))
    assert FIGURES.get("moves lost", 0) == 0


@pytest.mark.slow
def test_resume_when_our_own_last_action_was_lost(tmp_path: Path) -> None:
    """The joiner's journal loses its own last action (written but not yet fsynced at a
    power cut; a torn last line): the host, catching it up, sends it back, and the match
    goes on to identical records."""
    seed_hex = "c3" * 32
    port = free_port()
    host = spawn([*_host_args(seed_hex, [], KILL_GAMES), "--port", str(port)], tmp_path)
    procs = [host]
    try:
        wait_listening(host)
        join = spawn(_join_args(port, []), tmp_path)
        procs.append(join)
        reader(join).wait(r"^game 1 started", 20)
        journal = tmp_path / "j.json.journal"
        _wait_for_moves(journal, 40, join)
        assert join.poll() is None, "the match ended too soon"
        os.kill(join.pid, signal.SIGKILL)
        join.wait(10)
        time.sleep(0.3)  # the host has what reached it
        rec = record.load(tmp_path / "j.json")
        start = len(record_actions(rec))
        lines = journal.read_bytes().split(b"\n")[:-1]
        host_has = len(load_saved(tmp_path / "h.json").actions)
        own = [
            i
            for i, line in enumerate(lines)
            if "n" in (obj := json.loads(line))  # not the key, a tag or a request
            and obj["n"] >= start
            and obj["n"] < host_has
            and (obj.get("resign") == 1 or obj.get("m", [0])[0] == 1)
        ]
        assert own, "no action of the joiner's that the host holds: make the match longer"
        cut = own[-1]
        n_lost = json.loads(lines[cut])["n"]
        journal.write_bytes(b"\n".join(lines[:cut]) + b"\n" + lines[cut][:9])  # torn
        kept = sum(1 for line in lines[:cut] if "n" in json.loads(line))
        assert len(read_journal(journal, 0)) == kept, (cut, n_lost, host_has, start)
        again = spawn(_join_args(port, ["--resume", "j.json"]), tmp_path)
        procs.append(again)
        codes = _wait(again, host)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for rc, out, err in codes:
        assert rc == 0, (err, out[-2000:])
        assert "Traceback" not in err
    assert (tmp_path / "h.json").read_bytes() == (tmp_path / "j.json").read_bytes()
    assert len(load_saved(tmp_path / "h.json").actions) > n_lost
