"""Lambda entry of ModerationCheckFunction (template.yaml: moderation_check.handler.lambda_handler)."""

from moderation_check.api import router
from persona_rails.http.app import create_app, lambda_handler_for
from persona_rails.moderation.lexicon import lexicon_artifact

# Validated at init so a broken lexicon fails the deploy's first cold start, not a user.
lexicon_artifact()
app = create_app("ModerationCheckFunction", router)
lambda_handler = lambda_handler_for(app)
