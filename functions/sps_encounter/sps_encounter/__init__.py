"""SpsEncounterFunction: the standardized-patient runtime and transcript validator."""

from persona_rails.coldstart import pause_collector

# First, before the handler module imports anything (persona_rails.coldstart).
pause_collector()
