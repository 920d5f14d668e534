"""The signal extractor's deterministic default: bilingual (English and Chinese) heuristics.

- vagueness: hedges and missing specifics (numbers, dates, seasons, places, people), and very
  short answers;
- emotion: a weighted lexicon, combined as independent evidence (1 - Π(1 - w)), nudged by
  intensifiers, and raised by the emotion model (engine/scorer.py) when it reads the answer as
  heavy;
- contradiction: anchored facts of this answer against earlier answers on the same topic
  (facts.py), discounted when the narrator marks a self-correction ("actually", "其实") and
  silenced for a conflict already clarified once;
- refusal or discomfort: refusal, discomfort and change-the-topic phrases, and requests to slow
  down or pause ("Could we take a break?", 慢一点好吗？: `pause_requested`, answered with a pause
  line); hard stops (stop requests, acute distress, self-harm) are separate and outrank
  everything. The signal model (engine/scorer.py) adds pauses and hard stops the lexicons miss.

The LLM-assisted mode (assisted.py) merges a model's scores into these, never replacing them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from interview_turn.engine.closing import closing_words
from interview_turn.engine.config import CompiledLexicon, InterviewConfig
from interview_turn.engine.facts import FactConflict, conflicts, extract_facts
from interview_turn.engine.model import SEVERITY, Fact, HardStop, Phase, TopicState, graver
from interview_turn.engine.scorer import (
    DECLINED,
    learned_emotion,
    learned_signal,
    may_end_in_a_signal,
    signal_in_closing_words,
    signal_probabilities,
)
from persona_rails.local_model import LocalModel, text_grams

_WORD = re.compile(r"[A-Za-z0-9']+|[\u3400-\u9fff]")
INTENSIFIER_STEP = 0.05
INTENSIFIER_CAP = 0.1
PHASE_BY_DEPTH = {0: Phase.WARMUP, 1: Phase.NARRATIVE, 2: Phase.REFLECTION, 3: Phase.DEPTH}


@dataclass(frozen=True)
class Signals:
    vagueness_score: float
    emotion_score: float
    contradiction_score: float
    refusal_or_discomfort: bool
    conversation_phase: Phase
    user_initiated_elaboration: bool
    topic_id: str
    prior_depth_level: int
    hard_stop: HardStop | None
    pause_requested: bool
    topic_change_requested: bool
    reflective: bool
    contradiction: FactConflict | None

    def as_dict(self) -> dict[str, object]:
        conflict = self.contradiction
        return {
            "vagueness_score": self.vagueness_score,
            "emotion_score": self.emotion_score,
            "contradiction_score": self.contradiction_score,
            "refusal_or_discomfort": self.refusal_or_discomfort,
            "conversation_phase": self.conversation_phase.value,
            "user_initiated_elaboration": self.user_initiated_elaboration,
            "topic_id": self.topic_id,
            "prior_depth_level": self.prior_depth_level,
            "hard_stop": self.hard_stop.value if self.hard_stop else None,
            "pause_requested": self.pause_requested,
            "topic_change_requested": self.topic_change_requested,
            "contradiction": None
            if conflict is None
            else {
                "kind": conflict.kind.value,
                "anchor": conflict.anchor,
                "earlier": conflict.earlier,
                "current": conflict.current,
                "earlier_turn": conflict.earlier_turn,
            },
        }


@dataclass(frozen=True)
class Extraction:
    signals: Signals
    facts: list[Fact]


def words(text: str) -> int:
    """Words in Latin script plus characters in CJK: a language-neutral length for heuristics."""
    return len(_WORD.findall(text))


def _any(patterns: tuple[re.Pattern[str], ...], text: str) -> bool:
    return any(pattern.search(text) for pattern in patterns)


def _count(patterns: tuple[re.Pattern[str], ...], text: str) -> int:
    return sum(len(pattern.findall(text)) for pattern in patterns)


def _score(value: float) -> float:
    return round(min(1.0, max(0.0, value)), 2)


NEGATION_WINDOW = 24
# Readings that make an answer a refusal or a discomfort.
_DECLINING = frozenset({"topic_change", "refusal", "discomfort"})
# The emotion score above which the local models are told an answer carries feeling.
EMOTION_FEATURE = 0.3


class Match(Enum):
    """How a pause or stop phrase stands in an answer."""

    STANDS = "stands"
    # No match stands, and at least one repeats an offer and declines it ("A break? No, go on.").
    DECLINED = "declined"


def _standing(patterns: tuple[re.Pattern[str], ...], text: str, lexicon: CompiledLexicon) -> Match | None:
    """STANDS when a match stands: no negation right before it cancels it ("I don't want to stop",
    不想停下来), and it is not an offer repeated and declined right after it ("A break? No, go on.",
    歇会儿？不用不用). Otherwise DECLINED when one was declined, None when none."""
    declined = False
    for pattern in patterns:
        for match in pattern.finditer(text):
            before = text[max(0, match.start() - NEGATION_WINDOW) : match.start()]
            if any(negation.search(before) for negation in lexicon.negation_before):
                continue
            after = text[match.end() : match.end() + NEGATION_WINDOW]
            if any(decline.match(after) for decline in lexicon.declined_after):
                declined = True
                continue
            return Match.STANDS
    return Match.DECLINED if declined else None


def hard_stop(text: str, lexicon: CompiledLexicon) -> HardStop | None:
    """Self-harm first: when a message holds both, the crisis guidance must not be lost. It is
    not second-guessed by negation either ("I would never kill myself" still gets the guidance):
    a needless crisis line costs far less than a missed one. A stop request is a stop only
    when nothing negates it, because it closes the session for good."""
    return read_lexicons(text, lexicon).hard_stop


@dataclass(frozen=True)
class LexiconReading:
    """What the lexicons read in an answer, each read once: the signals and the local models'
    features (engine/scorer.py) both come from it."""

    found: frozenset[str]
    emotion: float

    @property
    def hard_stop(self) -> HardStop | None:
        for stop in SEVERITY:
            if stop.value in self.found:
                return stop
        return None

    @property
    def features(self) -> dict[str, float]:
        """The local models' named features (each 0 or 1)."""
        named = set(self.found)
        if self.emotion >= EMOTION_FEATURE:
            named.add("emotion")
        return dict.fromkeys(sorted(named), 1.0)


