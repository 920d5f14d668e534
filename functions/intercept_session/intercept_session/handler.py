"""Lambda entry of InterceptSessionFunction (template.yaml: intercept_session.handler.lambda_handler)."""

from intercept_session.api import router
from intercept_session.personas import persona_config
from persona_rails.http.app import create_app, lambda_handler_for

# Validated at init so a broken personas file fails the deploy's first cold start, not a user.
persona_config()
app = create_app("InterceptSessionFunction", router)
lambda_handler = lambda_handler_for(app)
