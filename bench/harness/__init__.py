"""What every benchmark shares: `handler` (a function's handler, its environment, a database, users,
events, timed calls, child processes) and `report` (percentiles, tables, targets, the command line)."""