def read_lexicons(text: str, lexicon: CompiledLexicon) -> LexiconReading:
    stop = _standing(lexicon.stop_request, text, lexicon)
    pacing = _standing(lexicon.pacing, text, lexicon)
    present = {
        HardStop.SELF_HARM.value: _any(lexicon.self_harm, text),
        HardStop.ACUTE_DISTRESS.value: _any(lexicon.acute_distress, text),
        HardStop.STOP_REQUEST.value: stop is Match.STANDS,
        "pacing": pacing is Match.STANDS,
        DECLINED: Match.DECLINED in (stop, pacing),
        "refusal": _any(lexicon.refusal, text),
        "discomfort": _any(lexicon.discomfort, text),
        "topic_change": _any(lexicon.topic_change, text),
        "negation": _any(lexicon.negation_before, text),
        "question": "?" in text or "？" in text,
    }
    return LexiconReading(frozenset(name for name, on in present.items() if on), emotion(text, lexicon))


def rule_features(text: str, lexicon: CompiledLexicon) -> dict[str, float]:
    """The local models' features of an answer (what `make train` fits them on)."""
    return read_lexicons(text, lexicon).features


def vagueness(text: str, lexicon: CompiledLexicon, short_answer_words: int) -> float:
    hedges = _count(lexicon.hedges, text)
    specifics = _count(lexicon.specifics, text)
    score = 0.2 + 0.15 * hedges - 0.1 * min(specifics, 3)
    if specifics == 0:
        score += 0.25
    if words(text) <= short_answer_words:
        score += 0.15
    return _score(score)


def emotion(text: str, lexicon: CompiledLexicon) -> float:
    calm = 1.0
    for pattern, weight in lexicon.emotion:
        # A feeling said twice is stronger evidence than once, but not three times stronger.
        for _ in range(min(2, len(pattern.findall(text)))):
            calm *= 1 - weight
    if calm == 1.0:
        return 0.0
    boost = min(INTENSIFIER_CAP, INTENSIFIER_STEP * (_count(lexicon.intensifiers, text) + text.count("!")))
    return _score(1 - calm + boost)


def elaboration(text: str, lexicon: CompiledLexicon, config: InterviewConfig) -> bool:
    limits = config.lexicon.thresholds
    length = words(text)
    if _any(lexicon.elaboration, text) or length >= limits.elaboration_min_tokens:
        return True
    return (
        _count(lexicon.specifics, text) >= limits.elaboration_min_specifics
        and length * 2 >= limits.elaboration_min_tokens
    )


# Fewer words than this beside a topic change say too little to read alone: the signal model,
# fitted on whole answers, reads "please." as 0.43 a stop request.
BESIDE_MIN_WORDS = 4
# Where a folded answer's clauses end (folding keeps the Chinese full stop).
CLAUSE_END = re.compile(r"[,;.!?…。！？；]+")


def beside_topic_change(text: str, lexicon: CompiledLexicon) -> str | None:
    """The clauses of an answer that do not ask for another topic, or None when they hold fewer
    than `BESIDE_MIN_WORDS` words. Whole clauses, not the words around the match: "I'd rather ,
    please." reads as nothing an answer would say."""
    kept = [clause.strip() for clause in CLAUSE_END.split(text) if not _any(lexicon.topic_change, clause)]
    beside = ". ".join(clause for clause in kept if _WORD.search(clause)) + "."
    return beside if words(beside) >= BESIDE_MIN_WORDS else None


