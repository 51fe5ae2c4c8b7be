"""The rematch message at the protocol core (two endpoints in memory, no sockets):
both yes hands the connection to a new handshake at the peer's next hello; early,
twice, lying, late, the wrong seat and floods are refused (docs/protocol.md,
*Playing again*)."""

from __future__ import annotations

import pytest

from p2p_spite.core.messages import HOST, JOIN
from p2p_spite.core.protocol import (
    CHAT_BURST,
    Agreed,
    Endpoint,
    Handover,
    Handshaken,
    LocalConfig,
    Phase,
    RematchReceived,
    SeedOrigin,
)
from p2p_spite.core.wire import LocalProtocolError, Refusal, RemoteProtocolError, encode
from tests.support.net import drain, one_game_over, pair, pump, refused

SEED = bytes(range(32))


def _phase(ep: Endpoint) -> Phase:
    return ep.phase  # (read afresh: a call may change it)


def _rematch(ep: Endpoint, yes: bool = True, match: bytes | None = None) -> dict[str, object]:
    assert ep.core is not None
    return {"t": "rematch", "match": ep.core.match_id if match is None else match, "yes": yes}


def test_both_yes_hand_the_bytes_from_the_peers_hello_to_a_new_handshake() -> None:
    h, j = one_game_over()
    assert h.core is not None
    first = (h.core.match_id, h.core.match.seed)
    j.send_rematch(True)  # the joiner answers first
    evs: list[object] = []
    h.receive_data(j.data_to_send())
    drain(h, evs)
    assert evs == [RematchReceived(True)] and h.phase is Phase.PLAY
    h.send_rematch(True)  # the host's yes: it is settled, the host's next hello follows at once
    assert _phase(h) is Phase.AGAIN
    h2 = Endpoint(LocalConfig(HOST, "Ann", max_games=1))
    h2.initiate()
    hello, after = h2.data_to_send(), encode({"t": "ping", "k": 1})
    j.receive_data(h.data_to_send() + hello + after)
    got: list[object] = []
    drain(j, got)
    assert got[0] == RematchReceived(True) and isinstance(got[1], Handover) and j.phase is Phase.CLOSED
    assert got[1].data == hello + after  # the hello and what follows, as they came
    j2 = Endpoint(LocalConfig(JOIN, "Bob"))
    j2.initiate()
    j2.receive_data(hello + after)
    eh, ej = pump(h2, j2)
    assert isinstance(eh[0], Handshaken) and isinstance(ej[0], Handshaken), (eh, ej)
    assert ej[0].seed_by is SeedOrigin.BOTH  # drawn by both
    assert h2.core is not None and j2.core is not None
    assert h2.core.match.seed == j2.core.match.seed != first[1]
    assert h2.core.match_id == j2.core.match_id != first[0]


def test_before_the_peers_hello_pings_are_answered_and_chat_is_read() -> None:
    h, j = one_game_over()
    h.receive_data(encode(_rematch(j)))
    drain(h, [])
    h.send_rematch(True)
    h.data_to_send()
    h.receive_data(encode({"t": "ping", "k": 5}) + encode({"t": "chat", "text": "gg"}))
    evs: list[object] = []
    drain(h, evs)
    assert h.phase is Phase.AGAIN and b"pong" in h.data_to_send()
    # a move now is this match's no longer: refused
    assert refused(h, {"t": "ack", "n": 1}).code is Refusal.UNEXPECTED


def test_a_rematch_in_the_middle_of_a_match_is_refused() -> None:
    h, j, _, _ = pair(LocalConfig(HOST, "Ann", seed=SEED), LocalConfig(JOIN, "Bob"))
    assert j.core is not None
    assert refused(h, {"t": "rematch", "match": j.core.match_id, "yes": True}).code is Refusal.SEQUENCE
    with pytest.raises(LocalProtocolError):
        j.send_rematch(True)  # nor may this side offer one


def test_a_second_answer_is_refused() -> None:
    h, j = one_game_over()
    h.receive_data(encode(_rematch(j, False)))
    drain(h, [])
    assert refused(h, _rematch(j, True)).code is Refusal.SEQUENCE


def test_an_answer_for_another_match_is_refused() -> None:
    h, _j = one_game_over()
    assert refused(h, _rematch(h, True, match=bytes(16))).code is Refusal.OTHER_MATCH


def test_a_rematch_after_both_said_yes_is_refused() -> None:
    h, j = one_game_over()
    h.receive_data(encode(_rematch(j)))
    drain(h, [])
    h.send_rematch(True)
    assert refused(h, _rematch(j)).code is Refusal.UNEXPECTED  # the next frame must be its hello


def test_a_joiner_that_comes_back_as_the_host_is_refused() -> None:
    h, j = one_game_over()
    h.receive_data(encode(_rematch(j)))
    drain(h, [])
    h.send_rematch(True)
    h2 = Endpoint(LocalConfig(HOST, "Ann"))
    h2.initiate()
    impostor = Endpoint(LocalConfig(HOST, "Bob"))  # the wrong seat: the joiner's hello says host
    impostor.initiate()
    h.receive_data(impostor.data_to_send())
    evs: list[object] = []
    drain(h, evs)
    (handed,) = [e for e in evs if isinstance(e, Handover)]
    h2.receive_data(handed.data)
    got: list[object] = []
    drain(h2, got)
    assert isinstance(got[-1], RemoteProtocolError) and got[-1].code is Refusal.ROLE


