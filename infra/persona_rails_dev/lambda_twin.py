"""An x86_64 twin of the packaged artifact, and the Python that Lambda would run it with.

`make package` builds for arm64, whose native modules (pydantic-core, jiter, cryptography) cannot
load on an x86_64 machine. The twin is the same build, `package.build(machine="x86_64")`: the exact
versions of requirements/layer.lock for manylinux x86_64 and CPython 3.12, the same copy of every
function's CodeUri, the same 3.12 bytecode. What Lambda's runtime adds besides the standard library
(boto3 and s3transfer, used by the weekly fan-out's SQS client) goes into `runtime/`, after the
layer, as /var/lang/lib/python3.12/site-packages does. The cold-start benchmark and the simulated
Lambda test (tests/infra/test_simulated_lambda.py) both run it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

from persona_rails_dev import package
from persona_rails_dev.template import REPO_ROOT

TWIN = REPO_ROOT / ".build-x86_64"
MACHINE = "x86_64"
RUNTIME_PACKAGES = ("boto3", "s3transfer")


# The start of a child script that plays one Lambda execution environment, after it has read its
# `spec`: Lambda's sys.path (function, layer, runtime packages, then the standard library only), an
# event loop as the runtime leaves one, and the invocation context Lambda passes the handler.
CHILD_PRELUDE = r"""
import sys
sys.path[:] = spec["sys_path"] + [entry for entry in sys.path if "-packages" not in entry]
import asyncio
asyncio.set_event_loop(asyncio.new_event_loop())


class Context:
    function_name = spec["function_name"]
    function_version = "$LATEST"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:000000000000:function:" + function_name
    aws_request_id = "00000000-0000-4000-8000-0000000000cd"

    def get_remaining_time_in_millis(self):
        return spec.get("remaining_ms", 10_000)
"""


def build_twin(out: Path = TWIN) -> Path:
    """The packaged artifact for x86_64, plus the benchmark's baseline and the runtime's packages."""
    package.build(out, machine=MACHINE)
    baseline = out / "baseline"
    baseline.mkdir()
    shutil.copy2(REPO_ROOT / "bench" / "baseline_app.py", baseline / "baseline_app.py")
    runtime = out / "runtime"
    subprocess.run(  # noqa: S603 - pip, with the lock's pins
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-compile",
            "--target",
            str(runtime),
            *package.pip_target(MACHINE),
            f"boto3=={version('boto3')}",
            "s3transfer",
        ],
        check=True,
    )
    package.compile_bytecode([baseline, runtime])
    return out


def function_path(twin: Path, logical_id: str) -> list[str]:
    """sys.path in front of the standard library, in Lambda's order: function, layer, runtime."""
    return [str(twin / "functions" / logical_id), str(twin / "layer" / "python"), str(twin / "runtime")]


def real_interpreter(command: list[str]) -> list[str]:
    """The interpreter itself, not a pyenv shim (a shell script that adds ~150 ms to every start)."""
    probe = subprocess.run(  # noqa: S603 - the interpreter packaging found
        [*command, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True, check=True
    )
    return [probe.stdout.strip(), *command[1:]]


def runtime_python() -> list[str]:
    """Lambda's Python (3.12), run isolated (-I) and unable to write bytecode (-B), as in Lambda."""
    return [*real_interpreter(package.python312()), "-I", "-B"]


def deployed_environment(
    logical_id: str, twin: Path, secrets: dict[str, str], aws: dict[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """The function's Lambda environment as deployed, and the SSM parameters it names.

    `secrets` holds the plain values (DATABASE_URL, SUPABASE_JWT_SECRET) for the secret variables
    the template gives this function; each becomes a `*_PARAMETER` name, as a deployment names it,
    and the plain variable is removed, so the function can only read it from SSM. The LLM stays
    unset (every engine answers offline); `aws` adds the region, credentials and SSM endpoint.
    """
    import os

    from persona_rails.secrets import SECRET_VARIABLES, parameter_variable
    from persona_rails_dev.template import functions
    from persona_rails_dev.workers import lambda_environment

    function = functions()[logical_id]
    machine = {
        name: os.environ[name]
        for name in ("PATH", "HOME", "LANG", "TMPDIR", "XDG_RUNTIME_DIR")
        if name in os.environ
    }
    env = lambda_environment(function, local=machine)
    parameters = {}
    for variable in SECRET_VARIABLES:
        companion = parameter_variable(variable)
        env.pop(variable, None)
        env.pop(companion, None)
        if companion in function.environment and variable in secrets:
            env[companion] = f"/persona-rails/twin/{variable.lower().replace('_', '-')}"
            parameters[env[companion]] = secrets[variable]
    for name in ("OPENAI_BASE_URL", "PERSONA_RAILS_LLM_MODEL", "PYTHONPATH"):
        env.pop(name, None)
    env.update({"LAMBDA_TASK_ROOT": str(twin / "functions" / logical_id), **aws})
    return env, parameters
