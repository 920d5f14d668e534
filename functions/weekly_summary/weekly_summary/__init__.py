"""WeeklySummaryFunction: each user's week of excuses, verdicts and compliance.

Spec: intercept-session.md, "Analytics & Telemetry" and "UI Flow Notes".
"""

from persona_rails.coldstart import pause_collector

# First, before the handler module imports anything (persona_rails.coldstart).
pause_collector()
