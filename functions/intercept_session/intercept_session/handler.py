"""Lambda entry of InterceptSessionFunction (template.yaml: intercept_session.handler.lambda_handler)."""

from intercept_session.api import router
from persona_rails.http.app import create_app, lambda_handler_for
from persona_rails.interception_personas import catalog

# Validated at init so a broken personas file fails the deploy's first cold start, not a user.
catalog()
app = create_app("InterceptSessionFunction", router)
lambda_handler = lambda_handler_for(app)
