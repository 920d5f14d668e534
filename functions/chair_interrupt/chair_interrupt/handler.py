"""Lambda entry of ChairInterruptFunction (template.yaml: chair_interrupt.handler.lambda_handler)."""

from chair_interrupt.api import router
from chair_interrupt.artifacts import chair_config
from persona_rails.http.app import create_app, lambda_handler_for

# Validated at init so a broken catalogue, pattern or policy fails the first cold start, not a debate.
chair_config()
app = create_app("ChairInterruptFunction", router)
lambda_handler = lambda_handler_for(app)
