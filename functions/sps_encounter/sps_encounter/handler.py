"""Lambda entry of SpsEncounterFunction (template.yaml: sps_encounter.handler.lambda_handler)."""

from persona_rails.http.app import create_app, lambda_handler_for
from sps_encounter.api import router
from sps_encounter.artifacts import sps_config

# Validated at init so a broken scenario, persona or lexicon fails the first cold start, not a learner.
sps_config()
app = create_app("SpsEncounterFunction", router)
lambda_handler = lambda_handler_for(app)
