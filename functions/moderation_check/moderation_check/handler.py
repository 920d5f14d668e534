"""Lambda entry of ModerationCheckFunction (template.yaml: moderation_check.handler.lambda_handler)."""

from moderation_check.api import router
from persona_rails.http.app import create_app, lambda_handler_for
from persona_rails.moderation.lexicon import lexicon_artifact
from persona_rails.settings import ModerationSettings, cached_settings

# Validated at init so a broken lexicon or setting fails the deploy's first cold start, not a user.
lexicon_artifact()
cached_settings(ModerationSettings)
app = create_app("ModerationCheckFunction", router)
lambda_handler = lambda_handler_for(app)
