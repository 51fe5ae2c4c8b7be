"""The network's and the storage's news (p2p_spite.contracts.news) in words: every kind has its
sentence in every language, names are cleaned, a refusal's code is said in words, and
nothing below the interface writes a sentence."""

from __future__ import annotations

import ast
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2p_spite.contracts import i18n
from p2p_spite.contracts import news as n
from p2p_spite.contracts.errors import StorageError, UserError
from p2p_spite.contracts.session import LinkState
from p2p_spite.core.wire import Refusal
from p2p_spite.ui.networds import error_words, news_words, refusal_words
from p2p_spite.ui.words import connection_words

LANGS = ("tl", "ms", "pl", "es")
ROOT = Path(__file__).resolve().parents[2] / "p2p_spite"

DISK = n.StorageProblem(n.Keeping.RECORD, "/r/m.json", "No space left on device")
SAMPLES: list[n.News | n.Repeated] = [
    n.ConnectionDropped("10.0.0.9", n.DropKind.WRONG_CODE),
    n.ConnectionDropped("10.0.0.9", n.DropKind.NO_HELLO, seconds=3),
    n.ConnectionDropped("10.0.0.9", n.DropKind.PROTOCOL, "malformed"),
    n.ConnectionDropped("10.0.0.9", n.DropKind.SEAT_TAKEN),
    n.DropsSummary(7, 5.0, (("10.0.0.9", 5),), 2, 2, False, ((n.DropKind.CROWDED_OUT, 7),)),
    n.DropsSummary(12, 5.0, (("10.0.0.9", 12),), 0, 0, False, ((n.DropKind.SEAT_TAKEN, 12),)),
    n.ChatFlood("Ann"),
    n.SecretNotRevealed("Ann", 2),
    n.RecordNotAmended(DISK),
    n.Redialing("Ann", 60, redial=True),
    n.Redialing("Ann", 60, redial=False),
    n.PeerBack("Ann", 2, 12),
    n.PeerBack("Ann", 2, 1, "Eve"),
    n.PeerLeft("Ann", "storage"),
    n.PeerStopped("Ann", "illegal-move", "7h on center 2"),
    n.PeerStopped("Ann", "history", resuming=True),
    n.WeStopped("Ann", "cheat", "a share"),
    n.WeStopped("Ann", "desync", resuming=True),
    n.AgainRefused("Ann", "not-agreed", "setup: the host chose the seed"),
    n.AgainRefused("Ann", "not-agreed", "hello: another name", ours=False),
    n.Stalled("Ann", n.Owed.DECK, 30),
    n.Stalled("Ann", n.Owed.CATCH_UP, 15),
    n.ConnectionLost("Ann"),
    n.ConnectionLost("Ann", 60),
    n.CannotKeepRecord(DISK),
    n.CannotKeepRecord(DISK, over=True),
    n.StorageProblem(n.Keeping.JOURNAL, "/r/m.journal", "Permission denied", reading=True),
    n.CannotDial("10.0.0.9:7777", n.Dial.NO_ANSWER, seconds=15),
    n.CannotDial("10.0.0.9:7777", n.Dial.NOBODY),
    n.CannotDial("10.0.0.9:7777", n.Dial.OTHER, detail="Network is unreachable"),
    n.HostRefused("bad-code"),
    n.HostStopped("10.0.0.9:7777", "bye"),
    n.RefusedHost("10.0.0.9:7777", "version"),
    n.RefusedHost("10.0.0.9:7777", "decode", foreign=True),
    n.HandshakeFailed("10.0.0.9:7777", timeout=True),
    n.HandshakeFailed("10.0.0.9:7777", "Connection reset by peer"),
    n.WatchCut("10.0.0.9:7777", n.WatchEnd.HOST_SILENT, seconds=30),
    n.WatchCut("10.0.0.9:7777", n.WatchEnd.HOST_STOPPED, "Ann's own words"),  # (a code not known)
    n.WatchCut("10.0.0.9:7777", n.WatchEnd.HOST_STOPPED, stop=n.WatchStop.PEER_LEFT, peer="Ann"),
    *(n.WatchCut("10.0.0.9:7777", n.WatchEnd.HOST_STOPPED, "words", stop=s) for s in n.WatchStop),
    n.WatchCut("10.0.0.9:7777", n.WatchEnd.LOST),
    n.DealSeen(host=True, then=n.HostRefused("flood")),
    n.DealSeen(host=False, peer="Ann", seconds=60),
    n.CannotListen("*:7777", 7777, taken=True),
    n.CannotListen("10.1.1.1:7777", 7777, not_here="10.1.1.1"),
    n.SavedMatchUnusable("m.json", over=True, scores=(52, 31)),
    n.NotResumable("m.json", 3),
    n.BadRecord("moves must be an array", 2, 5),
    n.Repeated(n.ChatFlood("Ann"), 4),
    *[n.RendezvousFailed(how, "mailbox.example:4000", 30, "Ann") for how in n.Rendezvous],
    n.RendezvousFailed(n.Rendezvous.NO_PATH, seconds=30),
    n.Connected(direct=True, where="203.0.113.5:41000"),
    n.Connected(direct=False, where="relay.example:4001"),
    n.WatcherCode("7-crossover-clockwork"),
    n.WatcherCode("8-absurd-adroitness", again=True),
    n.WatcherNotIn(n.RendezvousFailed(n.Rendezvous.WRONG_CODE)),
    n.WatcherNotIn(n.RendezvousFailed(n.Rendezvous.NO_PATH, seconds=60), last=True),
]


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    i18n.setup("en")
    yield
    i18n.setup("en")


