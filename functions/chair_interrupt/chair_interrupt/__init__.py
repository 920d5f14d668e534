"""ChairInterruptFunction: debate chairs interrupting each other, with cooldowns held in Postgres."""
