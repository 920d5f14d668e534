"""Benchmarks: every figure of docs/benchmarks.md, each produced by `python -m bench.<name>`;
`python -m bench.run_all` (`make bench`) runs them all."""
