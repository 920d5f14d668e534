"""ModerationCheckFunction: the HTTP face of the layer's moderation service (persona_rails.moderation)."""

from persona_rails.coldstart import pause_collector

# First, before the handler module imports anything (persona_rails.coldstart).
pause_collector()
