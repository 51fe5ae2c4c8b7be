"""Shared test helpers (network tooling lives in tests/support/net.py)."""
