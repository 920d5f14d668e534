"""What the offline evaluator reads in a chunk besides the quick check: whether it hedges, whether
it credits a thinker with another school's position, concedes, or leans on a loaded term it does
not define, and which frameworks it names. The readings are the local scorer's rule features
(engine/scorer.py); a hedge also decides alone (engine/evaluate.py).

The chunk is read folded and lowercased (persona_rails.folding), sentence by sentence where a
reading needs a sentence: "Mill argued the greatest happiness matters; Kant thought lying is
always wrong" credits each with his own view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chair_interrupt.engine.model import QuickCheck
from chair_interrupt.engine.policy import Detectors
from chair_interrupt.engine.quotes import opens_on_a_quotation, quoted_speech, without_own_quotations
from persona_rails.folding import fold, fold_pattern

_SENTENCES = re.compile(r"[^.!?。！？;；]+[.!?。！？;；]*")


def alternation(patterns: list[str]) -> re.Pattern[str]:
    """One pattern of many, for a folded, lowercased chunk (the patterns are written lowercase: no
    IGNORECASE, which costs ten times the search). An ASCII word or phrase matches only as a whole
    word ("held" not in "withheld"). The word patterns, and those that begin with `\\b`, share one
    boundary test, so that `re` tries their first letters after it instead of running a lookbehind
    for each of them at every character."""
    words, bounded, others = [], [], []
    for pattern in patterns:
        if pattern[:1].isalnum() and pattern.isascii():
            words.append(fold_pattern(pattern))
        # Only an ASCII pattern: the shared test would also put a word boundary before a Chinese
        # alternative of a pattern that starts with `\b` ("…|当一回杠精" after 今天).
        elif pattern.startswith("\\b") and pattern[2:3] not in ("", "|") and pattern.isascii():
            bounded.append(fold_pattern(pattern[2:]))
        else:
            others.append(fold_pattern(pattern))
    parts = [rf"(?<![\w])(?:{'|'.join(words)})(?![\w])"] if words else []
    parts += [rf"(?<![\w])(?:{'|'.join(bounded)})"] if bounded else []
    parts += [f"(?:{p})" for p in others]
    return re.compile("|".join(parts))


@dataclass(frozen=True)
class CompiledDetectors:
    thinkers: tuple[tuple[str, re.Pattern[str]], ...]
    claims: tuple[tuple[str, re.Pattern[str]], ...]
    works: tuple[tuple[str, re.Pattern[str]], ...]
    attribution: re.Pattern[str]
    concessions: re.Pattern[str]
    loaded_terms: re.Pattern[str]
    definitions: re.Pattern[str]


def compile_detectors(detectors: Detectors) -> CompiledDetectors:
    return CompiledDetectors(
        thinkers=tuple((key, alternation(names)) for key, names in detectors.thinkers.items()),
        claims=tuple((key, alternation(claims)) for key, claims in detectors.claims.items()),
        works=tuple((key, alternation(works)) for key, works in detectors.works.items()),
        attribution=alternation(detectors.attribution),
        concessions=alternation(detectors.concessions),
        loaded_terms=alternation(detectors.loaded_terms),
        definitions=alternation(detectors.definitions),
    )


@dataclass(frozen=True)
class Reading:
    hedged: bool
    # (the thinker's framework, the framework whose claim he is credited with), in one sentence.
    misattributed: tuple[str, str] | None
    thinkers: frozenset[str]
    claims: frozenset[str]
    concession: bool
    loaded_terms: int
    defined: bool
    # Frameworks the chunk names (by the frameworks file's aliases).
    names: frozenset[str]
    question: bool
    exclamation: bool
    # Where the strongest reading is (a misattribution, a concession), for the trigger content.
    span: tuple[int, int] | None


# "哦对对对", the mocking "oh right right right": folding collapses the repeated 对 (against
# spelled-out evasions), which makes it the plain "哦对" (oh, right), so it is read as said.
_MOCKING_YES = re.compile(r"[哦噢喔]\s?[，,]?\s?[对對]{3}")


# The speaker turning from what others said to their own view ("但我自己的立场很明确：…", "But
# honestly 我自己觉得…", "my own view is…", "But since you've brought Kant up: …"): what follows is
# theirs, so the report before it hedges the chunk no more. On the blind sets j-ad and the splits,
# every hedged chunk with such a turn warranted an interruption (7 of 7).
_OWN_VOICE = re.compile(
    r"我自己的(?:看法|立场|观点|意见)|我自己(?:觉得|认为|倒觉得)|我个人(?:觉得|认为|的看法)|我的立场(?:很明确|是)"
    r"|\bmy\s+own\s+(?:view|position|take|opinion)\b|\bpersonally,?\s+i\s+(?:think|believe|reckon)\b"
    r"|\bbut\s+(?:honestly|frankly),?\s+(?:i\b|我)|\bhere'?s\s+what\s+i\s+(?:think|believe)\b"
    r"|\bbut\s+since\s+you'?ve\s+brought\b|\bhere'?s\s+my\s+(?:actual\s+|real\s+|own\s+)?take\b"
)


def _hedged(
    hedges: re.Pattern[str], aliases: tuple[tuple[str, re.Pattern[str]], ...], content: str, text: str
) -> bool:
    hedge = hedges.search(without_own_quotations(text, aliases))
    if (
        hedge is None
        and not quoted_speech(content)
        and not opens_on_a_quotation(content)
        and _MOCKING_YES.search(content) is None
    ):
        return False
    # The report hedges the chunk unless the speaker's first turn to their own view comes after it.
    # Quoted speech, an opening quotation and the mocking yes are read on the chunk as said, whose
    # offsets folding moves: for them, a turn anywhere but at the very start counts.
    own = _OWN_VOICE.search(text)
    begins = hedge.start() if hedge is not None else 0
    return own is None or own.start() <= begins


def _misattribution(compiled: CompiledDetectors, sentence: str) -> tuple[str, str] | None:
    if compiled.attribution.search(sentence) is None:
        return None
    credited = [key for key, pattern in compiled.thinkers if pattern.search(sentence)]
    if not credited:
        return None
    claimed = [key for key, pattern in compiled.claims if pattern.search(sentence)]
    # A book is credited wrongly only when none of its own framework's thinkers is named with it
    # ("Nozick wrote Anarchy, State, and Utopia, partly as a reply to Rawls" names its author).
    claimed += [key for key, pattern in compiled.works if key not in credited and pattern.search(sentence)]
    for thinker in credited:
        if claimed and thinker not in claimed:
            return thinker, claimed[0]
    return None


def read(
    compiled: CompiledDetectors,
    hedges: re.Pattern[str],
    aliases: tuple[tuple[str, re.Pattern[str]], ...],
    content: str,
) -> Reading:
    folded = fold(content)
    text = folded.lower()
    thinkers = frozenset(key for key, pattern in compiled.thinkers if pattern.search(text))
    claims = frozenset(key for key, pattern in compiled.claims if pattern.search(text))
    misattributed = None
    span = None
    # Sentence by sentence only where the whole chunk holds a thinker, a claim or a book, and an
    # attribution.
    if (
        thinkers
        and (claims or any(pattern.search(text) for _, pattern in compiled.works))
        and compiled.attribution.search(text)
    ):
        for sentence in _SENTENCES.finditer(text):
            found = _misattribution(compiled, sentence.group())
            if found is not None:
                misattributed, span = found, sentence.span()
                break
    concession = compiled.concessions.search(text)
    if span is None and concession is not None:
        span = concession.span()
    if span is not None and len(folded) != len(content):
        span = None  # offsets in the folded text are not the original's: the evaluator takes the chunk
    return Reading(
        hedged=_hedged(hedges, aliases, content, text),
        misattributed=misattributed,
        thinkers=thinkers,
        claims=claims,
        concession=concession is not None,
        loaded_terms=len(compiled.loaded_terms.findall(text)),
        defined=compiled.definitions.search(text) is not None,
        names=frozenset(key for key, pattern in aliases if pattern.search(text)),
        question="?" in text,
        exclamation="!" in text,
        span=span,
    )


def rule_features(
    reading: Reading, quick: QuickCheck, speaker: str, listeners: frozenset[str]
) -> dict[str, float]:
    """The reading as the scorer's named features (each 0 or 1)."""
    present = {
        "hedged": reading.hedged,
        "misattribution": reading.misattributed is not None,
        "misattribution_heard": reading.misattributed is not None
        and bool(set(reading.misattributed) & listeners),
        "thinker": bool(reading.thinkers),
        "claim": bool(reading.claims),
        "concession": reading.concession,
        "loaded_term": reading.loaded_terms > 0,
        "undefined_loaded_term": reading.loaded_terms > 0 and not reading.defined,
        "definition": reading.defined,
        "names_listener": bool(reading.names & listeners),
        "names_own": speaker in reading.names,
        "question": reading.question,
        "exclamation": reading.exclamation,
    }
    if quick.likely_reason is not None:
        present[f"quick_{quick.likely_reason.value}"] = True
    return {name: 1.0 for name, on in present.items() if on}
