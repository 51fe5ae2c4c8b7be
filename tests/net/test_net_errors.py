"""Network errors in people's words: nobody hosting, a port taken, a server that
is not a p2p-spite host (loopback only)."""

from __future__ import annotations

import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.net import CLI

TIMEOUT = 60


def _run(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=tmp, capture_output=True, text=True, timeout=TIMEOUT)


@pytest.fixture(params=[b"SSH-2.0-OpenSSH_9.6\r\n", b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"])
def foreign_server(request: pytest.FixtureRequest) -> Iterator[int]:
    """A server on 127.0.0.1 that answers every connection with another protocol's words."""
    srv = socket.create_server(("127.0.0.1", 0))
    srv.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    conn.sendall(request.param)
                    conn.recv(100)
                except OSError:
                    pass

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        yield srv.getsockname()[1]
    finally:
        stop.set()
        t.join(5)
        srv.close()


def test_a_server_that_is_not_a_p2p_spite_host(tmp_path: Path, foreign_server: int) -> None:
    r = _run(tmp_path, "join", f"127.0.0.1:{foreign_server}", "--bot", "easy", "--no-code")
    assert r.returncode == 1
    assert r.stderr == (
        f"p2p-spite: that is not a p2p-spite host: 127.0.0.1:{foreign_server} speaks another protocol\n"
    )


def test_a_port_that_is_taken(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        r = _run(tmp_path, "host", "--bind", "127.0.0.1", "--port", str(port), "--no-announce")
    assert r.returncode == 1
    assert r.stderr == f"p2p-spite: port {port} is taken: use --port N or --port 0\n"


def test_an_address_that_is_not_this_machines(tmp_path: Path) -> None:
    # binding only: nothing is sent (198.51.100.0/24 is a documentation range)
    r = _run(tmp_path, "host", "--bind", "198.51.100.254", "--port", "0", "--no-announce")
    assert r.returncode == 1
    assert "198.51.100.254 is not an address of this machine" in r.stderr and r.stderr.count("\n") == 1
