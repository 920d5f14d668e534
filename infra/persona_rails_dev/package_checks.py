"""What a packaged artifact must be: aarch64 native code, 3.12 bytecode, under Lambda's size cap.

Read from the files themselves (ELF headers, .pyc headers), so no tool beyond Python is needed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from persona_rails_dev.preflight import CACHE_TAG_312

# Lambda's cap on a function plus its layers, unzipped: 250 MB as the quota page counts it (MiB).
LAMBDA_UNZIPPED_LIMIT = 250 * 1024 * 1024
EM_AARCH64 = 183
CACHE_TAG = CACHE_TAG_312
# importlib.util.MAGIC_NUMBER of every CPython 3.12 release (3531).
MAGIC_312 = (3531).to_bytes(2, "little") + b"\r\n"
# PEP 552 flags: bit 0 marks a hash-based .pyc; bit 1 (check_source) clear means unchecked.
_UNCHECKED_HASH = 0b01


def unzipped_bytes(directory: Path) -> int:
    return sum(path.stat().st_size for path in directory.rglob("*") if path.is_file())


def elf_machine(path: Path) -> int | None:
    """e_machine of an ELF file, or None when the file isn't ELF."""
    with path.open("rb") as file:
        header = file.read(20)
    if len(header) < 20 or header[:4] != b"\x7fELF":
        return None
    # e_ident[EI_DATA]: 1 little-endian, 2 big-endian; e_machine sits at offset 18 in both classes.
    return int.from_bytes(header[18:20], "little" if header[5] == 1 else "big")


def native_modules(root: Path) -> list[Path]:
    """Extension modules and the shared libraries wheels vendor (foo.so, libbar.so.1)."""
    return sorted(p for p in root.rglob("*") if p.is_file() and (p.suffix == ".so" or ".so." in p.name))


def foreign_native_modules(root: Path) -> list[str]:
    problems = []
    for path in native_modules(root):
        machine = elf_machine(path)
        if machine != EM_AARCH64:
            found = "not ELF" if machine is None else f"e_machine {machine}"
            problems.append(f"{path}: {found}, Lambda's arm64 needs aarch64 ({EM_AARCH64})")
    return problems


def bytecode_problems(root: Path) -> list[str]:
    """Every .py needs a 3.12, unchecked-hash .pyc where Lambda's import looks for it."""
    problems = []
    for source in sorted(root.rglob("*.py")):
        if "__pycache__" in source.parts:
            continue
        compiled = source.parent / "__pycache__" / f"{source.stem}.{CACHE_TAG}.pyc"
        if not compiled.exists():
            problems.append(f"{source}: no {compiled.name}")
            continue
        with compiled.open("rb") as file:
            header = file.read(8)
        if header[:4] != MAGIC_312:
            problems.append(f"{compiled}: not compiled by CPython 3.12")
        elif int.from_bytes(header[4:8], "little") != _UNCHECKED_HASH:
            problems.append(f"{compiled}: not an unchecked-hash .pyc")
    return problems


def oversized(report: Mapping[str, Any]) -> list[str]:
    functions: Mapping[str, Mapping[str, int]] = report["functions"]
    return [
        f"{name}: {entry['with_layer_unzipped_bytes']} bytes with the layer, over {LAMBDA_UNZIPPED_LIMIT}"
        for name, entry in functions.items()
        if entry["with_layer_unzipped_bytes"] >= LAMBDA_UNZIPPED_LIMIT
    ]


def check(out: Path) -> list[str]:
    """Every problem with a build folder (what `make package` wrote), or none."""
    report = json.loads((out / "package-report.json").read_text(encoding="utf-8"))
    roots = [
        out / report["layer"]["directory"],
        *(out / f["directory"] for f in report["functions"].values()),
    ]
    problems = oversized(report)
    for root in roots:
        problems += foreign_native_modules(root) + bytecode_problems(root)
    return problems
