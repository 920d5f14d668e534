"""Text folding: the one form every judge matches on (docs/judges.md, "Folding").

People write the same words in many shapes, and some shapes are chosen to slip past a filter.
`fold(text)` maps them onto one form, so that a lexicon or a model written once sees them all:

1. NFKC: full-width Latin and digits to ASCII (ｓｅｘ → sex), circled and mathematical letters,
   ligatures, Kangxi radicals (⼈ → 人) and compatibility ideographs;
2. Traditional Chinese to Simplified (the layer's table, `chinese.py`), confusable letters to the
   Latin or CJK letter they imitate (Cyrillic and Greek look-alikes, CJK radical forms), and
   typographic apostrophes to "'";
3. invisible characters dropped anywhere: zero-width space, ZWNJ, ZWJ, word joiner, soft hyphen,
   variation selectors, bidirectional controls, tag characters;
4. a word spelled out letter by letter joined: three or more single letters (Latin, or CJK
   characters standing alone) separated by spaces, punctuation, symbols or emoji ("s e x",
   "我 想 和 你 上 床", "s.e.x.y"). The word breaks of a spelled-out sentence stay: a gap with
   spaces where the letters are set apart by marks ("n*e*e*d t*o"), or a gap of two or more
   spaces where they are set apart by single spaces ("s e x y  g i r l");
5. separators between the letters of a word removed: spaces, symbols, emoji and joining marks
   between two CJK characters (做 ❤ 爱, 上-床), spaces between a CJK character and a digit
   (叫 119), symbols and emoji between two Latin letters (se💋xy); clause punctuation
   (，。！？、…) is kept, so clauses stay clauses;
6. long repeats squeezed: a letter written three or more times in a row once (soooo → so,
   救命啊啊啊 → 救命啊). Digits are never squeezed (1000 stays 1000).

Case is kept (a judge that ignores case casefolds itself). Folding is for matching only: a judge
shows and stores the original, and `fold_with_origin` maps every folded character back to the
original's offset for a judge that quotes a span. Lexicons are folded with the same function:
`fold` for a literal phrase, `fold_pattern` for a regular expression.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from persona_rails.chinese import simplified_table

FOLDING_VERSION = "fold-1"

# ’ ‘ ʼ ＇ ′ are what keyboards and models type for the apostrophe lexicons spell; “ ” „ for ".
APOSTROPHE_MARKS = "\u2019\u2018\u02bc\uff07\u2032\u201b"
_QUOTE_MARKS = "\u201c\u201d\u201e\u201f\u2033"

# Letters that look like Latin ones: Cyrillic and Greek capitals and small letters that a reader
# takes for a, c, e, o, p, x, y ... (Unicode's confusables, the common part). Both tables are laid
# out as tables, several pairs a line, so the formatter leaves them alone.
# fmt: off
_CONFUSABLE_LATIN = {
    # Cyrillic
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "Х": "X", "У": "Y", "Ү": "Y", "Ѕ": "S", "І": "I", "Ј": "J", "Ԁ": "D", "Ԛ": "Q",
    "Ԝ": "W", "Ӏ": "I", "Һ": "H", "Ь": "b",
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "ѕ": "s", "і": "i",
    "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l", "ү": "y", "ѡ": "w", "ɡ": "g",
    "ь": "b", "ё": "e", "ї": "i", "к": "k", "п": "n", "т": "t", "м": "m", "в": "b", "г": "r",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C",
    "α": "a", "ο": "o", "ρ": "p", "ν": "v", "ι": "i", "κ": "k", "τ": "t", "υ": "u", "ϲ": "c",
    "ε": "e", "χ": "x", "ϳ": "j", "ς": "c",
}
# CJK radical forms outside NFKC's reach (the Kangxi radicals are NFKC's already): the character
# each stands for.
_CONFUSABLE_CJK = {
    "⺁": "厂", "⺅": "亻", "⺇": "几", "⺊": "卜", "⺌": "小", "⺎": "兀", "⺐": "尢", "⺒": "巳",
    "⺓": "幺", "⺖": "忄", "⺗": "心", "⺘": "扌", "⺙": "攵", "⺛": "旡", "⺜": "日", "⺝": "月",
    "⺟": "母", "⺠": "民", "⺡": "氵", "⺢": "氺", "⺣": "灬", "⺤": "爫", "⺥": "爫", "⺦": "丬",
    "⺧": "牛", "⺨": "犭", "⺩": "王", "⺪": "疋", "⺫": "目", "⺬": "示", "⺭": "礻", "⺮": "竹",
    "⺯": "糸", "⺰": "纟", "⺱": "罒", "⺳": "网", "⺶": "羊", "⺷": "羊", "⺹": "耂", "⺺": "肀",
    "⺻": "聿", "⺼": "月", "⺽": "臼", "⺾": "艹", "⺿": "艹", "⻀": "艹", "⻁": "虎", "⻂": "衤",
    "⻃": "覀", "⻄": "西", "⻅": "见", "⻆": "角", "⻈": "讠", "⻉": "贝", "⻊": "足", "⻋": "车",
    "⻌": "辶", "⻍": "辶", "⻏": "阝", "⻐": "金", "⻑": "长", "⻓": "长", "⻔": "门", "⻖": "阝",
    "⻗": "雨", "⻘": "青", "⻙": "韦", "⻚": "页", "⻛": "风", "⻜": "飞", "⻝": "食", "⻠": "饣",
    "⻢": "马", "⻣": "骨", "⻤": "鬼", "⻥": "鱼", "⻦": "鸟", "⻧": "卤", "⻨": "麦", "⻩": "黄",
    "⻪": "黾", "⻫": "齐", "⻬": "齐", "⻭": "齿", "⻯": "龙", "⻰": "龙", "⻲": "龟", "⻳": "龟",
}
# fmt: on

# Never visible, never needed for matching.
_INVISIBLE_BMP = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
)
_INVISIBLE = _INVISIBLE_BMP + "\U000e0000-\U000e007f\U000e0100-\U000e01ef"
# Symbols, pictographs and emoji: never part of a word.
_SYMBOLS_BMP = (
    "\u00a6-\u00a9\u00ac\u00ae-\u00b1\u00b4\u00b8\u00d7\u00f7\u02c2-\u02c5\u02d2-\u02df"
    "\u2010-\u2015\u2020-\u2025\u2027\u2030-\u205e\u20a0-\u20cf\u2100-\u214f\u2190-\u245f"
    "\u2500-\u2bff\u2e00-\u2e7f\u301c\u3030\u303d\u3200-\u33ff\u30fb\ue000-\uf8ff\ufff9-\ufffd"
)
_SYMBOLS = _SYMBOLS_BMP + "\U0001f000-\U0001fbff"
# ASCII marks that spell nothing between two letters (an apostrophe, a hyphen or a full stop may:
# don't, on-call, e.g).
_ASCII_MARKS = r"*~_^|+=#@$%&<>`"
# Between two CJK characters a slash or a backslash joins nothing either (and/or keeps its slash).
_CJK_MARKS = _ASCII_MARKS + "/\\"
_LETTER = r"[^\W\d_]"
# Han, kana and the CJK compatibility block: scripts written without spaces between words.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"


class _Lazy:
    """A regular expression compiled by its first use. The folding patterns take about 17 ms to
    compile (a Han range in a lookbehind is slow to build), which every function's cold start paid
    at import for rules that most texts never reach: their hints rule them out first."""

    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source, self._flags = source, flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled


_INVISIBLE_RUN = _Lazy(f"[{_INVISIBLE}]+")
_IS_CJK = _Lazy(f"[{_CJK}]")
# A separator between spelled-out letters: space, punctuation, symbols, emoji (not digits).
# (Not an apostrophe: "I'm a" is no spelled-out word.)
_SPELLING_GAP = rf"[\s{_SYMBOLS}{re.escape(_CJK_MARKS)}.,\-\":;!?·•、。，]{{1,5}}"
_SPELLED_OUT = _Lazy(rf"(?<!{_LETTER}){_LETTER}(?:{_SPELLING_GAP}{_LETTER}(?!{_LETTER})){{2,}}")
_GAP = _Lazy(_SPELLING_GAP)
_CJK_GLUE = _Lazy(
    rf"(?<=[{_CJK}])[\s{_SYMBOLS}{re.escape(_CJK_MARKS)}.\-'\"]+(?=[{_CJK}])"
    # Chinese puts no space around a number either: "叫 119" and "叫💥119" are "叫119".
    rf"|(?<=[{_CJK}])[\s{_SYMBOLS}{re.escape(_ASCII_MARKS)}]+(?=\d)"
    rf"|(?<=\d)[\s{_SYMBOLS}{re.escape(_ASCII_MARKS)}]+(?=[{_CJK}])"
)
_LATIN_GLUE = _Lazy(rf"(?<=[A-Za-z])[{_SYMBOLS}{re.escape(_ASCII_MARKS)}]+(?=[A-Za-z])")
# Any character three times in a row; the rule squeezes letters only (`_squeezed`).
_REPEAT = _Lazy(r"(.)\1{2,}", re.DOTALL)
# The same three in a row, found twice as fast as the rule's own pattern fails to find one.
_REPEAT_HINT = _Lazy(r"(.)\1\1", re.DOTALL)
# Squeezing is for short texts (what a person types at a prompt): looking for a repeat costs a
# regular expression step per character, which a 300-character debate chunk should not pay.
_REPEAT_MAX_CHARS = 240

# Hints: cheap tests that say whether a rule can apply at all. A rule's own pattern tries to
# match at every character; a hint is a substring test, or a pattern that starts with a small
# class of characters, which `re` scans for in a tight loop (a 300-character debate chunk pays a
# few of those, not a regular-expression step per character per rule).
_MARKS_FOR_HINT = r".*\-_/|~+:;!?\"',=#@$%&<>`^\\·•、。"
# - the spelled-out rule needs a letter between two of one mark ("s.e.x", "我,想,和"), or a single
#   letter with spaces around it ("s e x", "我 想 和"); every branch starts with its mark, which
#   `re` finds fast;
_SPELLED_HINT = _Lazy(
    "|".join(f"{re.escape(mark)}[^\\W\\d_]{re.escape(mark)}" for mark in _MARKS_FOR_HINT + " \t\n\u3000")
)
# - gluing Latin letters needs one of the marks that spell nothing;
_LATIN_GLUE_HINT = _Lazy(rf"[{re.escape(_ASCII_MARKS)}]")
# - gluing CJK characters needs a space, a mark or a symbol (characters of the Basic Multilingual
#   Plane only, so that `re` tests membership in one step; an emoji is found apart);
_CJK_GLUE_HINT = _Lazy(rf"[ \t\n\r\u3000\u00a0{re.escape(_CJK_MARKS)}.\-'\"{_SYMBOLS_BMP}]")
# - dropping needs an invisible character: a format character (not printable) or a variation
#   selector or filler (printable, and rarer).
_PRINTABLE_INVISIBLE = _Lazy("[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180d\u3164\ufe00-\ufe0f\uffa0]")


def _astral(text: str) -> bool:
    """Whether `text` holds a character beyond the Basic Multilingual Plane (an emoji, a tag):
    in UTF-16 each is two code units (a C-speed test; `max` or a pattern costs ten times more)."""
    return len(text.encode("utf-16-le", "surrogatepass")) != 2 * len(text)


@cache
def _table() -> dict[int, str]:
    """For `str.translate`, one character for one: Simplified, confusables, apostrophes, quotes,
    and full-width ASCII as ASCII (NFKC would do that too, but most Chinese text is NFKC-normal
    once its full-width commas are read as commas, and NFKC costs twice what this does)."""
    table: dict[int, str] = {code: chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)}
    table[0x3000] = " "
    table.update(simplified_table())
    table.update({ord(letter): latin for letter, latin in _CONFUSABLE_LATIN.items()})
    table.update({ord(radical): han for radical, han in _CONFUSABLE_CJK.items()})
    table.update({ord(mark): "'" for mark in APOSTROPHE_MARKS})
    table.update({ord(mark): '"' for mark in _QUOTE_MARKS})
    return table


# The full-width marks of Chinese text, read as NFKC reads them.
_COMMON_WIDE = tuple((mark, chr(ord(mark) - 0xFEE0)) for mark in "，：！？；（）")


@cache
def _unusual() -> re.Pattern[str]:
    """One character class of everything that sends a text down the long path: what the table
    maps, invisible and filler characters, every kind of whitespace, marks and symbols, control
    characters, and any character beyond the Basic Multilingual Plane (an emoji, a tag). A text
    with none of them needs no test of its own for those (the plain path)."""
    table = _table_characters().pattern[1:-1]
    return re.compile(
        f"[{table}{_INVISIBLE_BMP}\u034f\u115f\u1160\u3164\uffa0\x00-\x20\x7f-\xa0\u1680\u2000-\u200a"
        f"\u2028\u2029\u202f\u205f\u3000{re.escape(_CJK_MARKS)}.\\-'\"{_SYMBOLS_BMP}\U00010000-\U0010ffff]"
    )


@cache
def _table_characters() -> re.Pattern[str]:
    """One character class of every character the table maps (compiled by the first fold that
    needs it, in a few milliseconds)."""
    codes = sorted(_table())
    ranges: list[tuple[int, int]] = []
    for code in codes:
        if ranges and code == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    return re.compile(
        "[" + "".join(re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "") for a, b in ranges) + "]"
    )


# A rule returns, for one match, the offsets (within the match) of the characters it keeps, and
# None where it puts a space of its own.
Kept = Sequence[int | None]


def _drop_all(match: re.Match[str]) -> Kept:
    return ()


_CLAUSE_MARKS = frozenset(",.!?;:、。，！？；：")


def _spelled_out(match: re.Match[str]) -> Kept:
    start, string = match.start(), match.string
    gaps = list(_GAP.compiled.finditer(string, start + 1, match.end()))
    # The gap between most letters is the separator, and spells nothing ("s.e.x.y", "我,想,和,你").
    separator = Counter(gap.group() for gap in gaps).most_common(1)[0][0]
    # Letters set apart by marks ("n*e*e*d t*o") keep the spaces between their words; letters set
    # apart by spaces keep only the wider gaps ("s e x y  g i r l"). Any other gap keeps the marks
    # that end a clause ("s e x y, I"). Between two CJK characters a space separates no words.
    marked = not any(char.isspace() for char in separator)
    kept: list[int | None] = [0]
    for gap in gaps:
        text, offset = gap.group(), gap.start() - start
        if text != separator:
            spaces = [index for index, char in enumerate(text) if char.isspace()]
            clause = [index for index, char in enumerate(text) if char in _CLAUSE_MARKS]
            cjk = _IS_CJK.compiled.match
            between_cjk = cjk(string[gap.start() - 1]) and cjk(string[gap.end()])
            if spaces and not between_cjk and (marked or clause or len(spaces) >= 2):
                clause.append(spaces[0])
            kept.extend(offset + index for index in sorted(clause))
        kept.append(gap.end() - start)
    return kept


def _squeezed(match: re.Match[str]) -> Kept:
    # Letters only: "1000", "!!!" and "..." stay as written.
    return (0,) if match.group(1).isalpha() else range(len(match.group()))


Rule = tuple[_Lazy, Callable[[re.Match[str]], Kept]]
_INVISIBLE_RULE: Rule = (_INVISIBLE_RUN, _drop_all)
_SPELLED_OUT_RULE: Rule = (_SPELLED_OUT, _spelled_out)
_CJK_GLUE_RULE: Rule = (_CJK_GLUE, _drop_all)
_LATIN_GLUE_RULE: Rule = (_LATIN_GLUE, _drop_all)
_REPEAT_RULE: Rule = (_REPEAT, _squeezed)


# ASCII text is read through its shape: letters as "a", digits as "0", what may part spelled-out
# letters (whitespace, ".,-:;!?\"/\\") as " ", the marks that spell nothing between letters as "*"
# and other punctuation as "." (one translate, which CPython runs at C speed for ASCII), then
# tested with substring searches.
_SHAPE = str.maketrans(
    {
        **{chr(code): "." for code in range(33, 127)},
        **{chr(code): "a" for code in range(65, 91)},
        **{chr(code): "a" for code in range(97, 123)},
        **{chr(code): "0" for code in range(48, 58)},
        **{char: "*" for char in _ASCII_MARKS},
        **{char: " " for char in ' \t\n\r\x0b\x0c.,-:;!?"/\\'},
    }
)


def _ascii_rules(text: str) -> list[Rule]:
    shape = f" {text.translate(_SHAPE)} "
    rules = []
    # Three letters spelled out: the middle one a single letter between two gaps, next to another
    # ("s e x", "s.e.x": " a a "), or set apart by wider gaps ("s. e. x"), or by marks ("s*e*x").
    # (A search for a run of "a" steps through every letter; one for "*" or a double space is
    # nearly a memchr, so it goes first.)
    marked = "*" in shape
    if " a a " in shape or ("  " in shape and "a  a  a" in shape) or (marked and "a*a*a" in shape):
        rules.append(_SPELLED_OUT_RULE)
    if marked and "a*a" in shape:
        rules.append(_LATIN_GLUE_RULE)
    if len(text) <= _REPEAT_MAX_CHARS:
        rules.append(_REPEAT_RULE)
    return rules


def _plain_rules(text: str) -> list[Rule]:
    rules = []
    # No whitespace here (see `_unusual`): the hint needs no padding.
    if _SPELLED_HINT.compiled.search(text):
        rules.append(_SPELLED_OUT_RULE)
    if len(text) <= _REPEAT_MAX_CHARS:
        rules.append(_REPEAT_RULE)
    return rules


def _rules(text: str) -> list[Rule]:
    """The rules that can apply to a text that is not ASCII, in the order they must run:
    invisible characters go before anything looks for letters standing alone."""
    astral = _astral(text)
    rules = []
    if astral or not text.isprintable() or _PRINTABLE_INVISIBLE.compiled.search(text):
        rules.append(_INVISIBLE_RULE)
    if astral or _SPELLED_HINT.compiled.search(f" {text} "):
        rules.append(_SPELLED_OUT_RULE)
    glue = astral or _CJK_GLUE_HINT.compiled.search(text) is not None
    if glue:
        rules.append(_CJK_GLUE_RULE)
    if glue or _LATIN_GLUE_HINT.compiled.search(text):
        rules.append(_LATIN_GLUE_RULE)
    if len(text) <= _REPEAT_MAX_CHARS:
        rules.append(_REPEAT_RULE)
    return rules


def _apply(
    text: str, origin: list[int] | None, pattern: _Lazy, rule: Callable[[re.Match[str]], Kept]
) -> tuple[str, list[int] | None]:
    pieces: list[str] = []
    mapped: list[int] = []
    last = 0
    for match in pattern.compiled.finditer(text):
        start = match.start()
        pieces.append(text[last:start])
        if origin is not None:
            mapped.extend(origin[last:start])
        for offset in rule(match):
            if offset is None:
                pieces.append(" ")
                if origin is not None:
                    mapped.append(origin[start])
            else:
                pieces.append(text[start + offset])
                if origin is not None:
                    mapped.append(origin[start + offset])
        last = match.end()
    if not last:
        return text, origin
    pieces.append(text[last:])
    if origin is not None:
        mapped.extend(origin[last:])
    return "".join(pieces), (mapped if origin is not None else None)


def _compatibility(text: str, origin: list[int] | None) -> tuple[str, list[int] | None]:
    """NFKC. When origins are tracked, character by character, so that every output character
    knows its source; a text whose composition spans characters (a letter and a combining accent
    typed apart) gets the whole-string form and proportional origins."""
    whole = unicodedata.normalize("NFKC", text)
    if origin is None:
        return whole, None
    pieces: list[str] = []
    mapped: list[int] = []
    for index, char in enumerate(text):
        normal = unicodedata.normalize("NFKC", char)
        pieces.append(normal)
        mapped.extend([origin[index]] * len(normal))
    if "".join(pieces) != whole:
        mapped = [origin[min(len(text) - 1, index * len(text) // len(whole))] for index in range(len(whole))]
    return whole, mapped


def _fold(text: str, origin: list[int] | None) -> tuple[str, list[int] | None]:
    ascii_only = text.isascii()
    if not ascii_only:
        # Chinese punctuation first (what almost every Chinese text holds, by plain replaces),
        # then the table where one of its characters is present (one character for one, so
        # origins stay; a translate costs ten times the search), then NFKC for the rest
        # (ligatures, circled and mathematical letters, Kangxi radicals), then the table again
        # for what NFKC made (a Traditional compatibility ideograph).
        for wide, narrow in _COMMON_WIDE:
            if wide in text:
                text = text.replace(wide, narrow)
        if _unusual().search(text) is None and unicodedata.is_normalized("NFKC", text):
            # Plain text of common characters (most Simplified Chinese): no table character, no
            # invisible one, no space, nothing to glue; only the spelled-out and repeat rules may
            # apply.
            return _apply_all(text, origin, _plain_rules(text))
        if _table_characters().search(text):
            text = text.translate(_table())
        if not unicodedata.is_normalized("NFKC", text):
            text, origin = _compatibility(text, origin)
            text = text.translate(_table())
    return _apply_all(text, origin, _ascii_rules(text) if ascii_only else _rules(text))


def _apply_all(text: str, origin: list[int] | None, rules: list[Rule]) -> tuple[str, list[int] | None]:
    for pattern, rule in rules:
        # Asked of the text as the rules before it left it ("啊 啊 啊" is a repeat once joined).
        if pattern is _REPEAT and not _REPEAT_HINT.compiled.search(text):
            continue
        text, origin = _apply(text, origin, pattern, rule)
    return text, origin


@lru_cache(maxsize=256)
def fold(text: str) -> str:
    """The matching form of `text` (see the module's docstring)."""
    return _fold(text, None)[0]


@dataclass(frozen=True)
class Folded:
    """A folded text, and for each of its characters the offset of its source in the original."""

    original: str
    text: str
    origin: tuple[int, ...]

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original that the folded `text[start:end]` came from."""
        if start >= end:
            at = self.origin[start] if start < len(self.origin) else len(self.original)
            return at, at
        return self.origin[start], self.origin[end - 1] + 1


def fold_with_origin(text: str) -> Folded:
    folded, origin = _fold(text, list(range(len(text))))
    assert origin is not None
    return Folded(text, folded, tuple(origin))


_REGEX_SPECIAL = frozenset(".^$*+?{}[]\\|()")


def fold_pattern(pattern: str) -> str:
    """A regular expression written for the original text, made to match its folded form: each
    non-ASCII character is mapped as `fold` maps it, and what becomes a regex metacharacter (the
    full-width ？ becomes ?) is escaped."""
    if pattern.isascii():
        return pattern
    table = _table()
    pieces = []
    for char in pattern:
        if char.isascii():
            pieces.append(char)
            continue
        normal = char if unicodedata.is_normalized("NFKC", char) else unicodedata.normalize("NFKC", char)
        mapped = normal.translate(table)
        pieces.append("".join(f"\\{c}" if c in _REGEX_SPECIAL else c for c in mapped))
    return "".join(pieces)
