"""An action applied to a GameCore and kept by a RecordKeeper in the order NetSession
keeps it (net/session.py ``_settle``), without a peer: for tests of the files on disk."""

from __future__ import annotations

from p2p_spite.core.game import Action, GameCore
from p2p_spite.session import Event
from p2p_spite.storage.keeper import RecordKeeper


def apply_kept(core: GameCore, keeper: RecordKeeper, action: Action, tag: bytes | None = None) -> list[Event]:
    """Apply ``action`` (``tag``: the peer's, when the seat on turn is the peer's), write
    it down, then show it; a game's end is the record's checkpoint, before the next deal."""
    n = core.position
    ours = core.match.game.turn == core.seat
    done = core.commit(action, tag=tag)
    keeper.append(n, action, None if ours else tag)
    evs = core.events(done)
    if core.match.game.result is not None:
        keeper.game_over(core.match)
    return evs + core.deal_next()