def _model_reading(
    model: LocalModel, text: str, reading: LexiconReading, ngrams: frozenset[str], lexicon: CompiledLexicon
) -> dict[str, float]:
    """The signal model's probabilities for an answer. Beside a topic change, the other clauses
    are read alone (`beside_topic_change`): asking for another topic is asking to go on, but a
    pause, a crisis or a stop said with it still counts ("换个话题吧，我不想活了。"; "We're not
    talking about Vietnam. Not ever. Ask me about something else." is a stop request)."""
    beside = beside_topic_change(text, lexicon) if "topic_change" in reading.found else None
    if beside is None:
        return signal_probabilities(model, ngrams, reading.features)
    return signal_probabilities(model, text_grams(beside), read_lexicons(beside, lexicon).features)


def _signal_at_the_end(config: InterviewConfig, model: LocalModel, answer: str) -> str | None:
    """Acute distress or a pause that breaks off a story, read in the answer's closing words alone
    (engine/closing.py); only the signal model reads them: the lexicons have read the whole."""
    said = closing_words(answer)
    if said is None:
        return None
    closing = config.for_matching(said)
    return signal_in_closing_words(model, closing, read_lexicons(closing, config.compiled_lexicon).features)


def extract(
    config: InterviewConfig, text: str, *, topic_id: str, topic: TopicState, turn_no: int
) -> Extraction:
    lexicon = config.compiled_lexicon
    answer, text = text, config.for_matching(text)
    reading = read_lexicons(text, lexicon)
    stop = reading.hard_stop
    # "I don't need a break" asks for none; a hard stop outranks a pause.
    pause = "pacing" in reading.found
    feeling = reading.emotion
    models = config.local_models
    if models is not None:
        # The lexicons are sure of what they find; the models may add what they missed, and take
        # nothing away but one: a stop request that names a return and that the model or the
        # lexicons read as a pause ("Let's stop here for today, tomorrow we go on", 今天就到这里吧，
        # 下个礼拜再继续). A pause keeps the session open for the return, where a stop would close
        # it for good.
        # An answer that may end in a crisis or a pause has its closing words read alone too.
        features = reading.features
        ngrams = text_grams(text)
        probabilities = _model_reading(models.signals, text, reading, ngrams, lexicon)
        learned_stop, learned_pause = learned_signal(probabilities, models.signals.thresholds)
        # "I don't want to stop" reads to the model like a stop request: asked to go on, only the
        # lexicons' own stop request stands (a pause still may: "I don't want to stop, I just need
        # to sit a sec").
        if learned_stop is HardStop.STOP_REQUEST and (
            _any(lexicon.keep_going, text) or _any(lexicon.go_on, text)
        ):
            learned_stop = None
        # Acute distress beside such a pause stands: people in an emergency say "hang on, don't
        # hang up" because of it, and "we'll carry on later" does not make it safe.
        if stop is HardStop.STOP_REQUEST and (learned_pause or pause) and _any(lexicon.resumption, text):
            stop = None
        stop = graver(stop, learned_stop)
        if stop is None and may_end_in_a_signal(probabilities):
            at_the_end = _signal_at_the_end(config, models.signals, answer)
            if at_the_end == HardStop.ACUTE_DISTRESS.value:
                stop = HardStop.ACUTE_DISTRESS
            learned_pause = learned_pause or at_the_end == "pause"
        # Asked to carry on now ("…but he said don't come home yet, so let's just continue"), only
        # the lexicons' own pause or stop stands; not when a later time is named ("let's continue
        # on Thursday", 我们下周再接着聊吧), which is a pause.
        if learned_pause and _any(lexicon.go_on, text) and not _any(lexicon.resumption, text):
            learned_pause = False
        pause = pause or learned_pause
        feeling = max(feeling, learned_emotion(models.emotion, ngrams, features, config.emotion_scale))
    pause = pause and stop is None
    topic_change = "topic_change" in reading.found
    refusal = stop is not None or pause or bool(reading.found & _DECLINING)
    facts = extract_facts(text, lexicon, turn_no)
    found = [c for c in conflicts(facts, topic.facts) if c.key not in topic.clarified]
    conflict = max(found, key=lambda c: c.confidence, default=None)
    contradiction = conflict.confidence if conflict else 0.0
    if conflict and _any(lexicon.correction, text):
        contradiction *= 1 - config.lexicon.thresholds.correction_discount
    reflective = _any(lexicon.reflection, text)
    phase = Phase.CLOSE if stop else PHASE_BY_DEPTH[topic.depth]
    if reflective and topic.depth >= 1 and not stop:
        phase = Phase.REFLECTION
    signals = Signals(
        vagueness_score=vagueness(text, lexicon, config.lexicon.thresholds.short_answer_tokens),
        emotion_score=feeling,
        contradiction_score=_score(contradiction),
        refusal_or_discomfort=refusal,
        conversation_phase=phase,
        user_initiated_elaboration=elaboration(text, lexicon, config),
        topic_id=topic_id,
        prior_depth_level=topic.depth,
        hard_stop=stop,
        pause_requested=pause,
        topic_change_requested=topic_change,
        reflective=reflective,
        contradiction=conflict,
    )
    return Extraction(signals, facts)
