"""The suite's watchdog (tests/conftest.py): a test that hangs fails, with every
thread's stack, and the run goes on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.net import ROOT

HANGS = """
import subprocess, sys

def test_hangs_on_a_read():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], stdout=subprocess.PIPE)
    try:
        child.stdout.readline()  # no deadline: the child never writes
    finally:
        child.kill()
        child.wait()

def test_after_it():
    pass
"""


@pytest.mark.slow
def test_a_hanging_test_fails_with_stacks_and_the_run_goes_on(tmp_path: Path) -> None:
    (tmp_path / "test_hang.py").write_text(HANGS)
    env = dict(os.environ, P2P_SPITE_TEST_TIMEOUT="1", P2P_SPITE_SUITE_TIMEOUT="60")
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider", "-q",
         str(tmp_path / "test_hang.py")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "1 failed, 1 passed" in out, out
    assert "ran for more than 1 s" in out, out
    assert "most recent call first" in out and "in test_hangs_on_a_read" in out, out
