"""Where records go by default: the user's XDG data directory."""

from __future__ import annotations

import os
import time
from pathlib import Path


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "p2p-spite"


def default_record_path(kind: str) -> Path:
    """A fresh file name under the data directory's ``records/``."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return data_dir() / "records" / f"{stamp}-{kind}-{os.getpid()}.json"
