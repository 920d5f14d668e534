"""What every benchmark shares, once: `handler` (loading a function's handler, its environment, a
throwaway database, users, tokens and events), `timing` (a call timed around `lambda_handler`, the
parts of a call, child processes), `report` (percentiles, tables, a scenario's targets, the command
line) and `trips` (round trips through the delaying proxy)."""
