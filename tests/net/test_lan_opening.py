"""The LAN opening (net/opening.py, docs/protocol.md "The opening of a LAN connection
with a join code"): the document's vectors from its recipe, and a modified peer that
deviates at every step, refused at once by a real host over TCP."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from p2p_spite.fairdeck import group
from p2p_spite.net import HostSettings, JoinSettings, host_session, join_session
from p2p_spite.net.opening import ELEMENT_MESSAGE, MAGIC, Opening, WrongCode
from p2p_spite.net.session import NetSession
from p2p_spite.tunnel.errors import ConfirmationError, PakeError, PeerElementError
from p2p_spite.tunnel.spake2 import Role
from tests.core.test_protocol_vectors import code_key, doc_vectors
from tests.support.lanopen import scalar

SECTION = "## The opening of a LAN connection with a join code"
CODE = "K7QP-3MXD"
X = 0x43DD0FD7215BDCB482879FCA3220C6A968E66D70B1356CAC18BB26C84A78D729  # RFC 9382, first vector
Y = 0xDCB60106F276B02606D8EF0A328C02E4B629F84F89786AF5BEFB0BC75B6E66BE
LIMIT = 60.0


def test_the_documented_vectors_are_what_the_recipe_gives() -> None:
    doc = doc_vectors(section=SECTION)
    salt = b"p2p-spite SPAKE2 w v1|lan"  # the document's recipe, with hashlib
    raw = hashlib.scrypt(code_key(CODE), salt=salt, n=16384, r=8, p=1, dklen=40, maxmem=2**26)
    w = int.from_bytes(raw, "big") % group.N
    assert format(w, "064x") == doc["w_lan"] and w == scalar(CODE)
    host, joiner = Opening(Role.A, w, x=X), Opening(Role.B, w, x=Y)
    assert host.data_to_send() == b""  # the host speaks second
    element_b = joiner.data_to_send()
    host.receive_data(element_b)
    element_a = host.data_to_send()
    joiner.receive_data(element_a)
    confirm_b = joiner.data_to_send()
    host.receive_data(confirm_b)
    assert host.to_check
    host.check()
    answer_a = host.data_to_send()
    joiner.receive_data(answer_a)
    assert joiner.key is not None and joiner.key == host.key
    got = {"element_B": element_b, "element_A": element_a, "confirm_B": confirm_b, "answer_A": answer_a,
           "Ke": joiner.key}  # fmt: skip
    assert {k: v.hex() for k, v in got.items()} == {k: doc[k] for k in got}


def _through(host: Opening, joiner: Opening) -> None:
    host.receive_data(joiner.data_to_send())
    joiner.receive_data(host.data_to_send())
    host.receive_data(joiner.data_to_send())


def test_a_wrong_code_fails_the_hosts_check_and_the_joiner_hears_wrong() -> None:
    host, joiner = Opening(Role.A, scalar(CODE)), Opening(Role.B, scalar("ABCD-EFGH"))
    _through(host, joiner)
    with pytest.raises(ConfirmationError):
        host.check()
    with pytest.raises(WrongCode):
        joiner.receive_data(host.data_to_send())
    assert host.key is None and joiner.key is None


def test_a_fake_host_is_refused_by_the_joiner_at_every_step() -> None:
    w = scalar(CODE)
    joiner = Opening(Role.B, w)
    element_b = joiner.data_to_send()
    with pytest.raises(PeerElementError):  # its own element reflected, as the host's
        joiner.receive_data(MAGIC + b"A" + element_b[len(MAGIC) + 1 :])
    for bad in (MAGIC + b"B" + element_b[len(MAGIC) + 1 :], b"P2PSEAL1A" + bytes(65)):
        with pytest.raises(PakeError):  # the same role as ours; another magic
            Opening(Role.B, w).receive_data(bad)
    # a host that answers neither 00 nor 01, or a confirmation of another key
    for answer in (b"\x02" + bytes(32), b"\x01" + bytes(32)):
        host, j = Opening(Role.A, w), Opening(Role.B, w)
        _through(host, j)
        with pytest.raises(PakeError):
            j.receive_data(answer)
        assert j.key is None


def test_a_joiner_that_sends_more_than_its_confirmation_is_refused() -> None:
    w = scalar(CODE)
    host, joiner = Opening(Role.A, w), Opening(Role.B, w)
    host.receive_data(joiner.data_to_send())
    joiner.receive_data(host.data_to_send())
    with pytest.raises(PakeError):
        host.receive_data(joiner.data_to_send() + b"x")


async def _host(tmp: Path, warnings: list[object]) -> tuple[asyncio.Task[NetSession], int]:
    port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    settings = HostSettings(bind="127.0.0.1", port=0, name="Ann", code=CODE, record_path=tmp / "h.json")
    task = asyncio.create_task(
        host_session(settings, on_listening=lambda _h, p: port.set_result(p), on_warning=warnings.append)
    )
    return task, await asyncio.wait_for(port, LIMIT)


async def _sent(port: int, data: bytes) -> bytes:
    """What the host says to ``data`` before it closes (bounded)."""
    r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), LIMIT)
    w.write(data)
    try:
        return await asyncio.wait_for(r.read(), LIMIT)
    finally:
        w.close()


def _run(main: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(main(), 4 * LIMIT))


def test_a_hostile_opening_is_refused_at_once_and_the_joiner_still_plays(tmp_path: Path) -> None:
    """Garbage, a point off the curve, the identity's bytes, the host's own role, and a
    replay of an earlier joiner's element and confirmation: each closed at once (the
    replay gets a wrong code: the host's fresh x makes another key); then the joiner."""

    async def main() -> None:
        warnings: list[object] = []
        task, port = await _host(tmp_path, warnings)
        element = Opening(Role.B, scalar(CODE)).data_to_send()
        off_curve = MAGIC + b"B" + b"\x04" + bytes(31) + b"\x01" + bytes(31) + b"\x02"
        for data in (off_curve, MAGIC + b"B" + bytes(65), MAGIC + b"A" + element[9:]):
            assert await _sent(port, data) == b"", data  # nothing: no element of the host's
        # bytes that are no opening: the game protocol's refusal, in clear, and no element
        said = await _sent(port, b"\xff" * ELEMENT_MESSAGE)
        assert b"code-needed" in said and MAGIC not in said, said
        # an honest opening, recorded, then replayed: the host's element is fresh, so the
        # recorded confirmation is wrong there
        honest = Opening(Role.B, scalar(CODE))
        recorded = honest.data_to_send()
        r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), LIMIT)
        w.write(recorded)
        honest.receive_data(await asyncio.wait_for(r.readexactly(ELEMENT_MESSAGE), LIMIT))
        recorded_confirm = honest.data_to_send()
        w.write(recorded_confirm)
        assert (await asyncio.wait_for(r.readexactly(1), LIMIT)) == b"\x01"  # (the honest run is right)
        w.close()
        r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), LIMIT)
        w.write(recorded)
        assert len(await asyncio.wait_for(r.readexactly(ELEMENT_MESSAGE), LIMIT)) == ELEMENT_MESSAGE
        w.write(recorded_confirm)
        assert await asyncio.wait_for(r.read(), LIMIT) == b"\x00"  # wrong, then closed
        w.close()
        joiner = await asyncio.wait_for(
            join_session(JoinSettings(host="127.0.0.1", port=port, name="Bob", code=CODE,
                                      record_path=tmp_path / "j.json")), LIMIT)  # fmt: skip
        host = await asyncio.wait_for(task, LIMIT)
        assert host.core.position == 0 and joiner.core.position == 0
        for s in (joiner, host):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(s.close("quit"), LIMIT)

    _run(main)
