"""Bilingual category keywords, and the phrase matcher they share with the urgency lexicon.

Chinese phrases match as substrings (Chinese has no spaces between words); English phrases match
whole words, case-insensitively, so that "test" does not fire inside "latest". An all-capitals
phrase ("ER") matches only in capitals: "er, just bored" is a hesitation, not a ward. The spaces
of an English phrase match any run of whitespace. A phrase is English when it is all ASCII; a
mixed one ("打120") matches as a substring.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

from intercept_session.engine.model import Category

CATEGORY_KEYWORDS: dict[Category, tuple[str, ...]] = {
    Category.WORK: (
        "工作",
        "老板",
        "领导",
        "同事",
        "客户",
        "会议",
        "开会",
        "项目",
        "加班",
        "汇报",
        "邮件",
        "报告",
        "上线",
        "需求",
        "值班",
        "工单",
        "合同",
        "甲方",
        "审批",
        "打卡",
        "钉钉",
        "飞书",
        "work",
        "boss",
        "manager",
        "colleague",
        "coworker",
        "client",
        "customer",
        "meeting",
        "project",
        "deadline",
        "email",
        "report",
        "deploy",
        "on-call",
        "oncall",
        "shift",
        "invoice",
        "slack",
    ),
    Category.STUDY: (
        "学习",
        "作业",
        "考试",
        "复习",
        "论文",
        "老师",
        "课程",
        "上课",
        "网课",
        "资料",
        "单词",
        "背书",
        "习题",
        "笔记",
        "教程",
        "讲座",
        "小组讨论",
        "班级群",
        "study",
        "studying",
        "homework",
        "exam",
        "test",
        "quiz",
        "lecture",
        "class",
        "course",
        "assignment",
        "thesis",
        "teacher",
        "professor",
        "revision",
        "tutorial",
        "notes",
    ),
    Category.MENTAL_BREAK: (
        "累",
        "休息",
        "放松",
        "压力",
        "焦虑",
        "烦",
        "无聊",
        "心情",
        "解压",
        "喘口气",
        "崩溃",
        "难受",
        "tired",
        "break",
        "relax",
        "stress",
        "stressed",
        "anxious",
        "bored",
        "exhausted",
        "burnout",
        "rest",
        "chill",
        "mood",
        "overwhelmed",
    ),
}

_ASCII = re.compile(r"^[\x00-\x7f]+$")
_EDGE = "A-Za-z0-9"


@dataclass(frozen=True)
class Hit:
    """One occurrence of a phrase: the phrase as listed (not as typed) and its span in the text."""

    phrase: str
    start: int
    end: int

    def overlaps(self, other: Hit) -> bool:
        return self.start < other.end and other.start < self.end


@dataclass(frozen=True)
class PhraseMatcher:
    """Chinese phrases as plain substrings; English ones as compiled alternations, one per first
    word, run only on a text that holds that word (an alternation of every phrase costs a step
    per character per phrase)."""

    chinese: tuple[str, ...]
    by_spelling: dict[str, str]
    # The Chinese phrases by their first character: a text is searched only for the phrases that
    # start with one of its own characters (a few, not hundreds of `find` calls per clause).
    chinese_by_first: dict[str, tuple[str, ...]]
    # The English phrases by their first word, lowercase ("" for a phrase that starts with a mark:
    # always run), longest first within each; and each phrase's place in the longest-first order
    # of all of them, which settles overlaps as one alternation of every phrase would.
    english_by_first: dict[str, re.Pattern[str]]
    english_rank: dict[str, int]
    # The keys of the two maps above as sets: a set meets a set by walking the smaller one (a
    # dict's keys would be walked all, per text and list).
    chinese_firsts: frozenset[str]
    english_firsts: frozenset[str]


# A run of ASCII letters and digits: a word as the phrases' edges see it.
_WORD = re.compile("[A-Za-z0-9]+")


def _english_pattern(phrase: str) -> str:
    body = r"\s+".join(re.escape(word) for word in phrase.split())
    if not phrase.isupper():
        body = f"(?i:{body})"
    # Word edges only where the phrase starts or ends with a letter or digit ("911", not "!").
    before = rf"(?<![{_EDGE}])" if phrase[0].isalnum() else ""
    after = rf"(?![{_EDGE}])" if phrase[-1].isalnum() else ""
    return f"{before}{body}{after}"


def _spelling(text: str) -> str:
    return " ".join(text.split()).lower()


def english_alternation(phrases: tuple[str, ...]) -> str | None:
    """One alternation of the English phrases, longest first (a clause break's pattern)."""
    english = sorted((phrase for phrase in phrases if _ASCII.match(phrase)), key=len, reverse=True)
    return "|".join(_english_pattern(phrase) for phrase in english) if english else None


def _first_word(phrase: str) -> str:
    match = _WORD.match(phrase)
    return match.group().lower() if match else ""


@cache
def phrase_matcher(phrases: tuple[str, ...]) -> PhraseMatcher:
    english = [phrase for phrase in phrases if _ASCII.match(phrase)]
    chinese = tuple(phrase for phrase in phrases if not _ASCII.match(phrase))
    by_first: dict[str, list[str]] = {}
    for phrase in chinese:
        by_first.setdefault(phrase[0], []).append(phrase)
    # Longest first, so that "right now" is reported rather than "now" inside it.
    ordered = sorted(english, key=len, reverse=True)
    english_groups: dict[str, list[str]] = {}
    for phrase in ordered:
        english_groups.setdefault(_first_word(phrase), []).append(phrase)
    by_spelling = {phrase if phrase.isupper() else _spelling(phrase): phrase for phrase in english}
    return PhraseMatcher(
        chinese=chinese,
        chinese_by_first={first: tuple(group) for first, group in by_first.items()},
        english_by_first={
            word: re.compile("|".join(_english_pattern(phrase) for phrase in group))
            for word, group in english_groups.items()
        },
        english_rank={phrase: rank for rank, phrase in enumerate(ordered)},
        chinese_firsts=frozenset(by_first),
        english_firsts=frozenset(english_groups),
        # Capitals-only phrases are spelled exactly; the others in lower case.
        by_spelling=by_spelling,
    )


# A text is searched with a dozen lists in a row (urgency.read): its characters and words are
# taken once.
@lru_cache(maxsize=16)
def _characters(text: str) -> frozenset[str]:
    return frozenset(text)


@lru_cache(maxsize=16)
def _words(text: str) -> frozenset[str]:
    # "" stands for the phrases that start with a mark, which any text may hold.
    return frozenset([*_WORD.findall(text.lower()), ""])


def _english_hits(text: str, matcher: PhraseMatcher) -> list[Hit]:
    groups = matcher.english_by_first
    if not groups:
        return []
    found: list[tuple[int, int, int, str]] = []
    for word in _words(text) & matcher.english_firsts:
        for match in groups[word].finditer(text):
            typed = match.group(0)
            phrase = matcher.by_spelling.get(typed) or matcher.by_spelling[_spelling(typed)]
            found.append((match.start(), matcher.english_rank[phrase], match.end(), phrase))
    if not found:
        return []
    # As one alternation of every phrase would: the earliest match, the longest phrase there,
    # then on from its end.
    hits, end = [], 0
    for start, _, stop, phrase in sorted(found):
        if start >= end:
            hits.append(Hit(phrase, start, stop))
            end = stop
    return hits


def find(text: str, matcher: PhraseMatcher) -> list[Hit]:
    """Every occurrence, Chinese and English alike, in text order."""
    hits = []
    by_first = matcher.chinese_by_first
    for first in _characters(text) & matcher.chinese_firsts:
        for phrase in by_first[first]:
            position = text.find(phrase)
            while position >= 0:
                hits.append(Hit(phrase, position, position + len(phrase)))
                position = text.find(phrase, position + 1)
    hits.extend(_english_hits(text, matcher))
    if len(hits) < 2:
        return hits
    return sorted(hits, key=lambda hit: (hit.start, -hit.end))


def matches(text: str, keywords: Iterable[str]) -> list[str]:
    """The distinct keywords present (each once), in list order."""
    order = tuple(keywords)
    found = {hit.phrase for hit in find(text, phrase_matcher(order))}
    return [keyword for keyword in order if keyword in found]
