"""A crowd of strangers at a host's door (issue 9, item 3): idle sockets and a churn of
connections from one address (127.0.0.2), while a real joiner from 127.0.0.1 tries to
get in, against real ``p2p-spite host`` and ``join`` processes.

    python -m tests.adversary.siege attack --port P [--idle 50] [--connections N] [--rate R]
        the attacker alone (its own process; stops at N connections or when stdin closes)
    python -m tests.adversary.siege run [--connections N] [--rate R] [--resume]
        the whole siege, printing the figures (scripts/gate_siege)
    python -m tests.adversary.siege memory [--connections N]
        what N refused strangers leave in a host's memory in a match (scripts/gate_memory)

``--sources N``: the crowd comes from N addresses (127.0.0.2, 127.0.0.3, ...), not one.

The churn: ``--workers`` connections at a time, each held until the host drops it and
then opened again (half of them idle, half sending a valid opening element and then
nothing, so waiting in the join-code step: net/opening.py), at most ``--rate`` new
connections a second.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from p2p_spite.net.opening import Opening
from p2p_spite.tunnel.spake2 import Role
from tests.support.lanopen import scalar
from tests.support.net import CLI, ROOT, finish_all, read_code, reader, spawn, wait_listening

SOURCES = [f"127.0.0.{k}" for k in range(2, 66)]  # the attacker's "machines" (the first --sources)
HOST_ADDR = "127.0.0.1"


def _element() -> bytes:
    """A joiner's valid first message of the opening (of a code it does not have)."""
    return Opening(Role.B, scalar("WRONG-CODE")).data_to_send()


async def attack(
    port: int,
    *,
    idle: int,
    connections: int,
    rate: float,
    workers: int,
    before: int,
    sources: int,
    stop: asyncio.Event,
) -> dict[str, int]:
    """Open ``idle`` idle sockets, then churn until ``connections`` in all or ``stop``;
    say "ready" once ``before`` connections are made."""
    made = 0
    failed = 0
    dropped = 0  # connections the host closed or reset
    held: list[asyncio.StreamWriter] = []
    gap = 1.0 / rate if rate > 0 else 0.0
    next_at = [time.monotonic()]
    ready = asyncio.Event()

    async def connect() -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        nonlocal made, failed
        if gap:
            at = next_at[0] = max(next_at[0] + gap, time.monotonic())
            await asyncio.sleep(max(0.0, at - time.monotonic()))
        try:
            source = SOURCES[made % sources]
            pair = await asyncio.wait_for(
                asyncio.open_connection(HOST_ADDR, port, local_addr=(source, 0)), 10
            )
        except (OSError, TimeoutError):
            failed += 1
            await asyncio.sleep(0.01)
            return None
        made += 1
        return pair

    for _ in range(idle):
        if made >= connections or stop.is_set():
            break
        pair = await connect()
        if pair is not None:
            held.append(pair[1])

    async def churn(k: int) -> None:
        nonlocal dropped
        while made < connections and not stop.is_set():
            pair = await connect()
            if made >= before:
                ready.set()
            if pair is None:
                continue
            r, w = pair
            if k % 2:
                w.write(_element())  # a valid element, then silence in the join-code step
            try:
                while await asyncio.wait_for(r.read(4096), 30):
                    pass
                dropped += 1
            except (OSError, TimeoutError):
                dropped += 1
            finally:
                w.close()

    tasks = [asyncio.create_task(churn(k)) for k in range(workers)]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(ready.wait(), 30)
    print(f"ready: {made} connections made", flush=True)
    await asyncio.wait([asyncio.create_task(stop.wait()), *tasks], return_when=asyncio.FIRST_COMPLETED)
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for w in held:
        w.close()
    return {"made": made, "failed": failed, "dropped": dropped, "idle": len(held)}


