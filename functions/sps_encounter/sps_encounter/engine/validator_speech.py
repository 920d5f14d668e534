"""The rules on how the patient speaks rather than what they tell: OPENER_ECHO, REFUSAL_REPEATED,
DISFLUENCY_EXCESS, NARRATIVE_TOO_LONG, and the elaborations ELABORATION_RATE_HIGH counts."""

from __future__ import annotations

import re
from itertools import pairwise

from sps_encounter.engine.case import Language
from sps_encounter.engine.learner import question_type
from sps_encounter.engine.state import QuestionType
from sps_encounter.engine.text import opening_bigram, opening_tokens
from sps_encounter.engine.validator_state import _RunState
from sps_encounter.engine.validator_turns import (
    _CJK,
    _CLAUSE_BREAK,
    _first_phrase,
    _meta_value,
    _Patient,
    _recorded,
)

ELIGIBLE = (QuestionType.OPEN, QuestionType.NARRATIVE)
_WORDLIKE = re.compile(r"[^\W_]")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
# How far two answers that open alike on when or on not knowing are compared after the opening.
_GOING_ON = 4
# Who speaks, when a turn holds a relative's or an interpreter's words too ("Sandra: …", "林晓雯：…"):
# a name is no opening, or every labelled turn would echo the one before. A Chinese name is 2 to 5
# characters, without 我 / 你 / 您 and not ending as a phrase of saying does: "我跟你说：…",
# "说实话：…" or "我觉得：…" twice is an echo.
_SPEAKER_LABEL = re.compile(
    r"^\W*(?:[^\W\d_\u3400-\u9fff]{1,12}(?: [^\W\d_\u3400-\u9fff]{1,12}){0,2}"
    r"|(?:(?![我你您])[\u3400-\u9fff]){2,5}(?<![说讲问话得道]))\s*[:：]\s*"
)

# What the patient does, written before what they say ("(Rolls up his sleeve.) There you go.",
# "（伸出手指）"): an action is no opening.
_STAGE_DIRECTION = re.compile(r"^(?:\W*[(（][^)）]{0,80}[)）]){1,3}\s*")

# An interpreter's frame around the patient's words, in a turn that names its speaker
# ("(Interpreter:) He says that's fine.", "翻译：她说…"): the opening is what follows it, or every
# relayed turn would echo the one before. Without a label "He said it was…" is the patient's own
# opener (quoting a GP, a wife), and "They say my dad…" is hearsay.
_RELAY_FRAMES = frozenset(
    {"he says", "she says", "he said", "she said", "they say", "他说", "她说", "他讲", "她讲"}
)
_RELAY = re.compile(r"^[\W_]*(?:he|she|they|他|她)\s*(?:(?:says|said|say)\b|说|讲)[\W_]*(?:that\b)?")

# A sentence ends at . ! ? 。！？ but not at an ellipsis ("uh... I don't, um, know" is one).
_SENTENCE_END = re.compile(r"(?<!\.)[.!?。！？](?!\.)")


def _hesitations_in_one_sentence(folded: str, found: list[re.Match[str]]) -> int:
    """In a transcript from elsewhere, the most hesitations in one sentence. One is one however
    it is spelled ("uh… um,", "嗯……呃": nothing but punctuation and spaces between the tokens), and
    one in each of two sentences is how people talk ("Um. It's headaches… they've got, um,
    worse."): the excess the rule is about is a sentence full of them."""
    most = current = 1
    for before, after in pairwise(found):
        gap = (before.end(), after.start())
        if _SENTENCE_END.search(folded, *gap):
            current = 1
        elif _WORDLIKE.search(folded, *gap):
            current += 1
            most = max(most, current)
    return most


_YES_NO = frozenset({"yes", "yeah", "yep", "no", "nope", "nah"})
# A learner's echo question is the patient's words said back: a few words at most.
_ECHO_QUESTION_WORDS = 4
_ECHO_QUESTION_CHARACTERS = 8
# An opening that names a thing: "the bad ones", "my head"; not "this is", "my goodness", "the
# thing is", which are openers whatever follows them.
_DETERMINERS = frozenset({"the", "my", "this", "that", "these", "those"})
_NO_THING = frozenset(
    {
        "is",
        "was",
        "are",
        "were",
        "s",
        "goodness",
        "god",
        "lord",
        "word",
        "thing",
        "way",
        "point",
        "truth",
        "fact",
    }
)
# Chinese openings that are fillers whatever the question said: 那个, 就是, 然后.
_ZH_FILLERS = frozenset({"那个", "这个", "就是", "然后", "反正", "其实", "怎么", "那么"})
# "No" that answers nothing: "no one at work", "no longer", "no idea".
_NO_AS_A_WORD = frozenset(
    {"no one", "no longer", "no more", "no way", "no idea", "no need", "no matter", "no doubt", "no wonder"}
)


