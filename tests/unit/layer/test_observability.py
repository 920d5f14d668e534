"""A Lambda invocation that records no metric is normal (a read, a stats route): the layer's
metrics wrapper says nothing about it, so `make dev`'s demo and the log streams stay clean."""

from __future__ import annotations

import os
import subprocess
import sys

from persona_rails_dev.template import REPO_ROOT

HANDLER_WITHOUT_METRICS = """
from persona_rails.observability import publishing_metrics

@publishing_metrics
def handler(event, context):
    return "answered"

print(handler({}, None))
"""


def test_an_invocation_without_metrics_prints_no_warning():
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "shared")}
    # -W always: every warning a filter of ours does not silence would be printed.
    done = subprocess.run(
        [sys.executable, "-W", "always", "-c", HANDLER_WITHOUT_METRICS],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert done.stdout.strip() == "answered"
    assert "No application metrics" not in done.stderr
