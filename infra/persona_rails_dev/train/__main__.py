"""python -m persona_rails_dev.train [JUDGE ...] [--check]

The models train in parallel, one process each, as many at a time as the machine has CPUs: each
is a single-threaded, seeded computation, so where it runs changes no bit of it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor

from persona_rails_dev.train.specs import SPECS, trained


def _cost(name: str) -> int:
    """Roughly how long a model takes to train: its classes times its examples' size."""
    return {"chair": 8, "category": 3, "interview": 2, "emergency": 2, "intimacy": 1}.get(name, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m persona_rails_dev.train", description=__doc__)
    parser.add_argument("judges", nargs="*", help=f"default: every judge ({', '.join(SPECS)})")
    parser.add_argument(
        "--check", action="store_true", help="train in memory; exit 1 if a shipped model differs"
    )
    args = parser.parse_args(argv)
    unknown = sorted(set(args.judges) - set(SPECS))
    if unknown:
        parser.error(f"unknown judge {', '.join(unknown)}; the judges are {', '.join(SPECS)}")
    stale = []
    names = args.judges or list(SPECS)
    # Spawned, not forked: the caller may be a test process with threads (a database, a server).
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(len(names), os.cpu_count() or 1), mp_context=spawn) as pool:
        # The longest first, so that the others fill the second CPU meanwhile.
        futures = {name: pool.submit(trained, name) for name in sorted(names, key=_cost, reverse=True)}
        results = [futures[name].result() for name in names]
    for name, (data, path, seconds) in zip(names, results, strict=True):
        if args.check:
            same = path.exists() and path.read_bytes() == data
            print(f"{name}: {'identical' if same else 'DIFFERS'} {path} ({seconds:.1f} s)")
            if not same:
                stale.append(name)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            print(f"{name}: wrote {path} ({len(data):,} bytes, {seconds:.1f} s)")
    if stale:
        print(f"stale: {', '.join(stale)} (run: make train)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
