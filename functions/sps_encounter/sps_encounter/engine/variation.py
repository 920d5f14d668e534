"""Stylistic variation (precedence layer 6): micro-elaboration (§5), disfluency, phrasing
rotation, and anti-echo (§9). Every decision draws from the encounter's RNG and says so."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sps_encounter.engine.case import Language, Opener
from sps_encounter.engine.compiled import Case, CompiledLanguage
from sps_encounter.engine.rng import Domain, choose, next_rng, record_rotating
from sps_encounter.engine.state import QuestionType, SPSRuntimeState, Verbosity
from sps_encounter.engine.text import opening_bigram, opening_tokens


def choose_fresh(
    state: SPSRuntimeState, domain: Domain, pool: Sequence[str], window: list[str], purpose: str
) -> str:
    """`choose` among the phrases not in the rotating window, then record the choice in it.
    Clarification and boundary pools hold at least 4 phrases and their windows 3, so a fresh one
    always exists; a smaller pool sharing a window (declines, uncertainty) at least never says
    the phrase it said last."""
    fresh = (
        [phrase for phrase in pool if phrase not in window]
        or [phrase for phrase in pool if phrase != window[-1]]
        or list(pool)
    )
    phrase = choose(state, domain, fresh, purpose)
    record_rotating(window, phrase, 3)
    return phrase


def base_probability(verbosity: Verbosity) -> float:
    """The spec's `shouldElaborate` bases: brief 0.25, balanced 0.40, talkative 0.55."""
    return {Verbosity.BRIEF: 0.25, Verbosity.BALANCED: 0.40, Verbosity.TALKATIVE: 0.55}[verbosity]


@dataclass(frozen=True)
class ElaborationDecision:
    eligible: bool
    probability: float | None = None
    draw: float | None = None
    wanted: bool = False
    throttled: bool = False

    @property
    def elaborate(self) -> bool:
        return self.wanted and not self.throttled

    def to_json(self) -> dict[str, Any]:
        return {
            "eligible": self.eligible,
            "probability": self.probability,
            "draw": self.draw,
            "wanted": self.wanted,
            "throttled": self.throttled,
        }


def should_elaborate(case: Case, state: SPSRuntimeState, question: QuestionType) -> ElaborationDecision:
    """§5 with §6's multiplier and the clamp: only open or narrative questions are eligible; the
    draw is the spec's `nextRng(state) < base`, the base scaled by rapport (guarded 0.9, neutral
    1.0, open 1.1); and an elaboration that would lift the share of elaborated eligible turns
    over the transcript above 40% is throttled, so that share never exceeds it."""
    if question not in (QuestionType.OPEN, QuestionType.NARRATIVE):
        return ElaborationDecision(eligible=False)
    tracking = state.tracking
    tracking.eligible_turns += 1
    policy = case.policy
    probability = base_probability(state.persona_verbosity) * policy.rapport.multipliers[state.rapport.value]
    draw = next_rng(state, "elaboration")
    wanted = draw < probability
    throttled = (
        wanted and (tracking.elaborated_turns + 1) / tracking.eligible_turns > policy.elaboration.clamp
    )
    return ElaborationDecision(True, round(probability, 6), draw, wanted, throttled)


# English words that keep their capital mid-sentence: "I", and days and months ("Okay, Friday nights").
_ALWAYS_CAPITAL = frozenset(
    [
        "I",
        "I'm",
        "I've",
        "I'd",
        "I'll",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ]
)


def _decapitalized(text: str, after: str, proper: frozenset[str]) -> str:
    """The sentence start `text` as it reads after `after`: lowercased after a comma ("Well, it
    started"), kept after a full stop ("Let me think. Gradually."), and kept for "I", acronyms
    and the case's proper names ("Well, Daniel Hughes.")."""
    if not after.endswith((",", ";", "—")) or not text[:1].isupper():
        return text
    first = text.split(" ", 1)[0].rstrip(".,;:!?")
    if (
        first.removesuffix("'s") in _ALWAYS_CAPITAL
        or first in _ALWAYS_CAPITAL
        or first in proper
        or (len(first) > 1 and first.isupper())
    ):
        return text
    return text[0].lower() + text[1:]


def prefixed(
    prefixes: Sequence[str], body: str, language: Language, proper: frozenset[str] = frozenset()
) -> str:
    """`Well,` + `um,` + `It started…` → `Well, um, it started…` (Chinese: `说实话，嗯，就是…`)."""
    if not prefixes:
        return body
    if language is Language.ZH:
        return "".join(prefixes) + body
    words = [prefixes[0]]
    for part in [*prefixes[1:], body]:
        words.append(_decapitalized(part, words[-1], proper))
    return " ".join(words)


