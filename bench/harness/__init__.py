"""What every benchmark shares, once: `handler` (loading a function's handler, its environment, a
throwaway database, users, tokens and events, a call timed around `lambda_handler`, one CPU) and
`report` (percentiles, tables, a scenario's targets, the command line). The delaying proxy the
round-trip benchmark counts with is the tests' own, tests/support/delay_proxy.py."""
