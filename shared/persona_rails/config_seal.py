"""A function's config folder, verified at build time: init then skips the checks that cost most.

Strict loading stays at every cold start (a broken artifact must fail it, not a user's request),
but a few checks are expensive and prove the same thing each time: SpsEncounterFunction compiles
~1,600 scenario patterns and every (scenario, persona) case; InterviewTurnFunction counts the
tokens of every template line. `make package` runs the function's full check on the config it
ships and, when it passes, writes a seal beside it: the SHA-256 of every file of the folder. At
init the folder is hashed again (under a millisecond); only when it matches the seal are those
checks skipped, and the cases compiled on first use instead. A folder edited after the build, or
a source checkout without a seal, is checked in full.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

SEAL_NAME = ".verified.json"


def digest(directory: Path) -> str:
    """SHA-256 over every file of `directory` but the seal: relative path, size and bytes."""
    sha = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file() and p.name != SEAL_NAME):
        data = path.read_bytes()
        sha.update(f"{path.relative_to(directory).as_posix()}\0{len(data)}\0".encode())
        sha.update(data)
    return sha.hexdigest()


def write_seal(directory: Path, verified_by: str) -> Path:
    """Record that `directory`, as it is now, passed `verified_by` (call only after it passed)."""
    seal = directory / SEAL_NAME
    seal.write_text(
        json.dumps({"sha256": digest(directory), "verified_by": verified_by}) + "\n", encoding="utf-8"
    )
    return seal


def sealed(directory: Path) -> bool:
    """True when `directory` holds a seal and is byte for byte what was verified."""
    try:
        recorded = json.loads((directory / SEAL_NAME).read_text(encoding="utf-8"))["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return isinstance(recorded, str) and recorded == digest(directory)
