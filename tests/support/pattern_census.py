"""Every regular expression the project's own code compiles, printed as JSON lines
(`{"pattern", "flags", "where"}`): run in a process of its own (`python -m
tests.support.pattern_census`), so that patterns compiled at import are seen too.

`re`'s compile is wrapped before anything is imported; then every module of every function in
template.yaml and of the shared layer is imported, and every judge decides a few cases of its
test split in each language, which compiles the lexicons, the detectors and the scenarios'
patterns; the SPS text rules, built per language on first use, are built for every language."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
_RE_FILES = ("/re/__init__.py", "/re/_compiler.py", "/re/_parser.py")


def main() -> None:
    seen: dict[tuple[str, int], str] = {}
    compile_ = re._compile  # type: ignore[attr-defined]

    def recording(pattern: Any, flags: Any) -> Any:
        if isinstance(pattern, str):
            frame = sys._getframe(1)
            while frame.f_back is not None and frame.f_code.co_filename.endswith(_RE_FILES):
                frame = frame.f_back
            where = Path(frame.f_code.co_filename)
            if where.is_relative_to(ROOT) and ".venv" not in where.parts:
                seen.setdefault((pattern, int(flags)), f"{where.relative_to(ROOT)}:{frame.f_lineno}")
        return compile_(pattern, flags)

    re._compile = recording  # type: ignore[attr-defined]
    _exercise()
    for (pattern, flags), where in seen.items():
        print(json.dumps({"pattern": pattern, "flags": flags, "where": where}))


def _exercise() -> None:
    import importlib
    import pkgutil

    sys.path.insert(0, str(ROOT / "infra"))
    from persona_rails_dev.judges import NAMES, judge, with_function
    from persona_rails_dev.template import functions

    packages = []
    for function in functions().values():
        with_function(function.snake_name)
        packages.append(importlib.import_module(function.package))
    packages.append(importlib.import_module("persona_rails"))
    for package in dict.fromkeys(packages):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)
    for name in NAMES:
        chosen = judge(name)
        items = chosen.items("test")
        for lang in dict.fromkeys(item.lang for item in items):
            first = [item for item in items if item.lang == lang][:5]
            for case in chosen.cases(first)[:60]:
                chosen.decide(getattr(case.item, "text", ""), case.context)
    from sps_encounter.engine.text_rules import Language, text_rules

    for language in Language:
        text_rules(language)
    # Patterns compiled by their first use (persona_rails.folding._Lazy), which the cases decided
    # above may not reach. A pattern compiled inside a function on a path no case takes is still
    # unseen: that is this census's limit.
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) and Path(module.__file__).is_relative_to(ROOT):
            for value in list(vars(module).values()):
                if type(value).__name__ == "_Lazy":
                    _ = value.compiled


if __name__ == "__main__":
    main()
