"""An answer's closing words: where a crisis that breaks off a story is said.

A narrator who is taken ill while telling a story says so at the end, after the story: "we moved
up to Detroit in forty-nine, Daddy got on at the Ford plant, and we had this little, um... hold
on. Something's wrong with me. I'm sweating buckets and my jaw aches". Read whole, the story
outweighs the symptoms; read alone, the closing words are plainly acute distress. Found in the
answer as said, before folding: folding joins the words that an ellipsis or a dash breaks up
(`InterviewConfig.for_matching`), and would hide where the speech broke off.
"""

from __future__ import annotations

import re

# Where speech breaks off: an ellipsis, or a double dash.
BREAK = re.compile(r"…+|\.{3,}|——|--")
# Breaks and sentence ends at the very end of an answer, which close no story.
TRAILING = re.compile(r"(?:…+|\.{3,}|——|--|[\s。.!！?？；;])+$")
# Between two sentences: after a sentence-ending mark (a full stop only before a space).
SENTENCE_GAP = re.compile(r"(?<=[。！？!?；;])|(?<=\.)(?=\s)")
# Closing words shorter than this say nothing alone ("So", "哎").
MIN_CHARS = 4
# Without a break, the closing words are the last two sentences, when the answer has more.
LAST_SENTENCES = 2


def closing_words(text: str) -> str | None:
    """The words after an answer's last break; without a break, its last two sentences. None
    when the answer has no such part shorter than itself."""
    spoken = TRAILING.sub("", text)
    pieces = BREAK.split(spoken)
    if len(pieces) > 1 and len(pieces[-1].strip()) >= MIN_CHARS:
        return pieces[-1].strip()
    sentences = [sentence for sentence in SENTENCE_GAP.split(text) if sentence.strip()]
    if len(sentences) > LAST_SENTENCES:
        return "".join(sentences[-LAST_SENTENCES:]).strip()
    return None
