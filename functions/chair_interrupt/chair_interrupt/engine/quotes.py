"""Whose words a quotation in a chunk is. Quotation marks are a hedge (policy.json `offline.hedges`:
"any quotes"), because a quotation is most often someone else's words read out, reported or
mocked. Two kinds are the speaker's own and hedge nothing:

- a caricature the speaker puts in quotes as what a school amounts to: "Virtue ethics is
  basically 'be a nice person'", 自由意志主义那一派，讲白了就是「有钱人想干嘛就干嘛」. A school is
  named in the clause before it, no verb of saying stands there ("my coach says care ethics is…"
  reports), and no question follows ("So is virtue ethics really just '…'? No.");
- the speaker's own earlier position: "my 'let the parents decide' line", 我一直强调的「本人意愿」,
  unless the speaker takes it back ("…was a mistake, and I withdraw it", 其实是错的，我收回).

Either stays a quotation when its source or mockery follows it ("…', says Bentham", "Bentham's
phrase, not mine", 边沁这么写的, "As if.") or a framing precedes it ("In my opponent's words",
在对方眼里).

The chunk is read folded and lowercased (persona_rails.folding), where typographic quotes are " and '.
"""

from __future__ import annotations

import re
from itertools import islice

from persona_rails.folding import fold

# Someone's words quoted in Chinese. Folding takes a quotation mark between two Chinese characters,
# or between spelled-out letters, for a separator and drops it (写“纽伦堡法典是1964年” folds to
# 写纽伦堡法典是1964年"), so the hedge lexicon's quotes cannot see it there: the quotation is read on
# the chunk folded piece by piece between the marks, which keeps them. Only after a verb of saying
# or writing, as the lexicon's single quotes: a quoted principle in the speaker's own claim
# (墨子主张“爱有差等”) is theirs, and so are a thinker's words given as what he meant (康德的原话是：
# '…'). Bounded, so a chunk of unclosed quotation marks reads in linear time.
_QUOTATION_MARK = re.compile(r"([“”「」『』\"'‘’])")
_QUOTED_SPEECH = re.compile(
    r"(?:(?<![小我])说|写|讲|声称|宣称|问|骂|喊|说成|(?<=[佢哋人])话)(?:道|过|着|了)?[：:，,]?\s*[“「『\"'‘]"
    r"[^”」』\"'’\n]{0,3}[\u3400-\u9fff][^”」』\"'’\n]{3,300}?[”」』\"'’]"
)


def quoted_speech(content: str) -> bool:
    """Whether the chunk quotes someone's words in Chinese, read on the chunk as it was said."""
    pieces = _QUOTATION_MARK.split(content)
    if len(pieces) < 3:
        return False
    # Odd pieces are the marks themselves.
    kept = "".join(piece if index % 2 else fold(piece) for index, piece in enumerate(pieces))
    return _QUOTED_SPEECH.search(kept) is not None


# A chunk that opens on someone's words in Chinese marks ("“不生孩子就是自私”，这句话我听过无数遍"): when
# letters are spaced out, folding takes the closing mark for a gap between them and drops it, so
# the hedges cannot see the quotation; it is read on the chunk as said. Four characters or more,
# as the hedges' quotations: "“内卷”这个词…" names a term.
_OPENING_QUOTATION = re.compile(r"\W{0,3}[“「『][^”」』\n]{4,200}[”」』]")


def opens_on_a_quotation(content: str) -> bool:
    return _OPENING_QUOTATION.match(content) is not None


