"""python -m persona_rails_dev.train [JUDGE ...] [--check]"""

from __future__ import annotations

import argparse
import sys
import time

from persona_rails_dev.train.specs import SPECS


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
    for name in args.judges or list(SPECS):
        spec = SPECS[name]
        started = time.perf_counter()
        data = spec.train().data()
        path = spec.path()
        seconds = time.perf_counter() - started
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
