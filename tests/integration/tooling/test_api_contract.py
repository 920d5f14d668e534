"""A short schemathesis pass against every HTTP function on the local stack: its generated OpenAPI
document is the contract, and no request may get a server error or a status it does not document,
nor have schema-invalid data accepted. Positive and negative data (`--mode all`), as a user and as
a service-role backend (which names user ids of its own: unknown ones must be 404 user_not_found,
as documented)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from persona_rails_dev.local_env import DEV_USER_ID, mint_service_token, mint_token
from persona_rails_dev.template import functions

CHECKS = (
    "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,"
    "negative_data_rejection"
)
CONFIG = Path(__file__).with_name("schemathesis.toml")
# Short enough for CI; set SCHEMATHESIS_EXAMPLES for a deeper local run.
EXAMPLES = os.environ.get("SCHEMATHESIS_EXAMPLES", "15")
SEED = os.environ.get("SCHEMATHESIS_SEED", "20261123")


@pytest.mark.parametrize("caller", ["user", "service"])
@pytest.mark.parametrize(
    "function", [f for f in functions().values() if f.routes], ids=lambda f: f.logical_id
)
def test_no_server_error_and_no_undocumented_status(function, caller, local_stack, tmp_path):
    st = Path(sys.executable).with_name("st")
    token = mint_token(DEV_USER_ID) if caller == "user" else mint_service_token()
    completed = subprocess.run(
        [
            str(st),
            "--config-file",
            str(CONFIG),
            "run",
            f"{local_stack}/openapi/{function.kebab_name}.json",
            "--url",
            local_stack,
            "--header",
            f"Authorization: Bearer {token}",
            "--checks",
            CHECKS,
            "--phases",
            "examples,coverage,fuzzing",
            "--mode",
            "all",
            "--max-examples",
            EXAMPLES,
            "--seed",
            SEED,
            # One worker: with two, hypothesis parses lambda sources in two threads at once, which
            # CPython 3.11's ast can fail ("AST constructor recursion depth mismatch").
            "--workers",
            "1",
            "--request-timeout",
            "30",
            "--no-color",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output[-6000:]
    generated = re.search(r"(\d+) generated, (\d+) passed", output)
    assert generated, output[-3000:]
    assert int(generated.group(1)) > 0
    assert generated.group(1) == generated.group(2), output[-3000:]
