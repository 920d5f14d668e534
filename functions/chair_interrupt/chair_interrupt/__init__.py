"""ChairInterruptFunction: debate chairs interrupting each other, with cooldowns held in Postgres."""

from persona_rails.coldstart import pause_collector

# First, before the handler module imports anything (persona_rails.coldstart).
pause_collector()
