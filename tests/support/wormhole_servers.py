"""The real magic-wormhole servers for the tunnel tests, on 127.0.0.1, each on a free port.

``magic-wormhole-mailbox-server`` and ``magic-wormhole-transit-relay`` (the test extras)
are started with their own twist plugins, as their READMEs say (``twist wormhole-mailbox``,
``twist transitrelay``), run as ``python -m twisted`` from this interpreter.  The port is
0, so the system picks a free one and no other test can take it meanwhile; the server's
log (JSON lines on its stdout, kept in a file) says which: "... starting on PORT".  The
wait for that line is bounded; the process is stopped (SIGTERM, then SIGKILL) after.
No mock of either server anywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")

START_DEADLINE = 60.0  # seconds for a server to listen (twisted imports slowly on a loaded machine)
_STARTING = re.compile(r"starting on (\d+)")


@dataclass
class WormholeServer:
    """A running server: ``port`` on 127.0.0.1; :meth:`stop` ends it (again: nothing)."""

    kind: str
    port: int
    proc: subprocess.Popen[bytes]
    log: Path
    stopped: bool = field(default=False)
    tls: bool = field(default=False)

    @property
    def url(self) -> str:
        """The mailbox's WebSocket address (wss:// when it speaks TLS)."""
        return f"{'wss' if self.tls else 'ws'}://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(15)

    def kill(self) -> None:
        """End it at once (SIGKILL): its clients see their connections drop."""
        if not self.stopped:
            self.stopped = True
            self.proc.kill()
            self.proc.wait(15)


def make_certificate(workdir: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key (PEM files in ``workdir``)."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = workdir / "cert.pem", workdir / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


def start_server(
    kind: str, workdir: Path, *options: str, tls: tuple[Path, Path] | None = None
) -> WormholeServer:
    """Start ``kind`` ("mailbox" or "relay") in ``workdir`` with the plugin's ``options``
    (``--signal-error=...``); with ``tls`` (certificate, key) it speaks TLS; wait until
    it listens."""
    workdir.mkdir(parents=True, exist_ok=True)
    log = workdir / f"{kind}.log"
    if kind == "mailbox":
        plugin = ["wormhole-mailbox", f"--channel-db={workdir / 'channel.sqlite'}"]
    elif kind == "relay":
        plugin = ["transitrelay"]
    else:
        raise ValueError(kind)
    port = "tcp:0:interface=127.0.0.1"
    if tls is not None:
        port = f"ssl:0:interface=127.0.0.1:certKey={tls[0]}:privateKey={tls[1]}"
    args = [sys.executable, "-m", "twisted", plugin[0], f"--port={port}", *plugin[1:], *options]
    with log.open("wb") as out:
        proc = subprocess.Popen(args, cwd=workdir, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + START_DEADLINE
    while True:
        m = _STARTING.search(log.read_text(errors="replace"))
        if m:
            return WormholeServer(kind, int(m.group(1)), proc, log, tls=tls is not None)
        if proc.poll() is not None or time.monotonic() > deadline:
            with contextlib.suppress(OSError):
                proc.kill()
            proc.wait(15)
            tail = log.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"the {kind} server did not start (exit {proc.returncode}):\n{tail}")
        time.sleep(0.05)


@contextlib.contextmanager
def running(
    kind: str, workdir: Path, *options: str, tls: tuple[Path, Path] | None = None
) -> Iterator[WormholeServer]:
    server = start_server(kind, workdir, *options, tls=tls)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def mailbox_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WormholeServer]:
    """One mailbox server for a test module (tests use fresh sides and nameplates)."""
    with running("mailbox", tmp_path_factory.mktemp("mailbox")) as server:
        yield server


@pytest.fixture(scope="module")
def relay_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WormholeServer]:
    """One transit relay for a test module (tests use fresh tokens)."""
    with running("relay", tmp_path_factory.mktemp("relay")) as server:
        yield server


@pytest.fixture
def own_mailbox_server(tmp_path: Path) -> Iterator[WormholeServer]:
    """A mailbox server for this test alone (it may kill it)."""
    with running("mailbox", tmp_path / "mailbox") as server:
        yield server


def run(main: Callable[[], Awaitable[T]], timeout: float = 120) -> T:
    """Run the test's coroutine in a fresh loop, bounded by ``timeout`` seconds."""

    async def bounded() -> T:
        return await asyncio.wait_for(main(), timeout)

    return asyncio.run(bounded())


def closed_port() -> int:
    """A port on 127.0.0.1 that nobody listens on (bound, then closed at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