def test_every_kind_of_news_has_a_sample() -> None:
    kinds = set(typing.get_args(n.News)) | {n.Repeated}
    assert kinds == {type(s) for s in SAMPLES}


@pytest.mark.parametrize("lang", LANGS)
def test_every_news_is_a_sentence_of_its_own_in_each_language(lang: str) -> None:
    english = [news_words(s) for s in SAMPLES]
    i18n.setup(lang)
    worded = [news_words(s) for s in SAMPLES]
    for s, en, there in zip(SAMPLES, english, worded, strict=True):
        assert there != en, (lang, s)  # a sentence of the catalog, not the English one
        assert "{" not in there and "\n" not in there, there
        assert "Ann" in there or "Ann" not in en, there  # its facts are kept


def test_the_facts_are_said_in_english_too() -> None:
    assert news_words(n.Redialing("Ann", 60, redial=True)) == (
        "the connection to Ann was lost; redialing for up to 60 s"
    )
    assert news_words(n.WeStopped("Ann", "cheat", "a bad share")) == (
        "stopped the match with Ann: the private deck shows a cheat (a bad share)"
    )
    assert news_words(n.Repeated(n.ChatFlood("Ann"), 1)) == (
        "Ann's chat comes faster than it is read: dropping some (and 1 more like it)"
    )
    summary = n.DropsSummary(7, 5.0, (("10.0.0.9", 5),), 2, 2, True, ((n.DropKind.WRONG_CODE, 7),))
    assert news_words(summary) == (
        "refused 7 more connections in 5 s (5 from 10.0.0.9 and 2 from more than 2 more): 7 wrong join codes"
    )
    one = n.DropsSummary(12, 5.0, (("127.0.0.1", 12),), 0, 0, False, ((n.DropKind.WRONG_CODE, 12),))
    assert news_words(one) == "refused 12 more connections from 127.0.0.1 in 5 s: 12 wrong join codes"


