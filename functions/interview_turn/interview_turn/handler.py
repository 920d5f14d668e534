"""Lambda entry of InterviewTurnFunction (template.yaml: interview_turn.handler.lambda_handler)."""

from interview_turn.api import router
from interview_turn.artifacts import interview_config
from interview_turn.settings import InterviewSettings
from persona_rails import snapstart
from persona_rails.http.app import create_app, lambda_handler_for
from persona_rails.settings import cached_settings

# Validated at init so a broken artifact or setting fails the deploy's first cold start, not a narrator.
config = interview_config()
if snapstart.snapshotting():
    config.compile_patterns()
cached_settings(InterviewSettings)
app = create_app("InterviewTurnFunction", router)
lambda_handler = lambda_handler_for(app)
