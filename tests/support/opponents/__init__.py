"""The outside opponents the bot levels are measured against (``scripts/bench_bots``):
ports of public Skip-Bo games' AIs, not product levels (docs/bots.md).  Here so that the
tests and the benchmarks import the same code."""
