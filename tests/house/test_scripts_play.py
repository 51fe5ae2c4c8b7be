"""scripts/play: what it runs for the arguments a newcomer types.

A stand-in virtualenv (its install stamp current, its ``p2p-spite`` a script
that prints its arguments) shows the command line scripts/play hands on,
without installing anything.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from p2p_spite.commands.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name, body in [("python", "exit 0"), ("p2p-spite", 'printf "%s\\n" "$@"')]:
        path = bin_dir / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    with (ROOT / "pyproject.toml").open("rb") as pyproject:
        checksum = subprocess.run(
            ["cksum"], stdin=pyproject, capture_output=True, check=True, timeout=10
        ).stdout.split()[0]
    (bin_dir.parent / ".p2p-spite-installed").write_text(checksum.decode() + " \n")
    return bin_dir.parent


def run_play(venv: Path, *args: str) -> list[str]:
    env = {"PATH": os.environ["PATH"], "P2P_SPITE_VENV": str(venv)}
    done = subprocess.run(
        [str(ROOT / "scripts" / "play"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # nothing installed: the stamp was current
    return done.stdout.splitlines()


@pytest.mark.parametrize(
    ("typed", "runs"),
    [
        ((), ["play"]),
        (("--bot", "expert"), ["play", "--bot", "expert"]),
        (("--private",), ["play", "--private"]),
        (("--lang", "pl"), ["play", "--lang", "pl"]),
        (("--lang=es", "--bot", "hard"), ["play", "--lang=es", "--bot", "hard"]),
        (("--lang", "pl", "--seed-file", "s"), ["play", "--lang", "pl", "--seed-file", "s"]),
        (("--lang",), ["play", "--lang"]),
    ],
)
def test_options_alone_are_plays(venv: Path, typed: tuple[str, ...], runs: list[str]) -> None:
    assert run_play(venv, *typed) == runs


@pytest.mark.parametrize(
    "typed",
    [
        ("host",),
        ("join", "192.168.1.20"),
        ("play", "--bot", "expert"),
        ("--lang", "pl", "host"),
        ("--help",),
        ("-h",),
        ("--version",),
        ("replay", "--check", "match.json"),
        ("nonsense",),  # p2p-spite itself says it is no command
    ],
)
def test_a_command_passes_through(venv: Path, typed: tuple[str, ...]) -> None:
    assert run_play(venv, *typed) == list(typed)


def test_the_script_knows_every_top_level_option() -> None:
    """scripts/play skips --lang CODE and passes -h/--help/--version: those
    are all the options before the command.  A new one fails here, so that
    the script learns it (one taking a value would otherwise be read as
    play's option)."""
    options = {o for action in build_parser()._actions for o in action.option_strings}
    assert options == {"-h", "--help", "--version", "--lang"}