def test_a_refused_stranger_is_said_plainly_once() -> None:
    """Issue 48, item 3: not `dropped a connection from [::ffff:127.0.0.1]:36668: protocol
    error: the match already has its two players (this host is in a match already (...))`."""
    assert news_words(n.ConnectionDropped("127.0.0.1", n.DropKind.SEAT_TAKEN)) == (
        "refused a connection from 127.0.0.1 (the match already has its two players)"
    )
    assert news_words(n.ConnectionDropped("127.0.0.1", n.DropKind.WRONG_CODE)) == (
        "refused a connection from 127.0.0.1 (wrong join code)"
    )
    assert news_words(n.ConnectionDropped("10.0.0.9", n.DropKind.PROTOCOL, "decode")) == (
        "refused a connection from 10.0.0.9 (the bytes were not a p2p-spite message)"
    )


def test_a_connection_refused_for_a_lie_tells_the_host_what_it_claimed() -> None:
    """The gate's plain words keep a protocol error's detail: the host needs it."""
    lie = n.ConnectionDropped(
        "127.0.0.1", n.DropKind.PROTOCOL, "position", detail="a new match starts at action 0, not 3"
    )
    assert news_words(lie) == (
        "refused a connection from 127.0.0.1 "
        "(it claimed actions it did not send (a new match starts at action 0, not 3))"
    )


def test_polish_counts_take_their_three_forms() -> None:
    i18n.setup("pl")
    codes = [
        news_words(n.DropsSummary(k, 5, (), 0, 0, False, ((n.DropKind.WRONG_CODE, k),))) for k in (1, 3, 5)
    ]
    assert "odrzucono jeszcze 1 połączenie" in codes[0] and "1 błędny kod dołączenia" in codes[0]
    assert "3 połączenia" in codes[1] and "3 błędne kody dołączenia" in codes[1]
    assert "5 połączeń" in codes[2] and "5 błędnych kodów dołączenia" in codes[2]


def test_a_peers_name_is_cleaned_before_it_is_said() -> None:
    said = news_words(n.PeerLeft("\x1b[2JEve\nil", "quit"))
    assert "\x1b" not in said and "\n" not in said and said == "[2JEve il left the match."
    assert (
        news_words(n.ChatFlood("")) == "the other player's chat comes faster than it is read: dropping some"
    )


@pytest.mark.parametrize("code", list(Refusal))
def test_every_refusal_code_is_said_in_words(code: Refusal) -> None:
    words = refusal_words(code.value)
    assert not words.startswith("refused (") or code is Refusal.OTHER, words  # (not the unknown code's)
    i18n.setup("es")
    assert refusal_words(code.value) != words


def test_an_unknown_code_from_a_peer_is_shown_printable() -> None:
    assert refusal_words("zz\x1b[31m") == "refused (zz [31m)"


def test_errors_carry_news_and_the_interface_words_them() -> None:
    e = StorageError(DISK)
    assert (
        e.problem == DISK
        and error_words(e) == str(e) == "cannot write the record /r/m.json: No space left on device"
    )
    i18n.setup("pl")
    assert str(e) == "nie można zapisać meczu do /r/m.json: No space left on device"
    plain = UserError("already in the language")
    assert plain.news is None and error_words(plain) == "already in the language"


def test_the_connections_news_follows_its_state() -> None:
    i18n.setup("ms")
    assert connection_words(LinkState.RECONNECTING, n.Redialing("Ann", 60, True)) == (
        "Sambungan terputus: menyambung semula... "
        "(sambungan dengan Ann terputus; mendail semula sehingga 60 s)"
    )


def _sentences(path: Path) -> list[str]:
    """The f-strings of ``path`` that read like a sentence for a person (three words or more)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.JoinedStr):
            text = "".join(
                v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
            )
            if len(text.split()) >= 3:
                found.append(text)
    return found


@pytest.mark.parametrize(
    "part", ["net/session.py", "net/reconnect.py", "net/connect.py", "net/gate.py", "net/notices.py"]
)
def test_the_network_shell_writes_no_sentence_for_the_player(part: str) -> None:
    # What is left are the wire's own texts (a refusal's msg, docs/protocol.md) and
    # exceptions' texts inside the layer, never shown as they are.
    allowed = {" did not come within  s", "the peer left more than  KiB unread", "cannot write the record: "}
    assert set(_sentences(ROOT / part)) <= allowed
