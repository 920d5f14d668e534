"""Reading utterances: folding for matching, sentences, the opening bigram."""

from __future__ import annotations

import re
from collections.abc import Iterable

from persona_rails.folding import fold_pattern
from persona_rails.user_patterns import BoundedPattern, Searchable
from sps_encounter.engine.case import Language

FLAGS = re.IGNORECASE
_SENTENCE_BREAK = re.compile(r"[.!?。！？…]+")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_CHARACTER = re.compile(r"[^\W_]")
# From a letter or digit to the next break: one match per sentence with a letter or digit in it.
_SENTENCE_WITH_CHARACTER = re.compile(r"[^\W_][^.!?。！？…]*")


def union(patterns: Iterable[str]) -> re.Pattern[str]:
    """One alternation of many patterns (each was checked to combine cleanly)."""
    return re.compile(_joined(patterns), FLAGS)


def bounded_union(patterns: Iterable[str], untrusted: str | None) -> Searchable:
    """`union`, or, for `untrusted` (the path of a list a request brought), the same alternation
    matched under the request's cost bound."""
    if untrusted is None:
        return union(patterns)
    return BoundedPattern(_joined(patterns), FLAGS, untrusted)


def _joined(patterns: Iterable[str]) -> str:
    return "|".join(f"(?:{fold_pattern(pattern)})" for pattern in patterns)


def named_union(named: Iterable[tuple[str, str]]) -> tuple[re.Pattern[str] | None, tuple[str, ...]]:
    """One alternation whose match says which item matched: `names[int(lastgroup[1:])]`."""
    names: list[str] = []
    parts: list[str] = []
    for name, pattern in named:
        parts.append(f"(?P<g{len(names)}>{fold_pattern(pattern)})")
        names.append(name)
    return (re.compile("|".join(parts), FLAGS) if parts else None), tuple(names)


# A full stop that ends no sentence: after a title ("Dr. Smith") or a Latin abbreviation ("e.g.");
# "etc." and "approx." end one only before a capital. A dot inside a word or a number ("5.5",
# "e.g", "nhs.uk") is never a break: the break needs no letter or digit right after it.
_TITLES = r"dr|mr|mrs|ms|mx|prof|st|sr|jr|rev|hon|fr|sgt|capt|col|gen|vs|cf|viz|e\.g|i\.e|incl|esp|ca"
_OTHER_ABBREVIATIONS = r"etc|approx|min|mins|hr|hrs|a\.m|p\.m"
_TRAILING_ABBREVIATION = re.compile(rf"(?<![^\W\d_])(?:(?P<title>{_TITLES})|{_OTHER_ABBREVIATIONS})$", re.I)
_CAPITAL = re.compile(r"\s*[\"'(\[]?[A-Z]")


