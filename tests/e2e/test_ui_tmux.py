"""End to end in a real terminal: ``p2p-spite play`` inside tmux at 80x24.

Reads the screen, makes moves (with ``hint`` then Enter), resigns a game,
starts the next one, quits, and checks that the terminal is restored and the
record replays.  Skipped when tmux is not installed.  ``scripts/tmux_e2e``
runs these with the screens printed.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.slow,
]

EXE = str(Path(sys.executable).with_name("p2p-spite"))
SEED = f"{4:064x}"
PROMPT_RE = re.compile("^your move \u203a ((?:h\\d|p|s\\d) [cs]\\d)$")
SHOW = bool(os.environ.get("P2P_SPITE_SHOW_SCREENS"))


class Tmux:
    """One tmux server of its own (``-L``): no test, and no other user of tmux on
    the machine, can stop it or race its start (a server whose last session was
    killed exits, and a new session asked of it then fails)."""

    def __init__(self, name: str, cols: int, rows: int) -> None:
        self.name = name
        self.cols, self.rows = cols, rows
        self.tmux = ["tmux", "-L", name]

    def start(self, command: str, env: dict[str, str]) -> None:
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        # After the program: its exit code, then whether the tty is back in cooked mode with echo.
        tty = "stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '"
        shell = f"env {exports} {command}; echo E2E-EXIT=$?; echo E2E-TTY=$({tty}); sleep 600"
        size = ["-x", str(self.cols), "-y", str(self.rows)]
        subprocess.run([*self.tmux, "new-session", "-d", "-s", self.name, *size, shell], check=True)

    def screen(self) -> str:
        out = subprocess.run(
            [*self.tmux, "capture-pane", "-p", "-t", self.name], capture_output=True, text=True, check=True
        )
        return out.stdout

    def keys(self, *keys: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", self.name, *keys], check=True)

    def type(self, text: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", self.name, "-l", text], check=True)
        self.keys("Enter")

    def wait(self, pred: Callable[[str], bool], timeout: float = 20.0, what: str = "") -> str:
        end = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < end:
            screen = self.screen()
            if pred(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what or pred}; the screen:\n{screen}")

    def kill(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)


@pytest.fixture
def tmux() -> Iterator[Callable[[int, int], Tmux]]:
    made: list[Tmux] = []

    def make(cols: int = 80, rows: int = 24) -> Tmux:
        t = Tmux(f"p2p-spite-e2e-{uuid.uuid4().hex[:8]}", cols, rows)
        made.append(t)
        return t

    yield make
    for t in made:
        t.kill()


def show(title: str, screen: str) -> None:
    if SHOW:
        print(f"\n----- {title} -----\n{screen}", flush=True)


def input_line(screen: str) -> str:
    lines = screen.rstrip("\n").splitlines()
    return lines[-2].rstrip() if len(lines) >= 2 else ""


def header(screen: str) -> str:
    return screen.splitlines()[0] if screen else ""


NOT_YOURS = "A hint is for your turn."


def _hint_or_not_yours(early: int, s: str) -> bool:
    """A hint in the input line, or a new "not your turn" (typed as the turn passed)."""
    return PROMPT_RE.match(input_line(s)) is not None or s.count(NOT_YOURS) > early


@pytest.mark.parametrize(
    "env",
    [
        {"TERM": "xterm-256color"},
        {"TERM": "vt100", "NO_COLOR": "1"},
    ],
    ids=["color", "vt100-nocolor"],
)
def test_play_in_a_real_terminal(
    tmux: Callable[[int, int], Tmux], tmp_path: Path, env: dict[str, str]
) -> None:
    record = tmp_path / "match.json"
    t = tmux(80, 24)
    env = {**env, "XDG_DATA_HOME": str(tmp_path / "data"), "LANG": "C.UTF-8"}
    t.start(f"{EXE} play --bot easy --seed {SEED} --name Ana --record {record}", env)

    s = t.wait(lambda s: "your turn" in header(s), what="our first turn")
    show("first turn", s)
    lines = s.splitlines()
    assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
    for part in ("Game 1", "Computer", "Center", "Stock", "Pay-off", "Hand", "needs", "connected"):
        assert part in s, part
    assert "Computer discarded" in s or "Computer played" in s

    # An illegal move is explained and the turn stays ours.
    t.type("h1 c3")
    s = t.wait(lambda s: "h1 c3:" in s, what="the refusal")
    assert "your turn" in header(s)

    # Play a few moves the hint suggests (hint fills the line, Enter plays it).
    played = 0
    deadline = time.monotonic() + 40
    while played < 4 and time.monotonic() < deadline:
        s = t.wait(lambda s: "your turn" in header(s), what="our turn")
        early = s.count(NOT_YOURS)  # (the header may still say so just after our discard)
        t.type("hint")
        s = t.wait(partial(_hint_or_not_yours, early), what="a hint in the input line")
        m = PROMPT_RE.match(input_line(s))
        if m is None:  # typed as the computer's turn began: ask again on our turn
            continue
        assert m is not None
        hinted = m.group(1)
        t.keys("Enter")
        s = t.wait(lambda s: PROMPT_RE.match(input_line(s)) is None, what="the move sent")
        assert f"Hint: {hinted} " in s
        played += 1
    assert played == 4
    show("after a few moves", t.screen())

    # Resign the game (asks first), then the next game starts on Enter.
    t.wait(lambda s: "your turn" in header(s), what="our turn", timeout=30)
    t.type("resign")
    t.wait(lambda s: "Resign game 1?" in s, what="the resign question")
    t.type("y")
    s = t.wait(lambda s: "Game 1: Computer won: you resigned" in s, what="the resignation")
    assert "Press Enter to start game 2" in t.wait(lambda s: "Press Enter" in s, what="the pause")
    t.keys("Enter")
    s = t.wait(lambda s: "Game 2" in header(s), what="game 2")
    show("game 2", s)

    # Quit (asks first); the terminal comes back clean.
    t.type("quit")
    t.wait(lambda s: "Quit the match?" in s, what="the quit question")
    t.type("y")
    s = t.wait(lambda s: "E2E-EXIT=" in s, what="the exit")
    show("after quitting", s)
    assert "E2E-EXIT=0" in s
    assert "Center" not in s and "Pay-off" not in s  # the full screen is gone
    assert "record:" in s and "Traceback" not in s
    tty = t.wait(lambda s: "E2E-TTY=" in s, what="the tty modes").split("E2E-TTY=")[1].split()
    assert "icanon" in tty and "echo" in tty, tty  # the terminal is back to normal

    check = subprocess.run(
        [EXE, "replay", "--check", str(record)], capture_output=True, text=True, timeout=60
    )
    assert check.returncode == 0, check.stderr
    assert "2 games" in check.stdout


def test_small_terminal_shows_a_note(tmux: Callable[[int, int], Tmux], tmp_path: Path) -> None:
    t = tmux(36, 14)  # narrower than the compact board's 40 columns
    env = {"TERM": "xterm-256color", "XDG_DATA_HOME": str(tmp_path / "data"), "LANG": "C.UTF-8"}
    t.start(f"{EXE} play --bot easy --seed {SEED} --record {tmp_path / 'm.json'}", env)
    s = t.wait(lambda s: "too small" in s.lower(), what="the note")
    show("too small", s)
    t.keys("C-c")
    t.wait(lambda s: "Quit the match?" in s, what="the quit question")
    t.type("y")
    s = t.wait(lambda s: "E2E-EXIT=" in s, what="the exit")
    assert "E2E-EXIT=0" in s and "Traceback" not in s


def test_a_60x18_terminal_shows_the_compact_board_and_the_final_scores_stay(
    tmux: Callable[[int, int], Tmux], tmp_path: Path
) -> None:
    t = tmux(60, 18)
    env = {"TERM": "xterm-256color", "XDG_DATA_HOME": str(tmp_path / "data"), "LANG": "C.UTF-8"}
    t.start(f"{EXE} play --bot easy --seed {SEED} --name Ana --record {tmp_path / 'm.json'}", env)
    s = t.wait(lambda s: "your turn" in header(s), what="our first turn")
    show("60x18", s)
    lines = s.splitlines()
    assert len(lines) <= 18 and all(len(line) <= 60 for line in lines)
    assert "too small" not in s.lower()
    for part in ("Computer", "Pay-off", "Stock", "Hand h1", "c1 ", "c3 ", "connected"):
        assert part in s, part
    assert sum(line.startswith("s1 ") for line in lines) == 2  # both players' side stacks
    t.type("hint")
    s = t.wait(lambda s: PROMPT_RE.match(input_line(s)) is not None, what="a hint in the input line")
    t.keys("Enter")
    t.wait(lambda s: PROMPT_RE.match(input_line(s)) is None, what="the move sent")
    t.keys("C-c")
    t.wait(lambda s: "Quit the match?" in s, what="the quit question")
    t.type("y")
    s = t.wait(lambda s: "E2E-EXIT=" in s, what="the exit")
    show("after quitting at 60x18", s)
    assert "E2E-EXIT=0" in s and "Traceback" not in s
    assert "final scores: Ana 0, Computer 0" in s  # play leaves the scores, as host and join do


def test_replay_viewer_in_a_real_terminal(tmux: Callable[[int, int], Tmux], tmp_path: Path) -> None:
    record = tmp_path / "selfplay.json"
    subprocess.run(
        [EXE, "selfplay", "--seed", SEED, "--record", str(record), "--games", "1", "--bots", "easy,easy"],
        check=True,
        capture_output=True,
        timeout=60,
    )
    t = tmux(80, 24)
    t.start(f"{EXE} replay {record}", {"TERM": "xterm-256color", "LANG": "C.UTF-8"})
    s = t.wait(lambda s: "move 0/" in s, what="the viewer")
    show("replay start", s)
    t.keys("Right", "Right", "Right")
    s = t.wait(lambda s: "move 3/" in s, what="three moves on")
    assert "3. " in s
    t.keys("End")
    s = t.wait(lambda s: "game over" in s or "won" in header(s), what="the end")
    show("replay end", s)
    t.keys("Left")
    t.wait(lambda s: "game over" not in s, what="one move back")
    t.keys("q")
    s = t.wait(lambda s: "E2E-EXIT=" in s, what="the exit")
    assert "E2E-EXIT=0" in s and "Traceback" not in s


def test_play_from_here_in_a_real_terminal(tmux: Callable[[int, int], Tmux], tmp_path: Path) -> None:
    """The replay viewer at 80x24: step, ``p``, the dialog, a few moves against the computer,
    then Ctrl-C back to the same position, and no record written by the what-if."""
    record = tmp_path / "selfplay.json"
    subprocess.run(
        [EXE, "selfplay", "--seed", SEED, "--record", str(record), "--games", "1", "--bots", "easy,easy"],
        check=True,
        capture_output=True,
        timeout=60,
    )
    home = tmp_path / "home"
    t = tmux(80, 24)
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "HOME": str(home), "XDG_DATA_HOME": str(home)}
    t.start(f"{EXE} replay {record}", env)
    t.wait(lambda s: "move 0/" in s, what="the viewer")
    t.keys("]", "]", "]")
    s = t.wait(lambda s: "move 0/" not in s and "p play from here" in s, what="three turns on")
    at = re.search(r"move (\d+)/", s)
    assert at is not None
    t.keys("p")
    s = t.wait(lambda s: "Computer level:" in s and "(*) expert" in s, what="the dialog")
    show("play from here: the dialog", s)
    t.keys("Up", "Up", "Up", "Enter", "Tab", "Tab", "Enter")  # easy; the seat offered; Play
    s = t.wait(lambda s: "What if: game 1 from move" in s, what="the game screen")
    ours = re.compile(r"^ You (played|discarded) ", re.M)

    def seen(k: int, screen: str) -> bool:
        return len(ours.findall(screen)) >= k

    for n in range(1, 4):
        t.wait(lambda s: input_line(s).startswith("your move"), timeout=60, what="our turn")
        t.type("hint")
        t.wait(lambda s: PROMPT_RE.match(input_line(s)) is not None, timeout=60, what="the hint")
        t.keys("Enter")
        # (the pane may have scrolled the first one away)
        s = t.wait(functools.partial(seen, min(n, 2)), timeout=60, what=f"our move {n}")
    show("play from here: moves", s)
    assert "Computer" in header(s)
    t.keys("C-c")
    s = t.wait(lambda s: f"move {at.group(1)}/" in s, what="back in the replay")
    t.keys("q")
    s = t.wait(lambda s: "E2E-EXIT=" in s, what="the exit")
    assert "E2E-EXIT=0" in s and "Traceback" not in s
    assert not list(home.rglob("*.json"))  # the what-if wrote no record
