"""storage/lines.py's lines: one serializer written and read both ways, in the layout the
journals of earlier versions have (a --resume must read them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p_spite.core.game import Action
from p2p_spite.engine import CENTER, HAND, PAYOFF, SIDE, Move
from p2p_spite.engine.moves import SOURCES, TARGETS
from p2p_spite.storage.journal import claim_record
from p2p_spite.storage.lines import (
    ActionLine,
    JournalLine,
    KeyLine,
    RequestLine,
    TagLine,
    dump_line,
    parse_line,
)

T = bytes(range(32))
LINES = [
    (KeyLine(T), '{"key":"' + T.hex() + '"}\n'),
    (TagLine(7, T), '{"tag":7,"a":"' + T.hex() + '"}\n'),
    (RequestLine(3), '{"req":3}\n'),
    (ActionLine(4, Action(1, 1)), '{"n":4,"g":1,"resign":1}\n'),
    (ActionLine(5, Action(2, 0), T), '{"n":5,"g":2,"resign":0,"a":"' + T.hex() + '"}\n'),
    (
        ActionLine(0, Action(1, 1, Move(1, HAND, 52, CENTER, 1))),
        '{"n":0,"g":1,"m":[1,"hand",52,"center",1]}\n',
    ),
    (
        ActionLine(9, Action(3, 0, Move(0, PAYOFF, None, SIDE, 2)), T),
        '{"n":9,"g":3,"m":[0,"payoff",null,"side",2],"a":"' + T.hex() + '"}\n',
    ),
]


@pytest.mark.parametrize(("entry", "text"), LINES)
def test_a_line_is_written_as_before_and_read_back_the_same(entry: JournalLine, text: str) -> None:
    assert dump_line(entry) == text
    assert parse_line(text.encode()) == entry


@pytest.mark.parametrize(
    "line",
    [b"{", b"[1,2]", b'"key"', b'{"n":1}', b'{"n":true,"g":1,"resign":0}', b'{"n":1,"g":1,"resign":2}',
     b'{"n":1,"g":1,"m":[0,"pocket",1,"center",0]}', b"\xff\n"],
)  # fmt: skip
def test_a_bad_line_ends_the_trusted_part(line: bytes) -> None:
    with pytest.raises(ValueError):
        parse_line(line)


def test_a_tag_or_request_that_does_not_read_is_passed_over() -> None:
    assert parse_line(b'{"req":"3"}') is None
    assert parse_line(b'{"tag":1,"a":"00"}') is None
    assert parse_line(b'{"key":"zz"}') == KeyLine(None)


@st.composite
def _action_lines(draw: st.DrawFn) -> ActionLine:
    game, seat = draw(st.integers(1, 10**4)), draw(st.integers(0, 1))
    move = None
    if draw(st.booleans()):
        source = draw(st.sampled_from(SOURCES))
        arg = None if source == PAYOFF else draw(st.integers(0, 103))
        move = Move(seat, source, arg, draw(st.sampled_from(TARGETS)), draw(st.integers(0, 3)))
    tag = draw(st.none() | st.binary(min_size=32, max_size=32))
    return ActionLine(draw(st.integers(0, 10**9)), Action(game, seat, move), tag)


@given(_action_lines())
def test_an_action_line_is_the_json_encoders_line(entry: ActionLine) -> None:
    """The action line, formatted directly for speed, is byte for byte the compact JSON
    of its to_json(), as every other line is written, and reads back the same."""
    text = dump_line(entry)
    assert text == json.dumps(entry.to_json(), separators=(",", ":")) + "\n"
    assert parse_line(text.encode()) == entry


def test_a_later_matchs_record_takes_a_free_name_and_writes_over_nothing(tmp_path: Path) -> None:
    wanted = tmp_path / "h-2.json"
    assert claim_record(wanted) == wanted and wanted.read_bytes() == b""  # free: taken at once
    wanted.write_text("a record")
    (tmp_path / "h-2-2.json.journal").write_text("another match's journal")
    third = claim_record(wanted)  # (h-2-2 is the journal's match: passed by)
    assert third == tmp_path / "h-2-3.json" and third.read_bytes() == b""
    assert wanted.read_text() == "a record"
    assert (tmp_path / "h-2-2.json.journal").read_text() == "another match's journal"
    assert not (tmp_path / "h-2-2.json").exists()
