"""Import circles, TYPE_CHECKING and lazy imports counted (scripts/import_cycles, which
reads the source and imports nothing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "scripts" / "import_cycles"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=60)


def test_no_module_of_the_package_is_in_an_import_circle() -> None:
    """Issue 24: no circle anywhere, counting type-only and lazy imports (a composed part
    names what it needs of its owner as a protocol, not the owner's type)."""
    done = _run()
    assert done.stdout.rstrip().endswith("no import circle(s)"), done.stdout


def test_a_circle_through_a_type_checking_or_lazy_import_is_found(tmp_path: Path) -> None:
    pkg = tmp_path / "pk"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .sub import b\n")  # a package importing its own module: fine
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("def f() -> None:\n    from .. import a\n")
    (pkg / "a.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .sub.b import f\n"
    )
    done = _run(str(pkg))
    assert done.returncode == 1
    assert "pk.a -(type)-> pk.sub.b -(lazy)-> pk.a" in done.stdout, done.stdout
    (pkg / "sub" / "b.py").write_text("def f() -> None: ...\n")
    assert _run(str(pkg)).returncode == 0
