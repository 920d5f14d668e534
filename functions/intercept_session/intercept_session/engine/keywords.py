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
from functools import cache

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
    """Chinese phrases as plain substrings; English ones in one compiled alternation."""

    chinese: tuple[str, ...]
    english: re.Pattern[str] | None
    by_spelling: dict[str, str]
    # The Chinese phrases by their first character: a text is searched only for the phrases that
    # start with one of its own characters (a few, not hundreds of `find` calls per clause).
    chinese_by_first: dict[str, tuple[str, ...]]
    # The English phrases' first words, lowercase: a text holding none of them skips the
    # alternation, which costs a step per character per phrase (None: a phrase starts with a mark,
    # and the alternation always runs).
    english_first_words: frozenset[str] | None


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


@cache
def phrase_matcher(phrases: tuple[str, ...]) -> PhraseMatcher:
    english = [phrase for phrase in phrases if _ASCII.match(phrase)]
    chinese = tuple(phrase for phrase in phrases if not _ASCII.match(phrase))
    by_first: dict[str, list[str]] = {}
    for phrase in chinese:
        by_first.setdefault(phrase[0], []).append(phrase)
    firsts = [_WORD.match(phrase) for phrase in english]
    first_words = None if not all(firsts) else frozenset(first.group().lower() for first in firsts if first)
    # Longest first, so that "right now" is reported rather than "now" inside it.
    alternatives = [_english_pattern(phrase) for phrase in sorted(english, key=len, reverse=True)]
    return PhraseMatcher(
        chinese=chinese,
        chinese_by_first={first: tuple(group) for first, group in by_first.items()},
        english_first_words=first_words,
        english=re.compile("|".join(alternatives)) if english else None,
        # Capitals-only phrases are spelled exactly; the others in lower case.
        by_spelling={phrase if phrase.isupper() else _spelling(phrase): phrase for phrase in english},
    )


def find(text: str, matcher: PhraseMatcher) -> list[Hit]:
    """Every occurrence, Chinese and English alike, in text order."""
    hits = []
    by_first = matcher.chinese_by_first
    for first in set(text).intersection(by_first):
        for phrase in by_first[first]:
            position = text.find(phrase)
            while position >= 0:
                hits.append(Hit(phrase, position, position + len(phrase)))
                position = text.find(phrase, position + 1)
    if matcher.english is not None and (
        matcher.english_first_words is None
        or not matcher.english_first_words.isdisjoint(_WORD.findall(text.lower()))
    ):
        for match in matcher.english.finditer(text):
            typed = match.group(0)
            phrase = matcher.by_spelling.get(typed) or matcher.by_spelling[_spelling(typed)]
            hits.append(Hit(phrase, match.start(), match.end()))
    return sorted(hits, key=lambda hit: (hit.start, -hit.end))


def matches(text: str, keywords: Iterable[str]) -> list[str]:
    """The distinct keywords present (each once), in list order."""
    order = tuple(keywords)
    found = {hit.phrase for hit in find(text, phrase_matcher(order))}
    return [keyword for keyword in order if keyword in found]
