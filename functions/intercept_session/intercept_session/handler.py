"""Lambda entry of InterceptSessionFunction (template.yaml: intercept_session.handler.lambda_handler)."""

from intercept_session.api import router
from intercept_session.personas import persona_config
from intercept_session.schemas import MAX_BODY_BYTES
from intercept_session.urgency_config import urgency_config, urgency_rules
from persona_rails import snapstart
from persona_rails.http.app import create_app, lambda_handler_for

# Validated at init so a broken personas or lexicon file fails the deploy's first cold start, not a user.
persona_config()
urgency_config()
# The lexicon's matchers are compiled by the first reason that needs them (a start needs none);
# an init that ends in a SnapStart snapshot runs once per version, so it compiles them now.
if snapstart.snapshotting():
    urgency_rules()
app = create_app("InterceptSessionFunction", router, max_body_bytes=MAX_BODY_BYTES)
lambda_handler = lambda_handler_for(app)
