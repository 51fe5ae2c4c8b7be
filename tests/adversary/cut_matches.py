"""Issue 9, "must show": many whole bot matches through the cutting proxy
(tests/support/proxy.py) at seeded cut points, with no idle-check fallback in the bot
driver: every match must finish on both sides with identical records, equal to the
uninterrupted match.  ``scripts/cut_matches`` runs it (200 matches by default) and prints
the figures; ``test_cut_matches`` (slow) runs a few.  Only 127.0.0.1 is used."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p2p_spite.bots import make_bot
from p2p_spite.bots.selfplay import play_match
from p2p_spite.engine import Match
from p2p_spite.storage import record
from tests.support.net import finish_all, spawn, wait_listening
from tests.support.proxy import FaultProxy, Plan

GAMES = 2
CUTS = 4
GRACE = 30


@dataclass
class Outcome:
    k: int
    ok: bool
    cuts: int
    moves: int
    seconds: float
    why: str = ""


def expected(seed_hex: str, games: int) -> dict[str, Any]:
    match = Match(bytes.fromhex(seed_hex), 50, ("host", "joiner"))
    play_match(match, [make_bot("easy", 1), make_bot("easy", 2)], max_games=games)
    return record.to_json(match)


def record_core(rec: dict[str, Any]) -> tuple[Any, ...]:
    return (rec["seed"], rec["games"], rec["scores"], rec["players"])


def one(k: int, base: int = 0) -> Outcome:
    """Match ``k``: its seed and its cut points both follow from ``base + k``."""
    t0 = time.monotonic()
    seed_hex = hashlib.sha256(f"cut-match {base + k}".encode()).hexdigest()
    plan = Plan.seeded(50_000 + base + k, CUTS)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        host = spawn(
            ["host", "--bind", "127.0.0.1", "--port", "0", "--no-code", "--no-announce", "--seed", seed_hex,
             "--games", str(GAMES), "--bot", "easy", "--bot-seed", "1", "--record", "h.json",
             "--grace", str(GRACE)],
            tmp,
        )  # fmt: skip
        try:
            port, _ = wait_listening(host)
            with FaultProxy(port, plan) as proxy:
                join = spawn(
                    ["join", f"127.0.0.1:{proxy.port}", "--bot", "easy", "--bot-seed", "2",
                     "--record", "j.json", "--grace", str(GRACE)],
                    tmp,
                )  # fmt: skip
                try:
                    (hrc, _ho, herr), (jrc, _jo, jerr) = finish_all([host, join], 120)
                except AssertionError as e:
                    return Outcome(k, False, proxy.stats.cuts, 0, time.monotonic() - t0, f"hang: {e}"[:600])
        finally:
            for p in (host,):
                if p.poll() is None:
                    p.kill()
                    p.wait()
        if (hrc, jrc) != (0, 0) or "Traceback" in herr + jerr:
            return Outcome(
                k,
                False,
                proxy.stats.cuts,
                0,
                time.monotonic() - t0,
                f"exit {hrc}/{jrc}: {herr[-300:]} {jerr[-300:]}",
            )
        h_bytes, j_bytes = (tmp / "h.json").read_bytes(), (tmp / "j.json").read_bytes()
        h = json.loads(h_bytes)
        want = expected(seed_hex, GAMES)
        moves = sum(len(g["moves"]) for g in h["games"])
        if h_bytes != j_bytes:
            return Outcome(k, False, proxy.stats.cuts, moves, time.monotonic() - t0, "the two records differ")
        if record_core(h) != record_core(want):
            return Outcome(
                k,
                False,
                proxy.stats.cuts,
                moves,
                time.monotonic() - t0,
                "differs from the uninterrupted match",
            )
        return Outcome(k, True, proxy.stats.cuts, moves, time.monotonic() - t0)


def run(n: int, jobs: int, base: int = 0) -> list[Outcome]:
    with ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(lambda k: one(k, base), range(n)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="cut_matches")
    ap.add_argument("--matches", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--base", type=int, default=0, help="first seed number")
    a = ap.parse_args(argv)
    t0 = time.monotonic()
    out = run(a.matches, a.jobs, a.base)
    bad = [o for o in out if not o.ok]
    for o in bad:
        print(f"match {o.k}: FAILED: {o.why}", flush=True)
    load = os.getloadavg()
    print(
        f"{len(out) - len(bad)}/{len(out)} matches finished with identical records equal to the "
        f"uninterrupted match; {sum(o.cuts for o in out)} cuts; {sum(o.moves for o in out)} moves; "
        f"{time.monotonic() - t0:.0f} s with {a.jobs} at a time; "
        f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}",
        flush=True,
    )
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
