"""Split the test files into N shards of about the same running time, for scripts/test
to run as N pytest processes at once (the standard library only: no pytest plugin).

    python scripts/_shards.py N K     the test files of shard K (0-based), one per line
    python scripts/_shards.py --save JUNIT.xml   write tests/timings.json from a run's report

The times come from tests/timings.json (seconds per file, as `scripts/test --timings`
last measured them); a file not in it counts as the median.  Longest first, each file
goes to the shard with the least time so far: the same split on every machine.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parent.parent
TIMINGS = ROOT / "tests" / "timings.json"


def test_files() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py"))


def shards(n: int) -> list[list[str]]:
    files = test_files()
    known: dict[str, float] = json.loads(TIMINGS.read_text()) if TIMINGS.exists() else {}
    median = statistics.median(known.values()) if known else 1.0
    cost = {f: known.get(f, median) for f in files}
    out: list[list[str]] = [[] for _ in range(n)]
    load = [0.0] * n
    for f in sorted(files, key=lambda f: (-cost[f], f)):
        k = min(range(n), key=lambda i: (load[i], i))
        out[k].append(f)
        load[k] += cost[f]
    return [sorted(s) for s in out]


def save(junit: Path) -> None:
    """Seconds per test file, summed from a pytest --junitxml report."""
    per: dict[str, float] = {}
    for case in ElementTree.parse(junit).iter("testcase"):
        parts = (case.get("classname") or "").split(".")
        # classname: tests.adversary.test_x(.Class); the module is the first test_* part
        mod = next((i for i, q in enumerate(parts) if q.startswith("test_")), None)
        if mod is None:
            continue
        f = "/".join(parts[: mod + 1]) + ".py"
        per[f] = per.get(f, 0.0) + float(case.get("time") or 0.0)
    TIMINGS.write_text(json.dumps({f: round(t, 1) for f, t in sorted(per.items())}, indent=1) + "\n")


def main() -> int:
    if sys.argv[1] == "--save":
        save(Path(sys.argv[2]))
        return 0
    n, k = int(sys.argv[1]), int(sys.argv[2])
    print("\n".join(shards(n)[k]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
