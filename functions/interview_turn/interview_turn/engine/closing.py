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
# Marks at the very end of an answer (breaks, sentence ends), which close no story. One flat class:
# a repeat of alternatives that themselves repeat ("(?:…+|\.{3,})+$") backtracks exponentially on a
# long run of marks followed by more words, as speech-to-text writes them.
TRAILING_MARKS = " \t\r\n。.!！?？；;…—-"
# Between two sentences: after the last of a run of sentence-ending marks (a full stop only
# before a space).
SENTENCE_GAP = re.compile(r"(?<=[。！？!?；;])(?![。！？!?；;])|(?<=\.)(?=\s)")
# A piece with something said in it, not marks alone.
SAID = re.compile(r"\w")
# Closing words shorter than this say nothing alone ("So", "哎").
MIN_CHARS = 4
# Without a break, the closing words are the last two sentences, when the answer has more.
LAST_SENTENCES = 2


def closing_words(text: str) -> str | None:
    """The words after an answer's last break, when words come before it too; else its last two
    sentences. None when the answer has no such part shorter than itself."""
    pieces = BREAK.split(text.rstrip(TRAILING_MARKS))
    closing = pieces[-1].strip()
    if len(closing) >= MIN_CHARS and SAID.search("".join(pieces[:-1])):
        return closing
    sentences = [sentence for sentence in SENTENCE_GAP.split(text) if SAID.search(sentence)]
    if len(sentences) > LAST_SENTENCES:
        return "".join(sentences[-LAST_SENTENCES:]).strip()
    return None
