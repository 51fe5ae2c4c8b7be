"""Issue 27: the records folder cannot hang or fool us.  A FIFO named ``*.json`` (or as a
journal), a dangling symlink, a file name with escape codes and a journal without an end
(a 6 GiB sparse file, a link to /dev/zero), met by real ``history`` and ``replay``
processes: each gives one line, no hang, no raw escape code, and the good records are
still found."""

from __future__ import annotations

import os
import resource
import subprocess
from pathlib import Path

import pytest

from p2p_spite.core.game import Action, GameCore
from p2p_spite.engine import Match
from p2p_spite.storage.keeper import RecordKeeper
from tests.support.net import CLI, records_folder

TIMEOUT = 60


def _cli(tmp: Path, *args: str, memory: int | None = None) -> subprocess.CompletedProcess[str]:
    """``p2p-spite ARGS`` with its records folder under ``tmp`` (``memory``: a cap on its
    address space, in bytes); a hang fails the test after TIMEOUT."""
    env = dict(os.environ, XDG_DATA_HOME=str(tmp / "xdg"))

    def cap() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [*CLI, *args], cwd=tmp, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=TIMEOUT, preexec_fn=cap,
    )  # fmt: skip


def _good(tmp: Path, name: str = "20260101-000000-play-1.json") -> Path:
    path = records_folder(tmp) / name
    r = _cli(
        tmp, "selfplay", "--seed", "ab" * 32, "--games", "1", "--bots", "easy,easy", "--record", str(path)
    )
    assert r.returncode == 0, r.stderr
    os.utime(path, (1_000_000_000, 1_000_000_000))  # older than whatever the test adds
    return path


def _unfinished_host_record(path: Path, port: int) -> None:
    """A network match's record and journal as a host that died leaves them (a move in)."""
    core = GameCore(Match(bytes(32), 50, ("Ann", "Bob")), 0, b"\x11" * 16, None)
    keeper = RecordKeeper(path, core.match, core.match_id, None)
    keeper.port = port
    keeper.carry(core)
    move = core.match.game.legal_moves()[0]
    done = core.commit(Action(1, move.seat, move))
    keeper.append(0, done.action, None)


def _quiet(r: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in r.stderr and "\x1b" not in r.stdout + r.stderr, (r.stdout, r.stderr)


def test_a_fifo_named_json_hangs_nothing(tmp_path: Path) -> None:
    good = _good(tmp_path)
    fifo = records_folder(tmp_path) / "trap.json"
    os.mkfifo(fifo)
    h = _cli(tmp_path, "history")
    _quiet(h)
    assert h.returncode == 0 and "(1 file in" in h.stdout and "could not be read)" in h.stdout, h.stdout
    latest = _cli(tmp_path, "replay", "--check")  # the FIFO is the newest: passed over
    _quiet(latest)
    assert latest.returncode == 0 and f"the latest record: {good}" in latest.stdout, latest
    direct = _cli(tmp_path, "replay", "--check", str(fifo))
    _quiet(direct)
    assert direct.returncode == 1 and direct.stderr.count("\n") == 1, direct.stderr
    assert "not a regular file (a FIFO)" in direct.stderr, direct.stderr
    viewer = _cli(tmp_path, "replay", str(fifo))
    assert viewer.returncode == 1 and viewer.stderr.count("\n") == 1, viewer.stderr


def test_a_fifo_journal_hangs_nothing(tmp_path: Path) -> None:
    good = _good(tmp_path)
    os.mkfifo(str(good) + ".journal")
    for args in (["replay", "--check", str(good)], ["replay", str(good)]):
        r = _cli(tmp_path, *args)
        _quiet(r)
        assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
        assert "not a regular file (a FIFO)" in r.stderr, r.stderr
    h = _cli(tmp_path, "history")
    assert h.returncode == 0 and "easy bot 1 vs easy bot 2" in h.stdout, h.stdout


def test_a_dangling_link_does_not_hide_the_records(tmp_path: Path) -> None:
    good = _good(tmp_path)
    (records_folder(tmp_path) / "gone.json").symlink_to(tmp_path / "nowhere.json")
    latest = _cli(tmp_path, "replay", "--check")
    _quiet(latest)
    assert latest.returncode == 0 and f"the latest record: {good}" in latest.stdout, (
        latest.stdout,
        latest.stderr,
    )
    h = _cli(tmp_path, "history")
    _quiet(h)
    assert h.returncode == 0 and "(1 file in" in h.stdout, h.stdout


def test_a_file_name_with_escape_codes_is_printed_safely(tmp_path: Path) -> None:
    good = _good(tmp_path)
    evil = records_folder(tmp_path) / "\x1b]0;pwned\x07\x1b[2J-host-7.json"
    _unfinished_host_record(evil, 40123)
    h = _cli(tmp_path, "history")
    _quiet(h)
    shown = "$'" + str(records_folder(tmp_path)) + "/\\x1b]0;pwned\\x07\\x1b[2J-host-7.json'"
    assert f"resumable: p2p-spite host --port 40123 --resume {shown}" in h.stdout, h.stdout
    latest = _cli(tmp_path, "replay", "--check")
    _quiet(latest)
    assert latest.returncode == 0 and f"the latest record: {shown}" in latest.stdout, latest.stdout
    assert good.exists()


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_journal_without_an_end_is_read_with_a_bound(tmp_path: Path) -> None:
    good = _good(tmp_path)
    journal = Path(str(good) + ".journal")
    with open(journal, "wb") as f:  # 6 GiB, sparse, no newline
        f.truncate(6 << 30)
    r = _cli(tmp_path, "replay", "--check", str(good), memory=1 << 30)
    _quiet(r)
    assert r.returncode == 0 and r.stdout.startswith("ok: 1 game"), (r.stdout, r.stderr)
    journal.unlink()
    journal.symlink_to("/dev/zero")
    for args in (["replay", "--check", str(good)], ["replay", str(good)]):
        r = _cli(tmp_path, *args, memory=1 << 30)
        _quiet(r)
        assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
        assert "not a regular file (a device)" in r.stderr, r.stderr
    h = _cli(tmp_path, "history")
    assert h.returncode == 0 and "games" in h.stdout, h.stdout