# A quotation in any of the marks the hedges read, bounded, so unclosed marks read in linear time.
_QUOTATION = (
    r"""(?:'(?:[^'\n]|(?<=[a-z])'(?=[a-z])){2,200}?'(?![a-z0-9_])"""
    r"""|"[^"\n]{2,200}"|「[^」\n]{1,200}」|『[^』\n]{1,200}』)"""
)
# Words that reduce a school to the quotation: "is basically", "is just", "is nothing but".
_REDUCING = r"(?:basically|just|literally|simply|really|nothing\s+but|nothing\s+more\s+than|all\s+about|only)"
_OWN_QUOTATION = re.compile(
    # What a school amounts to, in English and in Chinese (一个 excuse——'…' names it first). After
    # 's only with a word of reducing: "Bentham's 'can they suffer?'" is his, "the take's basically
    # '…'" the speaker's.
    r"(?:(?<![\w])(?:is|are|boils\s+down\s+to|comes\s+down\s+to|amounts\s+to)\s+(?:" + _REDUCING + r"\s+)*"
    r"|'s\s+(?:" + _REDUCING + r"\s+)+"
    r"|(?:说白了|讲白了|说穿了|讲穿了|说到底)?[，,]?\s*(?:根本)?(?:就|只|无非|不过)?(?:就是|只是|等于|咪就系|就系|就一句话[：:]?)"
    r"(?:\s*一[个种][^'\"「『\n。！？]{0,12}?[—:：]{1,2})?\s*"
    # The speaker's own position.
    r"|(?P<own>(?<![\w])(?:my|our)\s+(?:(?:whole|own|old)\s+)?|我(?:们|哋)?(?:刚才|一直|之前|原来)?"
    r"(?:说|讲|坚持|强调|主张)(?:过)?(?:的|嘅)\s*))" + _QUOTATION
)
# In the clause before the quotation, a verb of saying, someone's framing or mockery: the words
# are someone's, reported.
_REPORTED = re.compile(
    r"(?<![\w])(?:says?|said|saying|told|tells|writes?|wrote|written|posted|posts|claims?|claimed|"
    r"reckons?|according\s+to|put\s+it|calls?|called|describes?|described|asks?|asked|thinks?|words|"
    r"version|to\s+hear|for\s+(?:my|our|the)\s+opponents?|yeah\s+right|as\s+if)(?![\w])"
    r"|说|讲|写|话|称|问|认为|觉得|以为|眼里|口中|版本"
)
# Right after the quotation: whose words they are ("…', says Bentham", "Bentham's phrase, not
# mine", 边沁的原话), or mockery ("As if.", 笑死).
_REPORTED_AFTER = re.compile(
    r"[\s,—-]{0,4}(?:(?:says|said|writes|wrote)\s|to\s+quote\b|if\s+you\s+listen\s+to\b|as\s+if\b)"
    r"|[^.!?。！？\n]{0,30}?(?:(?<![\w])(?:\w+'s\s+(?:phrase|words)|not\s+mine|yeah\s+right)(?![\w])"
    r"|原话|这么(?:写|说|讲)|版本|不是我的|笑死|呵呵)"
)
_REPORTED_AFTER_CHARS = 40
# The speaker's own earlier position taken back ("a mistake, and I withdraw it", 其实是错的，我收回).
_TAKEN_BACK = re.compile(
    r"[^.!?。！？\n]{0,60}?(?:(?<![\w])(?:withdraw|take\s+(?:it\s+)?back|was\s+(?:\w+\s+)?(?:a\s+)?"
    r"(?:mistake|wrong))(?![\w])|收回|是错的|错了)"
)
_TAKEN_BACK_CHARS = 80
_CLAUSE_END = re.compile(r"[.!?;。！？；\n]")
# Read in the clause before the quotation, at most this far back.
_CLAUSE_CHARS = 120
# A question or a taunting particle right after the quotation: "…'? No.", 「…」吗, '…'嘛.
_ASKED_AFTER = re.compile(r"[^.!。\n]{0,8}?(?:[?？]|吗|咩|嘛)")
_ASKED_AFTER_CHARS = 10
_QUOTATIONS_READ = 20
_UNMARKED = str.maketrans({"'": " ", '"': " ", "「": " ", "」": " ", "『": " ", "』": " "})


def _clause_before(text: str, start: int) -> str:
    begin = max(start - _CLAUSE_CHARS, 0)
    ends = [found.end() for found in _CLAUSE_END.finditer(text, begin, start)]
    return text[ends[-1] if ends else begin : start]


def _own(text: str, quotation: re.Match[str], schools: tuple[tuple[str, re.Pattern[str]], ...]) -> bool:
    if _REPORTED.search(_clause_before(text, quotation.start())):
        return False
    end = quotation.end()
    if _ASKED_AFTER.match(text, end, end + _ASKED_AFTER_CHARS):
        return False
    if _REPORTED_AFTER.match(text, end, end + _REPORTED_AFTER_CHARS):
        return False
    if quotation.group("own") is not None:
        return _TAKEN_BACK.match(text, end, end + _TAKEN_BACK_CHARS) is None
    before = text[max(quotation.start() - _CLAUSE_CHARS, 0) : quotation.start()]
    return any(school.search(before) for _, school in schools)


def without_own_quotations(text: str, schools: tuple[tuple[str, re.Pattern[str]], ...]) -> str:
    """The folded, lowercased chunk with the marks taken off the quotations that are the speaker's
    own, for the hedges to read; `schools` are the frameworks' aliases (ChairConfig.aliases). At most
    `_QUOTATIONS_READ` of them are read: a debater quotes a few lines, and a chunk of thousands of
    quotations would cost a second of reading (the rest stay quotations)."""
    kept: list[str] = []
    last = 0
    for quotation in islice(_OWN_QUOTATION.finditer(text), _QUOTATIONS_READ):
        if _own(text, quotation, schools):
            kept += [text[last : quotation.start()], quotation.group().translate(_UNMARKED)]
            last = quotation.end()
    return "".join(kept) + text[last:]
