"""The dialog's pure domain logic: no I/O, deterministic given its inputs."""