def _attack_main(args: argparse.Namespace) -> int:
    async def main() -> dict[str, int]:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()

        def watch_stdin() -> None:  # the driver closes our stdin: stop
            sys.stdin.read()
            loop.call_soon_threadsafe(stop.set)

        threading.Thread(target=watch_stdin, daemon=True).start()
        return await attack(
            args.port,
            idle=args.idle,
            connections=args.connections,
            rate=args.rate,
            workers=args.workers,
            before=args.before,
            sources=args.sources,
            stop=stop,
        )

    figures = asyncio.run(main())
    print("figures: " + " ".join(f"{k}={v}" for k, v in figures.items()), flush=True)
    return 0


@dataclass
class Figures:
    connect_to_in: float = 0.0  # the joiner's "connecting" line to its "joined" line, seconds
    spawn_to_in: float = 0.0  # the joiner process started to its "joined" line, seconds
    attack: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # the host's console lines about strangers
    host: tuple[int, str, str] = (0, "", "")
    join: tuple[int, str, str] = (0, "", "")


def siege(
    tmp: Path,
    *,
    connections: int,
    before: int,
    rate: float,
    workers: int = 64,
    idle: int = 50,
    sources: int = 1,
    resume: bool = False,
) -> Figures:
    """A host (bot, join code) under attack while a joiner (bot) gets in.  ``resume``: the
    joiner first plays as a person who never moves, is killed (-9), and comes back with
    ``join --resume`` under the attack (the host keeps the seat meanwhile)."""
    fig = Figures()
    host = spawn(
        ["host", "--bind", HOST_ADDR, "--port", "0", "--name", "Ann", "--bot", "easy", "--games", "1",
         "--record", "h.json"],
        tmp,
    )  # fmt: skip
    procs = [host]
    attacker: subprocess.Popen[str] | None = None
    try:
        port, _ = wait_listening(host)
        code = read_code(host)
        join_args = ["join", f"{HOST_ADDR}:{port}", "--bot", "easy", "--record", "j.json"]
        if resume:
            # a person who takes their time (its stdin a pipe nobody types into)
            args = ["join", f"{HOST_ADDR}:{port}", "--code", code, "--name", "Bob", "--record", "j.json"]
            first = spawn(args, tmp, stdin=True)
            procs.append(first)
            reader(first).wait(r"^joined ", 30)
            reader(host).wait(r"^game 1 started", 30)
            os.kill(first.pid, signal.SIGKILL)
            first.wait(10)
            reader(host).wait(r"^the connection to \S+ was lost; keeping the seat open", 30)
            join_args += ["--resume", "j.json"]  # no name, no code: the record has them
        else:
            join_args += ["--code", code, "--name", "Bob"]
        attacker = subprocess.Popen(
            [*CLI[:1], "-m", "tests.adversary.siege", "attack", "--port", str(port), "--idle", str(idle),
             "--connections", str(connections), "--rate", str(rate), "--workers", str(workers),
             "--before", str(before), "--sources", str(sources)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        reader(attacker).wait(r"^ready", 60)
        t0 = time.monotonic()
        join = spawn(join_args, tmp)
        procs.append(join)
        reader(join).wait(r"^(connecting|reconnecting) to", 30)
        t1 = time.monotonic()
        reader(join).wait(r"^(joined|back in) ", 30)
        t2 = time.monotonic()
        fig.connect_to_in, fig.spawn_to_in = t2 - t1, t2 - t0
        assert attacker.stdin is not None
        attacker.stdin.close()
        m = reader(attacker).wait(r"^figures: (.*)", 60)
        fig.attack = {k: int(v) for k, v in (kv.split("=") for kv in m.group(1).split())}
        attacker.wait(30)
        fig.host, fig.join = finish_all([host, join], 120)
    finally:
        for p in [*procs, *([attacker] if attacker is not None else [])]:
            if p.poll() is None:
                p.kill()
                p.wait()
    fig.warnings = [x for x in fig.host[2].splitlines() if "dropped" in x or "refused" in x]
    return fig


def _run_main(args: argparse.Namespace) -> int:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        fig = siege(
            Path(d),
            connections=args.connections,
            before=args.before,
            rate=args.rate,
            workers=args.workers,
            idle=args.idle,
            sources=args.sources,
            resume=args.resume,
        )
    print(
        f"joiner ({'returning, --resume' if args.resume else 'new'}) got in: "
        f"{fig.connect_to_in:.2f} s after connecting ({fig.spawn_to_in:.2f} s after its process started)"
    )
    print(f"attacker: {fig.attack}")
    print(
        f"host exit {fig.host[0]}, joiner exit {fig.join[0]}; the host's warning lines: {len(fig.warnings)}"
    )
    for line in fig.warnings:
        print(f"  {line}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if fig.host[0] == 0 and fig.join[0] == 0 else 1  # fmt: skip


async def _strangers(port: int, n: int, at_once: int = 16) -> None:
    """``n`` strangers from 127.0.0.2, ``at_once`` at a time: each connects, every other
    one sends half an opening element, and closes."""
    gate = asyncio.Semaphore(at_once)

    async def one(k: int) -> None:
        async with gate:
            with contextlib.suppress(OSError, TimeoutError):
                _r, w = await asyncio.wait_for(
                    asyncio.open_connection(HOST_ADDR, port, local_addr=(SOURCES[0], 0)), 10
                )
                if k % 2:
                    w.write(_element()[:20])
                w.close()
                await asyncio.wait_for(w.wait_closed(), 10)

    await asyncio.gather(*(one(k) for k in range(n)))


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise OSError("no VmRSS (Linux only)")


def _memory_main(args: argparse.Namespace) -> int:
    """A host (bot, join code) in a match with a person who never moves; its resident
    memory before and after each thousand of ``--connections`` refused strangers."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        host = spawn(["host", "--bind", HOST_ADDR, "--port", "0", "--name", "Ann", "--bot", "easy",
                      "--record", "h.json"], tmp)  # fmt: skip
        procs = [host]
        try:
            port, _ = wait_listening(host)
            code = read_code(host)
            args_j = ["join", f"{HOST_ADDR}:{port}", "--code", code, "--name", "Bob", "--record", "j.json"]
            procs.append(spawn(args_j, tmp, stdin=True))
            reader(procs[1]).wait(r"^joined ", 30)
            reader(host).wait(r"^game 1 started", 30)
            time.sleep(1)
            before = _rss_kib(host.pid)
            print(f"the host's RSS in the match: {before:,} KiB", flush=True)
            done = 0
            while done < args.connections:
                k = min(1000, args.connections - done)
                asyncio.run(_strangers(port, k))
                done += k
                time.sleep(1)  # (the host lets the last ones go)
                now = _rss_kib(host.pid)
                print(f"after {done:,} strangers: {now:,} KiB (+{now - before:,} KiB, "
                      f"{(now - before) * 1024 / done:,.0f} bytes each)", flush=True)  # fmt: skip
        finally:
            for p in procs:
                p.kill()
                p.wait()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(prog="python -m tests.adversary.siege")
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("attack")
    a.add_argument("--port", type=int, required=True)
    for q in (a, sub.add_parser("run")):
        q.add_argument("--idle", type=int, default=50)
        q.add_argument("--connections", type=int, default=3000)
        q.add_argument("--rate", type=float, default=0, help="new connections a second (0: no limit)")
        q.add_argument("--workers", type=int, default=64)
        q.add_argument("--before", type=int, default=1000, help="connections made before the joiner starts")
        q.add_argument("--resume", action="store_true")
        q.add_argument("--sources", type=int, default=1, help=f"attack from 127.0.0.2 on (1..{len(SOURCES)})")
    sub.add_parser("memory").add_argument("--connections", type=int, default=3000)
    args = p.parse_args()
    if args.cmd == "memory":
        return _memory_main(args)
    return _attack_main(args) if args.cmd == "attack" else _run_main(args)


if __name__ == "__main__":
    sys.exit(main())
