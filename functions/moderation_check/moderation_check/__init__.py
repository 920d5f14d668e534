"""ModerationCheckFunction: the HTTP face of the layer's moderation service (persona_rails.moderation)."""
