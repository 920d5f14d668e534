"""The interruption engine: pure and deterministic. No I/O, no clock, no environment; config is passed in."""
