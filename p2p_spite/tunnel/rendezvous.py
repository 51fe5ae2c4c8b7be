"""The meeting behind a code: the mailbox, SPAKE2 with key confirmation, the sealed hints.

The host (:func:`host_meeting`) allocates a nameplate, makes the code and tells it
(``on_code``); the joiner (:func:`join_meeting`) claims the code's nameplate.  Each puts
its SPAKE2 message in the mailbox as phase ``pake`` (the code is the password; the
nameplate and the app id are scrypt's context), then its confirmation as ``confirm``
(RFC 9382, section 4: both sides check the other's before any use of the key).  A
confirmation that does not match is :class:`~.failures.WrongCode` on both sides; the
mailbox is closed with the mood ``scary``, and the nameplate, released once the other's
first message came, names nothing any more: a second try with the code is refused
(NoSuchCode).  Then each puts its hints, sealed (:func:`~.channel.seal_message`, purpose
``A|hints`` or ``B|hints``), and the mailbox is closed ``happy``.  A watcher meets the
host the same way, under the app id :data:`WATCH_APPID`.

Only the host's wait for the joiner's first message is long (a person is typing the
code: :data:`TYPING_WAIT`); every other wait is :data:`STEP`.  Every failure is one of
:mod:`.failures`, worded for the player.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from .channel import open_message, seal_message
from .errors import ConfirmationError, PakeError, SealError
from .failures import PeerBroke, WrongCode
from .hints import DirectHint, Hint, HintError, RelayHint, hints_from_json, hints_to_json
from .mailbox import APPID, Code, Mailbox, host, join
from .spake2 import ELEMENT_BYTES, MAC_BYTES, Role, Spake2, password_scalar

STEP: Final = 20.0  # seconds for each step the other program takes by itself
TYPING_WAIT: Final = 15 * 60.0  # seconds the host waits for the joiner to type the code
CLOSE_WAIT: Final = 5.0  # seconds to close the mailbox politely
# The watchers' codes live under an app id of their own: their nameplates are another
# namespace (a player's code names no watcher's meeting, and the other way round: the
# mailbox says "no such code", and neither code is spent), and the app id is in the
# password's context, so a watcher's key is never a player's.
WATCH_APPID: Final = f"{APPID}/watch"


@dataclass(frozen=True, slots=True)
class Meeting:
    """What the meeting gave: the key, our role, the other side's hints."""

    ke: bytes
    role: Role
    direct: tuple[DirectHint, ...]
    relays: tuple[RelayHint, ...]


def code_password(code: Code, appid: str = APPID) -> int:
    """SPAKE2's ``w`` for ``code``: scrypt over the whole code, with the app id and the
    nameplate as the context (docs/protocol.md, "The key")."""
    return password_scalar(str(code).encode(), f"{appid}|{code.nameplate}".encode())


async def _exchange(
    mb: Mailbox, code: Code, role: Role, hints: Sequence[Hint], first_wait: float, step: float, appid: str
) -> Meeting:
    """The key and the hints over an open mailbox (the nameplate claimed by us)."""
    pake = Spake2(role, code_password(code, appid))
    await mb.add("pake", pake.message, step)
    theirs = await mb.get("pake", first_wait)
    if len(theirs) != ELEMENT_BYTES:
        raise PeerBroke(mb.where, detail="a key message of the wrong size")
    try:
        mac = pake.receive(theirs)
    except PakeError as e:
        raise PeerBroke(mb.where, detail=str(e)) from None
    await mb.add("confirm", mac, step)
    their_mac = await mb.get("confirm", step)
    if len(their_mac) != MAC_BYTES:
        raise PeerBroke(mb.where, detail="a confirmation of the wrong size")
    try:
        ke = pake.confirm(their_mac)
    except ConfirmationError:
        raise WrongCode(mb.where, detail=str(code)) from None
    except PakeError as e:
        raise PeerBroke(mb.where, detail=str(e)) from None
    ours, other = (b"A|hints", b"B|hints") if role is Role.A else (b"B|hints", b"A|hints")
    await mb.add("hints", seal_message(ke, ours, hints_to_json(hints)), step)
    sealed = await mb.get("hints", step)
    try:
        theirs_hints = hints_from_json(open_message(ke, other, sealed))
    except (SealError, HintError) as e:
        raise PeerBroke(mb.where, detail=str(e)) from None
    direct = tuple(h for h in theirs_hints if isinstance(h, DirectHint))
    relays = tuple(h for h in theirs_hints if isinstance(h, RelayHint))
    return Meeting(ke, role, direct, relays)


async def _meet(
    mb: Mailbox, code: Code, role: Role, hints: Sequence[Hint], first_wait: float, step: float, appid: str
) -> Meeting:
    """:func:`_exchange`, then the mailbox closed with the mood it earned."""
    try:
        meeting = await _exchange(mb, code, role, hints, first_wait, step, appid)
    except WrongCode:
        with contextlib.suppress(Exception):
            await mb.release(CLOSE_WAIT)
        await mb.close(CLOSE_WAIT, mood="scary")
        raise
    except BaseException:
        with contextlib.suppress(Exception):
            await mb.close(CLOSE_WAIT, mood="errory")
        mb.abort()
        raise
    await mb.close(CLOSE_WAIT, mood="happy")
    return meeting


async def host_meeting(
    url: str,
    hints: Sequence[Hint],
    on_code: Callable[[Code], None],
    *,
    typing_wait: float = TYPING_WAIT,
    step: float = STEP,
    appid: str = APPID,
) -> Meeting:
    """The host's meeting: a fresh code told through ``on_code``, our ``hints`` given
    (``typing_wait``, ``step``: the deadlines, see the module's text; ``appid``: the
    players' or the watchers' (:data:`WATCH_APPID`) nameplates and passwords)."""
    mb, code = await host(url, step, appid=appid)
    on_code(code)
    return await _meet(mb, code, Role.A, hints, typing_wait, step, appid)


async def join_meeting(
    url: str, code: Code, hints: Sequence[Hint], *, step: float = STEP, appid: str = APPID
) -> Meeting:
    """The joiner's (or a watcher's, ``appid`` :data:`WATCH_APPID`) meeting under ``code``."""
    mb = await join(url, code, step, appid=appid)
    return await _meet(mb, code, Role.B, hints, step, step, appid)