def test_this_side_answers_once() -> None:
    h, _j = one_game_over()
    h.send_rematch(False)
    with pytest.raises(LocalProtocolError):
        h.send_rematch(True)


def test_a_chat_flood_while_waiting_for_the_hello_is_refused() -> None:
    h, j = one_game_over()
    h.receive_data(encode(_rematch(j)))
    drain(h, [])
    h.send_rematch(True)
    h.receive_data(b"".join(encode({"t": "chat", "text": "x"}) for _ in range(CHAT_BURST + 5)))
    evs: list[object] = []
    drain(h, evs)
    assert isinstance(evs[-1], RemoteProtocolError) and evs[-1].code is Refusal.FLOOD


AGREED = Agreed(50, 3, ("Ann", "Bob"), False)


def _next(host: LocalConfig, joiner_agreed: Agreed = AGREED) -> tuple[Endpoint, Endpoint, list[object]]:
    """A later match's handshake: the joiner holds ``joiner_agreed``; the host's config
    (``host``) may deviate from it.  The joiner's events."""
    h, j, _eh, ej = pair(host, LocalConfig(JOIN, "Bob", again=joiner_agreed))
    return h, j, ej


def test_the_next_match_agreed_is_played_with_its_seed_drawn_by_both() -> None:
    honest = LocalConfig(HOST, "Ann", target=50, max_games=3, again=AGREED)
    _h, j, ej = _next(honest)
    assert any(isinstance(e, Handshaken) for e in ej), ej
    assert j.core is not None and j.hs.seed_by is SeedOrigin.BOTH
    assert (j.core.match.target, j.core.max_games, j.core.match.players) == (50, 3, ("Ann", "Bob"))


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"seed": SEED}, "the host chose the seed"),
        ({"private": True}, "a private deck; the match agreed has a seeded one"),
        ({"target": 1}, "target 1; the match agreed has target 50"),
        ({"max_games": None}, "no game limit; the match agreed has a limit of 3 games"),
        ({"max_games": 1}, "a limit of 1 game; the match agreed has a limit of 3 games"),
        ({"name": "Mallory"}, "players ['Mallory', 'Bob']"),
    ],
)
def test_the_joiner_refuses_a_next_setup_that_is_not_the_match_agreed(
    change: dict[str, object], words: str
) -> None:
    fields: dict[str, object] = {"target": 50, "max_games": 3} | change
    name = str(fields.pop("name", "Ann"))
    h, j, ej = _next(LocalConfig(HOST, name, **fields))  # type: ignore[arg-type]
    err = ej[-1]
    assert isinstance(err, RemoteProtocolError) and err.code is Refusal.NOT_AGREED, ej
    assert words in str(err), err
    assert j.core is None and j.phase is Phase.CLOSED  # refused before any deal: no match
    assert j.hs.deal is None  # (nor was the joiner's half of a seed drawn, let alone sent)
    pump(h, j)
    assert h.phase is Phase.CLOSED


def test_the_joiner_refuses_the_id_of_a_match_played_already() -> None:
    _h, j, _eh, _ej = pair(LocalConfig(HOST, "Ann", target=50, max_games=3), LocalConfig(JOIN, "Bob"))
    assert j.core is not None
    first_id = j.core.match_id
    again = Agreed.of(j.core)
    assert again.played == {first_id}
    # a host whose every random draw is the first match's id: its next setup reuses that id
    honest = LocalConfig(HOST, "Ann", target=50, max_games=3)
    host = Endpoint(honest, random_bytes=lambda n: (first_id * 2)[:n])
    joiner = Endpoint(LocalConfig(JOIN, "Bob", again=again))
    host.initiate()
    joiner.initiate()
    _e, ej = pump(host, joiner)
    err = ej[-1]
    assert isinstance(err, RemoteProtocolError) and err.code is Refusal.NOT_AGREED, ej
    assert "the id of a match played already" in str(err) and joiner.core is None


def test_the_private_deck_agreed_is_not_dropped() -> None:
    private = Agreed(50, 3, ("Ann", "Bob"), True)
    _h, _j, ej = _next(LocalConfig(HOST, "Ann", target=50, max_games=3), private)
    err = ej[-1]
    assert isinstance(err, RemoteProtocolError) and err.code is Refusal.NOT_AGREED, ej
    assert "a seeded deck; the match agreed has a private one" in str(err)


def test_the_host_refuses_a_joiner_back_under_another_name() -> None:
    host = LocalConfig(HOST, "Ann", target=50, max_games=3, again=AGREED)
    h, _j, eh, _ej = pair(host, LocalConfig(JOIN, "Eve"))
    err = eh[-1]
    assert isinstance(err, RemoteProtocolError) and err.code is Refusal.NOT_AGREED, eh
    assert h.core is None
