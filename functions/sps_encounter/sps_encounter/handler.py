"""Lambda entry of SpsEncounterFunction (template.yaml: sps_encounter.handler.lambda_handler)."""

from persona_rails import snapstart
from persona_rails.http.app import create_app, lambda_handler_for
from sps_encounter.api import router
from sps_encounter.artifacts import build_catalog_cases, sps_config

# Validated at init so a broken scenario, persona or lexicon fails the first cold start, not a learner.
config = sps_config()
if snapstart.snapshotting():
    build_catalog_cases(config)
app = create_app("SpsEncounterFunction", router)
lambda_handler = lambda_handler_for(app)