def _breaks(text: str) -> list[tuple[int, int]]:
    """The spans of the sentence breaks of `text`."""
    found: list[tuple[int, int]] = []
    for mark in _SENTENCE_BREAK.finditer(text):
        start, end = mark.span()
        if mark.group() == ".":
            if end < len(text) and (text[end].isalnum() or text[end] == "_"):
                continue  # 5.5, e.g, nhs.uk
            abbreviation = _TRAILING_ABBREVIATION.search(text, max(0, start - 8), start)
            if abbreviation is not None and (
                abbreviation.group("title") or (end < len(text) and not _CAPITAL.match(text, end))
            ):
                continue
        found.append((start, end))
    return found


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text` (with a letter or digit in it), its break excluded."""
    spans: list[tuple[int, int]] = []
    start = 0
    for stop, after in (*_breaks(text), (len(text), len(text))):
        if _CHARACTER.search(text, start, stop):
            spans.append((start, stop))
        start = after
    return spans


def _suspect_dot_pattern() -> re.Pattern[str]:
    """One search for a dot that may not end a sentence: one inside a word or a number, or one
    after an abbreviation, each abbreviation length a fixed-width look-behind. Most turns have no
    such dot: one scan in C instead of a search around every dot."""
    abbreviations = (*_TITLES.split("|"), *_OTHER_ABBREVIATIONS.split("|"))
    by_length: dict[int, list[str]] = {}
    for abbreviation in abbreviations:
        by_length.setdefault(len(abbreviation.replace("\\", "")), []).append(abbreviation)
    behind = "".join(rf"|(?<=(?<![^\W\d_])(?:{'|'.join(group)})\.)" for group in by_length.values())
    return re.compile(rf"\.(?:(?=\w){behind})", re.I)


_SUSPECT_DOT = _suspect_dot_pattern()


def _suspect_dot(text: str) -> bool:
    """Whether a dot of `text` may not end a sentence: inside a word or a number, or after an
    abbreviation."""
    return _SUSPECT_DOT.search(text) is not None


def sentence_count(text: str) -> int:
    """Sentences, split at . ! ? 。！？ and …, but not at the dot of a decimal or an abbreviation."""
    if not _suspect_dot(text):
        return len(_SENTENCE_WITH_CHARACTER.findall(text))
    return len(sentence_spans(text))


# The first two of `_WORD` / `_CHARACTER` in one match, not every one of them found and two kept.
_FIRST_WORDS = re.compile(r"[\W_]*([^\W_]+(?:'[^\W_]+)*)(?:[\W_]+([^\W_]+(?:'[^\W_]+)*))?")
_FIRST_CHARACTERS = re.compile(r"[\W_]*([^\W_])(?:[\W_]*([^\W_]))?")


def opening_tokens(folded: str, language: Language) -> list[str]:
    """The first two words (English) or characters (Chinese) of a folded utterance."""
    first = (
        _FIRST_CHARACTERS.match(folded, 0, 24)
        if language is Language.ZH
        else _FIRST_WORDS.match(folded, 0, 80)
    )
    if first is None:
        return []
    return [token for token in first.groups() if token is not None]


def opening_bigram(folded: str, language: Language) -> str:
    return ("" if language is Language.ZH else " ").join(opening_tokens(folded, language))


def numbers(text: str) -> list[str]:
    return re.findall(r"\d+(?:\.\d+)?", text)


_CHINESE_NUMERAL = re.compile(r"[零一二两三四五六七八九十百千]{2,}")
_CHINESE_DIGITS = {
    "零": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_PLACES = {"十": 10, "百": 100, "千": 1000}


def _chinese_value(numeral: str) -> int | None:
    """一百零二 → 102, 三十八 → 38, 十五 → 15, 一百二 → 120 (said for 一百二十); None when the run
    is no number with a place ("两三" is "two or three")."""
    if not any(place in numeral for place in _PLACES):
        return None
    total, digit, last_place = 0, None, 1
    for character in numeral:
        if character in _PLACES:
            place = _PLACES[character]
            total += (1 if digit is None else digit) * place
            digit, last_place = None, place
        elif character == "零":
            digit = None
            last_place = 10  # 一百零二: the next digit is a unit
        else:
            if digit is not None:
                return None
            digit = _CHINESE_DIGITS[character]
    if digit is not None:
        # A digit after 百 or 千 without its own place is that place's tenth ("一百二" is 120).
        total += digit * (last_place // 10 if last_place > 10 else 1)
    return total


# A tenth said after the point or after the degree: 三十八点一 and 三十八度一 are both 38.1. Its number
# starts a run of digits: tried inside one, a long run would be read again from every digit.
_SPOKEN_TENTH = re.compile(r"(?<!\d)(\d+)(点|度)([零一二三四五六七八九])(?![零一二三四五六七八九十百千\d])")


def with_arabic_numerals(text: str) -> str:
    """Chinese numerals with a place (一百零二, 三十八) written in digits, so that "心跳一百零二"
    is read as the reading it is, and a spoken tenth as a decimal ("三十八度一" is 38.1度). A lone
    十 stays: "十分" is "very"."""

    def arabic(match: re.Match[str]) -> str:
        value = _chinese_value(match.group())
        return match.group() if value is None else str(value)

    def tenth(match: re.Match[str]) -> str:
        whole, unit, digit = match.groups()
        return f"{whole}.{_CHINESE_DIGITS[digit]}{'度' if unit == '度' else ''}"

    return _SPOKEN_TENTH.sub(tenth, _CHINESE_NUMERAL.sub(arabic, text))


_UNITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = (
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_WORD_VALUE = {
    **{word: index + 1 for index, word in enumerate(_UNITS)},
    **{word: index + 10 for index, word in enumerate(_TEENS)},
    **{word: (index + 2) * 10 for index, word in enumerate(_TENS)},
}
_UNDER_HUNDRED = rf"(?:(?:{'|'.join(_TENS)})(?:[- ](?:{'|'.join(_UNITS)}))?|{'|'.join(_TEENS)})"
# "a hundred and twenty", "two hundred": a number of hundreds and what follows them. Without its
# count only with what follows ("hundred and fifty-two over ninety-four", as a terse patient says
# it): a bare "hundred" is no number ("a hundred percent" has its count, "hundreds of" is none).
_HUNDREDS = re.compile(
    rf"\b(?:(a|one|two)[- ]hundred(?:(?: and)?[- ]({_UNDER_HUNDRED}|{'|'.join(_UNITS)}))?"
    rf"|(?<![\w-] )(?<![\w-])hundred and[- ]({_UNDER_HUNDRED}|{'|'.join(_UNITS)}))\b",
    re.IGNORECASE,
)
# A blood pressure as it is said: "one fifty-two over ninety-four", "one eighteen over seventy".
_SPOKEN_PAIR = re.compile(rf"\b(one|two)[- ]({_UNDER_HUNDRED})(?= over\b)", re.IGNORECASE)
_WORD_NUMBER = re.compile(rf"\b{_UNDER_HUNDRED}\b", re.IGNORECASE)
_SPOKEN_DECIMAL = re.compile(rf"\b(\d+) point ({'|'.join(('zero', *_UNITS))})\b", re.IGNORECASE)


_WORD_BREAK = re.compile(r"[- ]")


def _under_hundred(words: str) -> int:
    return sum(_WORD_VALUE[word] for word in _WORD_BREAK.split(words.lower()))


def with_english_numerals(text: str) -> str:
    """English numbers of ten or more said in words written in digits ("eighty-eight" is 88, "one
    fifty-two over ninety-four" is 152 over 94, "thirty-six point six" is 36.6, "a hundred and
    twenty" is 120), so that a reading said in words is read as the reading it is. Single digits
    stay words: "the bad one" and "one of those things" hold no number."""

    def hundreds(match: re.Match[str]) -> str:
        count, rest, after_bare_hundred = match.groups()
        value = (2 if count and count.lower() == "two" else 1) * 100
        rest = rest or after_bare_hundred
        return str(value + (_under_hundred(rest) if rest else 0))

    def pair(match: re.Match[str]) -> str:
        count, rest = match.groups()
        return str((2 if count.lower() == "two" else 1) * 100 + _under_hundred(rest))

    def decimal(match: re.Match[str]) -> str:
        whole, digit = match.groups()
        return f"{whole}.{0 if digit.lower() == 'zero' else _WORD_VALUE[digit.lower()]}"

    text = _HUNDREDS.sub(hundreds, text)
    text = _SPOKEN_PAIR.sub(pair, text)
    text = _WORD_NUMBER.sub(lambda match: str(_under_hundred(match.group())), text)
    return _SPOKEN_DECIMAL.sub(decimal, text)


# Whether a text says a number in words at all: most turns do not, and skip the rewriting.
_NUMBER_IN_WORDS = re.compile(
    rf"[零一二两三四五六七八九十百千]{{2}}|\d[点度][零一二三四五六七八九]"
    rf"|\b(?:{'|'.join((*_TENS, *_TEENS))}|hundred)",
    re.IGNORECASE,
)


def with_digits(text: str) -> str:
    """Numbers said in words, in either language, written in digits."""
    if not _NUMBER_IN_WORDS.search(text):
        return text
    return with_english_numerals(with_arabic_numerals(text))
