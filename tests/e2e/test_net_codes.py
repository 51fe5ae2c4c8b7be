"""Join codes over real processes: wrong code and no code refused (the host keeps
waiting), the right code accepted, and the code never on the wire; nor, with a code,
anything of the match (net/opening.py: the connection is sealed)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.net import CLI, read_code, reader, spawn, wait_listening
from tests.support.proxy import FaultProxy, Plan

TIMEOUT = 60


def _join(tmp: Path, port: int, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "join", f"127.0.0.1:{port}", "--bot", "easy", "--record", "j.json", *extra],
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={"XDG_DATA_HOME": str(tmp / "xdg"), "PATH": "/usr/bin:/bin"},
    )


def test_join_codes(tmp_path: Path) -> None:
    host = spawn(["host", "--bind", "127.0.0.1", "--port", "0", "--bot", "easy", "--games", "1",
                  "--record", "h.json", "--name", "Zanzibar"], tmp_path)  # fmt: skip
    try:
        port, _ = wait_listening(host)
        code = read_code(host)
        assert len(code) == 9 and code[4] == "-"
        with FaultProxy(port, Plan()) as refused:
            wrong = _join(tmp_path, refused.port, "--code", "AAAA-AAAA")
            assert wrong.returncode != 0
            assert "wrong join code" in wrong.stderr and wrong.stderr.count("\n") == 1, wrong.stderr

            missing = _join(tmp_path, refused.port)
            assert missing.returncode != 0
            assert "--code" in missing.stderr and missing.stderr.count("\n") == 1, missing.stderr

            assert host.poll() is None  # still waiting
        with FaultProxy(port, Plan(), capture=True) as proxy:  # the tap on the match's connection
            right = _join(tmp_path, proxy.port, "--code", code.lower().replace("-", " "), "--name", "Quixote")
            assert right.returncode == 0, right.stderr
        host.wait(TIMEOUT)
        out = reader(host).rest(5)
        assert host.stderr is not None
        err = host.stderr.read()
    finally:
        if host.poll() is None:
            host.kill()
    assert host.returncode == 0, err
    # the first drop at once, the second merged into a line told when the match starts
    assert err.count("refused a connection") == 1 and "Traceback" not in err
    assert err.count("refused 1 more connection ") == 1, err
    assert "final scores" in out
    assert proxy.wire is not None and len(proxy.wire) > 1000
    for form in (code, code.replace("-", ""), code.lower(), code.lower().replace("-", "")):
        assert form.encode() not in proxy.wire
    # sealed: no name, no seed, no message of the game protocol, no move on the wire
    seed = bytes.fromhex(json.loads((tmp_path / "h.json").read_text())["seed"])
    for plain in (b"Zanzibar", b"Quixote", seed, seed.hex().encode(), b"p2p-spite", b"hello", b"setup",
                  b"hand", b"center", b"stock", b"discard"):  # fmt: skip
        assert plain not in proxy.wire, plain
    assert proxy.wire.startswith(b"P2PLAN1|B")  # (the opening: all that goes in clear)
    assert (tmp_path / "h.json").read_bytes() == (tmp_path / "j.json").read_bytes()


def test_no_code_host_refuses_a_joiner_with_a_code(tmp_path: Path) -> None:
    host = spawn(["host", "--bind", "127.0.0.1", "--port", "0", "--no-code", "--bot", "easy", "--games", "1"],
                 tmp_path)  # fmt: skip
    try:
        port, _ = wait_listening(host)
        r = _join(tmp_path, port, "--code", "ABCD-EFGH")
        assert r.returncode != 0 and "does not use a join code" in r.stderr
        assert host.poll() is None
    finally:
        host.kill()
        host.wait(10)
