"""The floors' import rules that the folders tell (docs/house.md, "Folders"), read from
the source by scripts/import_cycles' graph (every import: at the top, type-only, lazy).

- A command (``p2p_spite.commands``) imports nothing of ``p2p_spite.core``: what it needs
  of the protocol (its limits, a join code, where a seed came from) it takes from the
  public face of ``p2p_spite.net`` or from a contract.  Of ``p2p_spite.engine`` and
  ``p2p_spite.fairdeck`` it imports the package only (its ``__init__``), never a module
  inside it.
- Nothing but a command and ``p2p_spite.__main__`` imports a command: the commands are
  the top floor.
- A contract (``p2p_spite.contracts``) imports only other contracts and the engine's
  public face.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _tool() -> ModuleType:
    path = ROOT / "scripts" / "import_cycles"
    loader = importlib.machinery.SourceFileLoader("import_cycles", str(path))
    spec = importlib.util.spec_from_loader("import_cycles", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _graph(package: Path) -> dict[str, dict[str, str]]:
    tool = _tool()
    graph: dict[str, dict[str, str]] = tool.edges(tool.module_names(package))
    return graph


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def broken_rules(graph: dict[str, dict[str, str]], top: str = "p2p_spite") -> list[str]:
    """Each import that breaks a rule above, as ``importer -> imported``."""
    commands, contracts = f"{top}.commands", f"{top}.contracts"
    public_only = (f"{top}.engine", f"{top}.fairdeck")
    found = []
    for importer, imported in sorted((a, b) for a, targets in graph.items() for b in targets):
        if _under(importer, commands):
            if _under(imported, f"{top}.core") or any(
                _under(imported, p) and imported != p for p in public_only
            ):
                found.append(f"{importer} -> {imported}")
        elif _under(imported, commands) and importer != f"{top}.__main__":
            found.append(f"{importer} -> {imported}")
        if _under(importer, contracts) and not (_under(imported, contracts) or imported == f"{top}.engine"):
            found.append(f"{importer} -> {imported}")
    return found


def test_the_commands_contracts_and_floors_keep_their_import_rules() -> None:
    assert broken_rules(_graph(ROOT / "p2p_spite")) == []


def test_each_rule_is_found_when_broken(tmp_path: Path) -> None:
    pkg = tmp_path / "pk"
    for folder in ("commands", "contracts", "core", "engine", "net", "ui"):
        (pkg / folder).mkdir(parents=True)
        (pkg / folder / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text("from .commands.cli import main\n")
    (pkg / "core" / "messages.py").write_text("PORT = 1\n")
    (pkg / "engine" / "cards.py").write_text("")
    (pkg / "net" / "__init__.py").write_text("from ..core.messages import PORT\n")
    (pkg / "contracts" / "news.py").write_text("from ..engine import cards\n")
    (pkg / "commands" / "cli.py").write_text(
        "from ..net import PORT\nfrom ..contracts import news\n\n"
        "def main() -> None:\n    from ..core.messages import PORT\n    from ..engine.cards import x\n"
    )
    (pkg / "ui" / "app.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..commands import cli\n"
    )
    assert broken_rules(_graph(pkg), "pk") == [
        "pk.commands.cli -> pk.core.messages",
        "pk.commands.cli -> pk.engine.cards",
        "pk.contracts.news -> pk.engine.cards",
        "pk.ui.app -> pk.commands.cli",
    ]
