"""InterviewTurnFunction: the memoir interviewer's control plane (router, depth governor, safety overlay)."""

from persona_rails.coldstart import pause_collector

# First, before the handler module imports anything (persona_rails.coldstart).
pause_collector()
