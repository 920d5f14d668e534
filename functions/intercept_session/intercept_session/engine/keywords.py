"""Bilingual keyword lists and the matcher behind the offline classifier and the urgent-keyword rule.

Chinese keywords match as substrings (Chinese has no spaces between words); English keywords
match whole words, case-insensitively, so that "test" does not fire inside "latest".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from intercept_session.engine.model import Category

# The spec's three urgent keywords come first; the rest extend them to real emergencies only
# (injury, fire, police, ambulance), never to mere urgency such as "急着回消息".
URGENT_KEYWORDS: tuple[str, ...] = (
    "火警",
    "医院",
    "emergency",
    "火灾",
    "着火",
    "失火",
    "急诊",
    "救护车",
    "抢救",
    "急救",
    "报警",
    "车祸",
    "受伤",
    "流血",
    "出血",
    "昏迷",
    "晕倒",
    "中毒",
    "过敏性休克",
    "心脏病",
    "打120",
    "打110",
    "打119",
    "紧急情况",
    "hospital",
    "ambulance",
    "fire alarm",
    "on fire",
    "house fire",
    "car accident",
    "injured",
    "bleeding",
    "unconscious",
    "overdose",
    "call 911",
    "dial 911",
    "police",
    "urgent care",
    "ER",
)

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

_NEGATIONS_ZH = ("不是", "没有", "并非", "不算", "不用去", "没去")
_NEGATIONS_EN = ("not", "no", "isn't", "wasn't", "never", "non")
_ASCII_WORD = re.compile(r"^[\x00-\x7f]+$")


@dataclass(frozen=True)
class _Matcher:
    """Chinese keywords as plain substrings; English ones in one compiled alternation."""

    chinese: tuple[str, ...]
    english: re.Pattern[str] | None
    by_lower: dict[str, str]


@cache
def _matcher(keywords: tuple[str, ...]) -> _Matcher:
    english = [keyword for keyword in keywords if _ASCII_WORD.match(keyword)]
    alternatives = [
        # "ER" is only meaningful in capitals; every other English keyword ignores case.
        re.escape(keyword) if keyword.isupper() else f"(?i:{re.escape(keyword)})"
        for keyword in sorted(english, key=len, reverse=True)
    ]
    regex = re.compile(rf"(?<![A-Za-z0-9])(?:{'|'.join(alternatives)})(?![A-Za-z0-9])") if english else None
    return _Matcher(
        chinese=tuple(keyword for keyword in keywords if keyword not in english),
        english=regex,
        by_lower={keyword.lower(): keyword for keyword in english if not keyword.isupper()}
        | {keyword: keyword for keyword in english if keyword.isupper()},
    )


def _negated(text: str, start: int) -> bool:
    # Only the same clause counts: "No, hospital now!" is not a negated emergency.
    before = re.split(r"[,.!?;:，。！？；：]", text[max(0, start - 16) : start])[-1]
    if any(negation in before[-4:] for negation in _NEGATIONS_ZH):
        return True
    words = re.findall(r"[A-Za-z']+", before.lower())[-2:]
    return any(word in _NEGATIONS_EN for word in words)


def _hits(text: str, matcher: _Matcher) -> list[tuple[str, int]]:
    """(keyword, position) for every occurrence, Chinese and English alike."""
    hits = []
    for keyword in matcher.chinese:
        position = text.find(keyword)
        while position >= 0:
            hits.append((keyword, position))
            position = text.find(keyword, position + 1)
    if matcher.english is not None:
        for hit in matcher.english.finditer(text):
            word = hit.group(0)
            hits.append((matcher.by_lower.get(word.lower(), matcher.by_lower.get(word, word)), hit.start()))
    return hits


def matches(text: str, keywords: Iterable[str], *, skip_negated: bool = False) -> list[str]:
    """The distinct keywords present (each once), in list order."""
    order = tuple(keywords)
    found = {
        keyword for keyword, at in _hits(text, _matcher(order)) if not (skip_negated and _negated(text, at))
    }
    return [keyword for keyword in order if keyword in found]


def urgent_keywords(text: str) -> list[str]:
    """The urgent keywords present and not negated ("这不是紧急情况" does not count)."""
    return matches(text, URGENT_KEYWORDS, skip_negated=True)