def _sets_things_apart(said: str, bigram: str) -> bool:
    """A turn that opens on one thing and goes on to another in the same shape ("The bad ones
    throb. The rest of the time it's a dull ache.") sorts what it tells: a patient with two kinds
    of pain opens every answer on one of them, which is no opener said again."""
    determiner, _, thing = bigram.partition(" ")
    if determiner not in _DETERMINERS or thing in _NO_THING:
        return False
    for sentence in _SENTENCE_END.split(said)[1:]:
        words = _WORD.findall(sentence)[:2]
        # The other thing in the same shape: "The bad ones… The background one…".
        if len(words) == 2 and words[0] == determiner and words[1] != thing and words[1] not in _NO_THING:
            return True
    return False


class _SpeechRules(_RunState):
    # Empty: every family shares `_RunState`'s slots, and `_Run` gets no instance dict.
    __slots__ = ()

    def _opens_nothing(self, turn: _Patient) -> bool:
        return turn.short or self._answer_word_first(turn)

    def _answer_word_first(self, turn: _Patient) -> bool:
        """A turn opening with a yes or a no set apart ("没有，医院都没住过。", "对，…", "No, nothing
        like that."): its opening is that answer to a yes-no question, not an opener."""
        clause = _CLAUSE_BREAK.split(turn.normal, maxsplit=1)[0].strip()
        lexicon = self.case.lexicon
        if self.case.language is Language.ZH:
            return len(_CJK.findall(clause)) <= 2 and (
                clause in lexicon.source.affirmatives or bool(lexicon.negation.match(clause))
            )
        # In English only a yes or a no: "Okay, so…" and "Sure, so…" are openers a patient can repeat.
        if clause in _YES_NO:
            return True
        # Speech recognition writes no commas ("no nothing like that no weakness or numbness"): in a
        # turn without a single clause break, a first word that answers yes or no is set apart too.
        first_two = clause.split(" ", 2)[:2]
        return (
            clause == turn.normal.strip()
            and first_two[0] in _YES_NO
            and " ".join(first_two) not in _NO_AS_A_WORD
        )

    def _opening_bigram(self, said: str) -> str | None:
        tokens = opening_tokens(said, self.case.language)
        return ("" if self.case.language is Language.ZH else " ").join(tokens) if len(tokens) == 2 else None

    def opener_echo(self, turn: _Patient) -> None:
        # A short answer or a backchannel ("Mm-hmm.", "No, never.", "没有。") opens nothing: two
        # in a row are no echo, and neither is a turn after one. Read only on a repeat (most turns
        # open differently), so it costs nothing per turn.
        said = turn.folded
        labelled = False
        if ":" in said or "：" in said:
            said, labels = _SPEAKER_LABEL.subn("", said, count=1)
            labelled = labels > 0
        if "(" in said[:4] or "（" in said[:4]:
            said = _STAGE_DIRECTION.sub("", said, count=1)
        bigram = self._opening_bigram(said)
        if labelled and bigram in _RELAY_FRAMES:
            said = _RELAY.sub("", said, count=1)
            bigram = self._opening_bigram(said)
        previous, self.previous_opening = self.previous_opening, turn
        if (
            bigram
            and bigram == self.previous_bigram
            and previous is not None
            and not self._opens_nothing(turn)
            and not self._opens_nothing(previous)
            and not self._answers_apart(said)
            # Asked again ("Sorry, say again?", 没听清), the patient says it again.
            and not (self.asked and self.rules.asks_again.search(self.asked))
            and not self._takes_up_the_question(bigram)
            and not _sets_things_apart(said, bigram)
        ):
            self.opener_repeats += 1
            self.warn(
                "OPENER_ECHO",
                turn.index,
                "the same opening as the previous patient turn",
                {"bigram": bigram},
            )
        self.previous_bigram = bigram
        self.previous_said = said

    def _takes_up_the_question(self, bigram: str) -> bool:
        """An opening on the thing the learner just named ("How bad do they get?" "The bad ones are
        an eight."; "疼得厉害吗？" "疼得……") answers in the question's words: said twice, it is the
        same thing talked about, not an opener said again."""
        if not self.asked:
            return False
        # The learner said the patient's words back as a short question ("Three weeks?", "三个星期？"),
        # and the patient says them again to confirm ("Three weeks, yeah.").
        said_back = (
            len(_WORDLIKE.findall(self.asked)) <= _ECHO_QUESTION_CHARACTERS
            if self.case.language is Language.ZH
            else len(_WORD.findall(self.asked)) <= _ECHO_QUESTION_WORDS
        )
        if said_back and opening_bigram(self.asked, self.case.language) == bigram:
            return True
        if self.case.language is Language.ZH:
            return bigram not in _ZH_FILLERS and bigram in self.asked
        determiner, _, thing = bigram.partition(" ")
        return determiner in _DETERMINERS and thing not in _NO_THING and thing in _WORD.findall(self.asked)

    def _answers_apart(self, said: str) -> bool:
        """Two answers that open on when ("Last night…", 昨天…) or on not knowing ("I don't know…
        three weeks?", 不知道算不算……) answer two questions, unless their next words are the same:
        "I'm not sure, doctor, to be honest with you…" twice is an opener said twice."""
        opening = self._answer_opening(said)
        if opening is None:
            return False
        before = self.previous_said or ""
        previous = self._answer_opening(before)
        if previous is None:
            return True
        return self._going_on(said[opening.end() :]) != self._going_on(before[previous.end() :])

    def _answer_opening(self, said: str) -> re.Match[str] | None:
        return self.rules.time_opening.match(said) or self.rules.unsure_opening.match(said)

    def _going_on(self, rest: str) -> list[str]:
        """The first words (characters in Chinese) after an opening: two answers of time part
        within them ("Yesterday it was worse" / "Yesterday it was in my arm")."""
        if self.case.language is Language.ZH:
            return _CJK.findall(rest, 0, 24)[:_GOING_ON]
        return _WORD.findall(rest, 0, 60)[:_GOING_ON]

    def refusal(self, turn: _Patient) -> None:
        """A refusal is the patient declining what the learner asked: a safety boundary or a
        privacy decline, with meta or without."""
        meta = turn.meta
        phrase: str | None = None
        if _recorded(meta, "refusal") or _recorded(meta, "declined"):
            recorded = _meta_value(meta, "refusal", str)
            declined = _meta_value(meta, "declined", list)
            if recorded is not None:
                phrase = self._recorded_phrase(recorded)
            elif declined and any(isinstance(slot, str) for slot in declined):
                phrase = self._said_phrase(turn, self.phrases.refusals, self.case.lexicon.refusal)
                if phrase is None:
                    phrase = "declined: " + ", ".join(slot for slot in declined if isinstance(slot, str))
        else:
            phrase = self._said_phrase(turn, self.phrases.refusals, self.case.lexicon.refusal)
        if phrase is not None:
            self.refusals += 1
            if phrase == self.previous_refusal:
                self.warn(
                    "REFUSAL_REPEATED",
                    turn.index,
                    "the previous turn's refusal phrase again",
                    {"phrase": phrase},
                )
        self.previous_refusal = phrase

    def disfluency(self, turn: _Patient) -> None:
        """Tokens the runtime inserted, counted one by one. In a transcript from elsewhere, a
        hesitation is one however it is spelled ("uh… um,", "嗯……呃"): tokens with nothing but
        punctuation and spaces between them count once."""
        disfluency = self.case.lexicon.disfluency
        tokens = len(disfluency.findall(turn.folded))
        if tokens > 1 and turn.meta is None:
            tokens = _hesitations_in_one_sentence(turn.folded, list(disfluency.finditer(turn.folded)))
        if tokens > self.case.policy.validator.max_disfluencies_per_turn:
            self.warn(
                "DISFLUENCY_EXCESS", turn.index, f"{tokens} disfluency tokens in one turn", {"count": tokens}
            )

    def narrative_length(self, turn: _Patient) -> None:
        limit = self.case.persona.narrative_max_sentences
        # Spoken sentences are never more than sentences: counted only when they may matter.
        if turn.sentences > limit and (spoken := turn.spoken_sentences(self.case.proper_names)) > limit:
            self.note(
                "NARRATIVE_TOO_LONG",
                turn.index,
                f"{spoken} sentences, over the persona's {limit}",
                {"sentences": spoken},
            )

    def elaboration(self, turn: _Patient) -> None:
        """Counted on eligible turns: after an open or narrative question."""
        recorded = _meta_value(turn.meta, "questionType", str)
        if recorded is not None:
            eligible = recorded in ("open", "narrative")
        else:
            eligible = self.asked is not None and question_type(self.case, self.asked) in ELIGIBLE
        if not eligible:
            return
        self.eligible += 1
        elaborated = _meta_value(turn.meta, "elaborated", bool)
        if elaborated is None:
            elaborated = self._reads_as_elaborated(turn)
        self.elaborated += elaborated

    def _reads_as_elaborated(self, turn: _Patient) -> bool:
        """With no meta: one of the case's stored elaborations (or persona quirks) is said.

        Length is no sign of it: a person answering an open question at length is answering it.
        Micro-elaboration is the runtime adding one of its stored details; a transcript from
        elsewhere is measured on those details only."""
        return _first_phrase(turn.normal, self.phrases.elaborations) is not None
