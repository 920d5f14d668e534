"""Benchmarks for Persona Rails: warm latency, cold start and import costs.

`python -m bench.run_all` (or `make bench`) runs all three; each module also runs alone with
`python -m bench.<name>`. docs/benchmarks.md records how they were run and what they found.
"""
