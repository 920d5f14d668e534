"""Benchmarks for Persona Rails: every figure of docs/benchmarks.md and the command that produced it.

`python -m bench.run_all` (or `make bench`) runs them all; each module also runs alone with
`python -m bench.<name>`. docs/benchmarks.md records how they were run and what they found.
"""