def disfluency_prefix(token: str, language: Language) -> str:
    return f"{token}，" if language is Language.ZH else f"{token[:1].upper()}{token[1:]},"


@dataclass(frozen=True)
class Opening:
    text: str
    opener: str | None
    bigram: str
    anti_echo: str  # none | synonym | opener | trimmed | unresolved

    def to_json(self) -> dict[str, Any]:
        return {"opener": self.opener, "bigram": self.bigram, "antiEcho": self.anti_echo}


def _variants(openers: Sequence[Opener]) -> list[str]:
    return [text for opener in openers for text in (opener.text, *opener.synonyms)]


STAGE_DIRECTION = ("(", "（", "[")


def _fits(opener: str, body: str, lexicon: CompiledLanguage) -> bool:
    """An opener does not go before a body that already opens the same way ("Yeah," + "Yeah.
    Thanks."), nor say yes before a negative answer or a refusal ("Yes, I don't feel feverish":
    layer 6 never contradicts the facts or the boundary it introduces)."""
    folded_opener, folded_body = lexicon.fold(opener), lexicon.fold(body)
    language = lexicon.language
    if opening_tokens(folded_opener, language)[:1] == opening_tokens(folded_body, language)[:1]:
        return False
    affirmative = lexicon.affirmative
    return not (affirmative and affirmative.match(folded_opener) and lexicon.negation.search(folded_body))


def open_utterance(
    case: Case, state: SPSRuntimeState, hedges: list[str], body: str, *, voluntary: bool = True
) -> Opening:
    """Put an opener (at the persona's rate) and any hesitation before the body, then apply
    §9: if the utterance's opening bigram is in `lastOpeners`, substitute a synonym of the
    opener, else another opener, whose bigram is fresh; if repetition persists, left-trim a
    leading filler ("Well,", "So,"). The final bigram enters the window.

    Anti-echo draws exactly one number per utterance, used or not: how an answer opens (the
    offline phrasing, or the LLM's) then never shifts the draws of later turns."""
    language = case.language
    lexicon = case.lexicon
    persona = case.persona
    window = state.last_openers
    opener: Opener | None = None
    if voluntary and next_rng(state, "opener") < persona.rates.opener:
        opener = choose(state, "other", persona.pools.openers, "opener_text")
        # Nor, by choice, before a stage direction ("(Blood pressure: …)"); anti-echo still may.
        if body.startswith(STAGE_DIRECTION) or not _fits(opener.text, body, lexicon):
            opener = None

    def bigram_of(text: str) -> str:
        return opening_bigram(lexicon.fold(text), language)

    def compose(opener_text: str | None) -> str:
        return prefixed([p for p in (opener_text, *hedges) if p], body, language, case.proper_names)

    echo_draw = next_rng(state, "anti_echo")
    echo_record = state.draws[-1]

    def substitute(pool: list[str]) -> str:
        index = min(int(echo_draw * len(pool)), len(pool) - 1)
        echo_record["index"] = index
        return pool[index]

    chosen = opener.text if opener else None
    text = compose(chosen)
    bigram = bigram_of(text)
    anti_echo = "none"
    if bigram in window:
        synonyms = [
            s
            for s in (opener.synonyms if opener else [])
            if bigram_of(compose(s)) not in window and _fits(s, body, lexicon)
        ]
        others = [
            v
            for v in _variants(persona.pools.openers)
            if bigram_of(compose(v)) not in window and _fits(v, body, lexicon)
        ]
        if synonyms:
            chosen, anti_echo = substitute(synonyms), "synonym"
        elif others:
            chosen, anti_echo = substitute(others), "opener"
        text = compose(chosen) if anti_echo != "none" else text
        bigram = bigram_of(text)
        if bigram in window:
            trimmed = _left_trimmed(text, lexicon.fillers, lexicon.fold)
            if trimmed != text and bigram_of(trimmed) not in window:
                text, bigram, chosen, anti_echo = trimmed, bigram_of(trimmed), None, "trimmed"
            else:
                anti_echo = "unresolved"
    record_rotating(window, bigram, case.policy.window)
    return Opening(text, chosen, bigram, anti_echo)


def _left_trimmed(text: str, fillers: Sequence[str], fold: Any) -> str:
    """`Well, it hurts.` → `It hurts.`; a filler is a whole word, so `Sometimes…` stays whole."""
    folded = fold(text)
    for filler in fillers:
        following = folded[len(filler) : len(filler) + 1]
        if folded.startswith(filler) and not (filler[-1:].isalnum() and following.isalnum()):
            rest = text[len(filler) :].lstrip(" ,，")
            return rest[:1].upper() + rest[1:]
    return text
