"""Regenerate the layer's Traditional → Simplified table (`persona_rails/data/hant-to-hans.json`).

    pip install opencc && python -m persona_rails_dev.hant_table

Every character of the CJK blocks that OpenCC's `t2s` conversion turns into one other character.
OpenCC is only needed here, never at run time.
"""

from __future__ import annotations

import json
from importlib import import_module

from persona_rails.chinese import TABLE_FILE

BLOCKS = ((0x3400, 0x4DC0), (0x4E00, 0xA000), (0xF900, 0xFB00))


def table() -> dict[str, str]:
    opencc = import_module("opencc")
    convert = opencc.OpenCC("t2s").convert
    found = {}
    for start, end in BLOCKS:
        for code in range(start, end):
            character = chr(code)
            simplified = convert(character)
            if simplified != character and len(simplified) == 1:
                found[character] = simplified
    return found


if __name__ == "__main__":
    TABLE_FILE.write_text(
        json.dumps(table(), ensure_ascii=False, separators=(",", ":"), sort_keys=True), encoding="utf-8"
    )
