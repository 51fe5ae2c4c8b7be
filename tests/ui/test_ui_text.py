"""Shared words and glyphs: locale fallback, clean names, plurals, capped echoes, the
header's fixed turn label, a peer's goodbye, and the replay listing into a closed pipe."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from p2p_spite.contracts.plaintext import MAX_CHAT, clean_name
from p2p_spite.contracts.session import EndCause, Ending
from p2p_spite.engine import SIDE, Match, view
from p2p_spite.ui.board import BoardInfo, render_board
from p2p_spite.ui.replay import Replay, print_listing, text_listing
from p2p_spite.ui.text import clip_text, points, unicode_ok
from p2p_spite.ui.words import peer_left
from tests.support.ui import LocalSession, find_seed, run, running, texts, until

ROOT = Path(__file__).resolve().parents[2]


def test_unicode_follows_the_locale_before_the_encoding() -> None:
    assert unicode_ok({"LANG": "C.UTF-8"}, "utf-8")
    assert unicode_ok({"LC_ALL": "en_US.utf8"}, "utf-8")
    assert unicode_ok({}, "utf-8")  # nothing set: Python coerces the C locale to UTF-8
    # Python's UTF-8 mode says utf-8 for stdout even under LC_ALL=C: the locale wins.
    assert not unicode_ok({"LC_ALL": "C", "LANG": "C.UTF-8"}, "utf-8")
    assert not unicode_ok({"LC_CTYPE": "POSIX"}, "utf-8")
    assert not unicode_ok({"LANG": "en_US.ISO-8859-1"}, "utf-8")
    assert not unicode_ok({"LANG": "C.UTF-8"}, "ascii")


def test_lc_all_c_in_utf8_mode_draws_only_ascii() -> None:
    script = textwrap.dedent(
        """
        from p2p_spite.engine import Match, view
        from p2p_spite.ui.board import BoardInfo, render_board
        from p2p_spite.ui import text
        from p2p_spite.ui.words import move_words
        m = Match(bytes(32), 50, ("Ann", "Bob"))
        g = m.game
        v = view(g, 0)
        info = BoardInfo(view=v, names=("Ann", "Bob"), scores=(1, 2), target=50)
        out = []
        for large in (False, True):
            for line in render_board(info, 100, large=large):
                out.append("".join(f[1] for f in line))
        mv = g.legal_moves()[0]
        out.append(move_words(mv, g.card_of(mv), "Ann"))
        out.append(text.PROMPT + text.RULE + text.DOT + text.BACK + text.VBAR + text.UP + text.ARROW)
        out.append("".join(text.CONNECTION_MARKS.values()) + text.clip_text("x" * 300))
        print(sys.flags.utf8_mode, text.UNICODE)
        print("\\n".join(out))
        """
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env.update(LC_ALL="C", PYTHONUTF8="1", PYTHONPATH=str(ROOT))
    res = subprocess.run(
        [sys.executable, "-c", "import sys\n" + script],
        env=env,
        capture_output=True,
        timeout=60,
        check=True,
    )
    first, _, body = res.stdout.decode("utf-8").partition("\n")
    assert first == "1 False"  # UTF-8 mode on, and the interface still chose ASCII
    assert body.strip()
    assert body.isascii(), [ch for ch in body if not ch.isascii()][:5]


def test_clean_name_keeps_printable_characters_only() -> None:
    evil = "Ann\x1b[31m\n\x07Evil\t" + "z" * 100
    name = clean_name(evil)
    assert name.isprintable() and "\x1b" not in name and len(name) <= 40
    assert name.startswith("Ann [31m Evil")
    assert clean_name("  Bob  ") == "Bob"


def test_points_and_clipped_echoes() -> None:
    assert points(1) == "1 point" and points(0) == "0 points" and points(12) == "12 points"
    assert clip_text("short") == "short"
    cut = clip_text("x" * 1000)
    assert len(cut) == 200 and cut.endswith(("…", "~"))


def test_peer_left_is_told_only_for_a_deliberate_goodbye() -> None:
    left = EndCause.PEER_LEFT
    assert peer_left(Ending(left, "Ann", reason="quit")) == "Ann left the match."
    assert peer_left(Ending(left, "Ann")) == "Ann left the match."
    assert peer_left(Ending(left, "Ann", reason="storage")) == "Ann left the match (storage)."
    assert peer_left(None) is None
    assert peer_left(Ending(EndCause.CONNECTION_LOST, "Ann")) is None
    # a peer that names itself like a goodbye and then breaks the protocol is not shown as one
    broke = Ending(EndCause.PEER_BROKE_PROTOCOL, "Eve left the match (quit)", "illegal-move")
    assert peer_left(broke) is None


def _header(info: BoardInfo) -> str:
    return "".join(f[1] for f in render_board(info, 80)[0])


def _views_both_turns() -> tuple[object, object]:
    m = Match(find_seed(0), 50, ("Ann", "Computer"))
    g = m.game
    first = view(g, 0)
    mv = next(x for x in g.legal_moves() if x.target == SIDE)
    g.apply(mv)
    return first, view(g, 0)


@pytest.mark.parametrize("me_label", [None, "Ann"])
def test_the_scores_do_not_move_when_the_turn_changes(me_label: str | None) -> None:
    mine, theirs = _views_both_turns()
    heads = []
    for v in (mine, theirs):
        info = BoardInfo(view=v, names=("Ann", "Computer"), scores=(3, 12), target=50, me_label=me_label)  # type: ignore[arg-type]
        heads.append(_header(info))
    assert heads[0] != heads[1]  # the label changed...
    assert heads[0].index("3 : 12") == heads[1].index("3 : 12")  # ...the scores did not move
    assert len(heads[0]) == len(heads[1]) == 80


def test_the_message_pane_cuts_garbage_and_own_chat_to_what_is_sent() -> None:
    async def main() -> None:
        s = LocalSession(find_seed(0), bot=None)
        async with running(s) as (app, inp):
            inp.send_text("q" * 5000 + "\r")
            await until(lambda: "not a move" in texts(app))
            longest = max(len("".join(f[1] for f in m)) for m in app.log.messages)
            assert longest < 400
            inp.send_text("chat " + "y" * (MAX_CHAT + 300) + "\r")
            await until(lambda: "You: y" in texts(app))
            assert s.chats == ["y" * MAX_CHAT]
            assert f"You: {'y' * MAX_CHAT}" in texts(app)
            assert "y" * (MAX_CHAT + 1) not in texts(app)

    run(main())


def test_replay_names_from_a_record_are_cleaned() -> None:
    m = Match(bytes(range(32)), 50, ("Ann\x1b[2J\nrm -rf" + "w" * 80, "Bob\r"))
    r = Replay(m)
    for n in r.names:
        assert n.isprintable() and len(n) <= 40
    assert r.names[1] == "Bob"
    assert all("\x1b" not in line and "\r" not in line for line in text_listing(r))


def test_the_listing_into_a_closed_pipe_stops_quietly() -> None:
    class Closed:
        def write(self, s: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    r = Replay(Match(bytes(range(32)), 50, ("Ann", "Bob")))
    print_listing(r, Closed())  # type: ignore[arg-type]  # no exception


def test_replay_listing_piped_to_head_has_no_traceback() -> None:
    script = textwrap.dedent(
        """
        from p2p_spite.engine import Match
        from p2p_spite.ui.replay import Replay, print_listing
        from p2p_spite.bots import make_bot
        from p2p_spite.bots.selfplay import play_match
        m = Match(bytes(range(32)), 500, ("Ann", "Bob"))
        play_match(m, [make_bot("easy", 0), make_bot("easy", 1)], max_games=2)
        r = Replay(m)
        for _ in range(50):  # more than a pipe's buffer
            print_listing(r)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SCRIPT": script, "PY": sys.executable}
    res = subprocess.run(
        ["sh", "-c", '"$PY" -c "$SCRIPT" | head -n 1'],
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert res.stdout.decode().startswith("Ann against Bob")
    assert b"Traceback" not in res.stderr and b"BrokenPipe" not in res.stderr, res.stderr.decode()
