"""The rules on what the patient tells: FACT_CONTRADICTION, DOB_CHALLENGE_REPEATED,
AGENDA_REVEALED_TWICE, DIAGNOSIS_OR_COACHING and CLARIFICATION_REPEATED, each against the case
and what earlier turns told."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from itertools import islice

from sps_encounter.engine.case import Language
from sps_encounter.engine.lint import _said as said_lines
from sps_encounter.engine.validator_state import FOLLOW_UP_WORDS, _RunState
from sps_encounter.engine.validator_turns import (
    _EDGE,
    _first_phrase,
    _length,
    _meta_value,
    _next_sentence_end,
    _normal,
    _Patient,
    _recorded,
    _sentence_around,
)

_ADDRESSED = re.compile(r"you|你|您")
# How many matches of one conflict a turn is read for: a patient names a contradiction a few
# times at most ("not stabbing… definitely not stabbing").
CONFLICT_MATCHES_READ = 20
_CLAUSE_COMMA = re.compile(r"[,，;；]")
# Where the patient's own voice takes over within a sentence: "He asked nothing; …", "My son asked
# how I was and I'm sure…", "she says it's X, so you can probably skip…". Someone else's words
# before it excuse nothing after it.
_OWN_VOICE_AGAIN = re.compile(
    r";|；|\b(?:and|but|so) i(?:'m| am| think| reckon| know| feel| guess|'ve| have)\b"
    r"|\b(?:and|but|so) (?=you (?:can|could|should|might|may|needn'?t|don'?t need|won'?t need)\b)"
)
_TAG_QUESTION = re.compile(
    r"[,，]\s*(?:isn'?t it|is it|aren'?t they|right|yeah|don'?t i|haven'?t i|isn'?t that|wouldn'?t it|eh"
    r"|don'?t they|doesn'?t it|won'?t they|won'?t you|won'?t it"
    r"|surely|是吧|对吧|是不是|对不对|没错吧)\s*$"
)


class _FactRules(_RunState):
    # Empty: every family shares `_RunState`'s slots, and `_Run` gets no instance dict.
    __slots__ = ()

    def agenda(self, turn: _Patient) -> None:
        told = _meta_value(turn.meta, "agendaRevealed", list)
        if told is not None:
            told = [item for item in told if isinstance(item, str)]
        else:
            told = list(
                dict.fromkeys(
                    item for item, variant in self.phrases.agenda_variants if variant in turn.normal
                )
            )
        for item in told:
            if item in self.revealed:
                self.error(
                    "AGENDA_REVEALED_TWICE",
                    turn.index,
                    f"hidden agenda item {item} was revealed before",
                    {"id": item},
                )
            self.revealed.add(item)
        self.agenda_reveals += len(told)

    def clarification(self, turn: _Patient) -> None:
        phrase = _meta_value(turn.meta, "clarification", str)
        if phrase is not None:
            phrase = self._recorded_phrase(phrase)
        elif not _recorded(turn.meta, "clarification"):
            phrase = self._said_phrase(turn, self.phrases.clarifications, self.case.lexicon.clarification)
        if phrase is None:
            return
        self.clarifications += 1
        if phrase in self.recent_clarifications:
            self.clarification_repeats += 1
            self.error(
                "CLARIFICATION_REPEATED",
                turn.index,
                "this clarification was used in the last 3 clarifications",
                {"phrase": phrase},
            )
        self.recent_clarifications.append(phrase)
        del self.recent_clarifications[:-3]

    def diagnosis(self, turn: _Patient) -> None:
        for _, first in self.case.diagnosis.matches(turn.normal):
            for match in self._every_match(turn.normal, first):
                if not self._excused(turn.normal, match):
                    self.error(
                        "DIAGNOSIS_OR_COACHING",
                        turn.index,
                        "the patient diagnosed or coached",
                        {"match": match.group(0)},
                    )
                    return
        # Telling the learner what to do stays coaching when put as a question ("Shouldn't you be
        # checking my neck?"), unless it repeats someone else's words.
        # Every form speaks to the learner: a turn without "you" / 你 / 您 skips the search.
        if not _ADDRESSED.search(turn.normal):
            return
        coaching = self.rules.coaching_question.search(turn.normal)
        if (
            coaching is not None
            and not self._in_said_line(turn.normal, coaching)
            and not self.rules.reported.search(
                turn.normal, _clause_start(turn.normal, coaching.start()), coaching.start()
            )
        ):
            self.error(
                "DIAGNOSIS_OR_COACHING",
                turn.index,
                "the patient diagnosed or coached",
                {"match": coaching.group(0)},
            )

    def _excused(self, normal: str, match: re.Match[str]) -> bool:
        """A diagnosis or coaching match that is not the patient's own: inside one of the case's
        stored lines; in a question the patient asks the learner ("can you prescribe…?"); after
        someone else's words ("my GP said…") or the patient's fear ("I'm scared I'm having…"), unless
        the patient then takes it as theirs ("…so I think that's what these are")."""
        start = match.start()
        # The learner's own word said back ("…could be angina." "Angina. Is that a heart
        # thing?"): the patient repeats a diagnosis they were just offered, they do not make it.
        if self.asked is not None and match.group(0) in _normal(self.asked):
            return True
        if self._in_said_line(normal, match):
            return True
        sentence_start, sentence_end = _sentence_around(normal, start)
        rules = self.rules
        lead = normal[_clause_start(normal, start) : start]
        if rules.reported.search(lead) or rules.fear.search(lead):
            # Taken as the patient's own in its sentence or the next ("I read online it's rebound
            # headaches. That's what it is, isn't it?").
            return not rules.adopted.search(normal, match.end(), _next_sentence_end(normal, sentence_end))
        closing = normal[sentence_end : sentence_end + 3]
        # A question the patient asks ("Is it angina?", "会不会是阑尾炎？", "can you prescribe…?")
        # is a worry or a request, not the patient diagnosing or coaching; a statement with a tag
        # ("It's probably angina, isn't it?") still states it.
        sentence = normal[sentence_start:sentence_end].rstrip()
        asked = "?" in closing or "？" in closing or sentence.endswith(("吗", "呢"))
        return asked and not _TAG_QUESTION.search(sentence)

    def _in_said_line(self, normal: str, match: re.Match[str]) -> bool:
        """Whether the match lies inside one of the case's stored lines, said as written."""
        start, end = match.span()
        for line in self._said():
            at = normal.find(line)
            while at != -1:
                if at <= start and end <= at + len(line):
                    return True
                at = normal.find(line, at + 1)
        return False

    def _said(self) -> tuple[str, ...]:
        if self.said is None:
            fold = self.case.lexicon.fold
            lines = (_normal(fold(line)).rstrip(_EDGE) for _, line, _ in said_lines(self.case))
            self.said = tuple(dict.fromkeys(line for line in lines if line))
        return self.said

    def dob_challenge(self, turn: _Patient) -> None:
        phrase = _first_phrase(turn.normal, self.phrases.dob_lines)
        challenge = _meta_value(turn.meta, "dobChallenge", bool)
        if challenge is None:
            challenge = phrase is not None
        if challenge:
            self.dob_challenges += 1
            if self.dob_challenges > 1:
                self.error(
                    "DOB_CHALLENGE_REPEATED",
                    turn.index,
                    "the DOB challenge was used more than once",
                    {"phrase": phrase or turn.normal.rstrip(_EDGE)},
                )

    def contradictions(self, turn: _Patient) -> None:
        for slot, value in (_meta_value(turn.meta, "slots", Mapping) or {}).items():
            known = self.stated.get(slot, self.case.fact_values.get(slot))
            if known is not None and known != value:
                self.error(
                    "FACT_CONTRADICTION",
                    turn.index,
                    f"slot {slot} was stated with a value other than the case's or an earlier turn's",
                    {"slot": slot, "before": known, "now": value},
                )
            self.stated.setdefault(slot, value)
        reported: set[str] = set()
        asked: set[str] | None = None
        for slot, first in self.case.conflicts.matches(turn.folded):
            # One issue per slot and turn, however often the turn repeats the contradiction.
            if slot in reported:
                continue
            if asked is None:
                asked = self._topic()
            # "No, it's not that bad" answers the question asked: it contradicts the severity only
            # when the learner asked about the severity (or about no fact at all). A short
            # follow-up ("Just that?") is still on the facts asked before it.
            if asked and slot not in asked and not self._volunteered(turn.folded, first.start()):
                continue
            # Every match, not only the first: "a checklist had throbbing, stabbing… and it's
            # definitely not stabbing" names the conflict twice, and neither time as the patient's.
            text = turn.folded
            # At most CONFLICT_MATCHES_READ of them: each is read against its sentence, and a turn
            # that repeats one conflict thousands of times would be read in quadratic time.
            own = (
                found
                for found in islice(self._every_match(text, first), CONFLICT_MATCHES_READ)
                if self._own_claim(text, found) and not self._another_episode(slot, text, found.start())
            )
            match = next(own, None)
            if match is None:
                continue
            reported.add(slot)
            self.error(
                "FACT_CONTRADICTION",
                turn.index,
                f"this contradicts the case's {slot}",
                {"slot": slot, "match": match.group(0)},
            )

    def _volunteered(self, text: str, start: int) -> bool:
        """Whether the sentence brings the fact up of the patient's own accord before `start`
        ("Oh, and by the way, …", 对了，…)."""
        sentence_start, _ = _sentence_around(text, start)
        return self.rules.volunteered.search(text, sentence_start, start) is not None

    def _every_match(self, text: str, first: re.Match[str]) -> Iterable[re.Match[str]]:
        """`first` and the same pattern's later matches in `text`. A pattern a request brought is
        matched only under the request's budget (persona_rails.user_patterns), which covers one
        search: for it, the first match alone."""
        if self.case.untrusted:
            return (first,)
        return first.re.finditer(text, first.start())

    def _own_claim(self, text: str, match: re.Match[str]) -> bool:
        """Whether a conflict's match states the patient's own case: not imagined ("If I'm off for
        six weeks…"), not someone else's ("my sister gets the stabbing kind"), not denied ("It's
        not hopeless or anything")."""
        return not self._not_own(text, match.start()) and not self._denied(text, match.start())

    def _another_episode(self, slot: str, text: str, start: int) -> bool:
        """Whether the sentence, before `start`, sets a conflict of this illness's facts in a time long
        past (怀老大那时候一天吐了五六回): another episode, unless it turns back to now first ("years
        ago, but this one started last week") or after ("…, same as now", 跟这次一模一样)."""
        if slot not in self.case.present_illness:
            return False
        rules = self.rules
        sentence_start, sentence_end = _sentence_around(text, start)
        last = None
        for found in rules.long_ago.finditer(text, sentence_start, start):
            last = found
        if last is None or rules.back_to_now.search(text, last.end(), start) is not None:
            return False
        clause_break = _CLAUSE_COMMA.search(text, start, sentence_end)
        clause_end = clause_break.start() if clause_break else sentence_end
        return rules.same_as_now.search(text, start, sentence_end) is None and (
            rules.now_after.search(text, start, clause_end) is None
        )

    def _denied(self, text: str, start: int) -> bool:
        """A denial just before a conflict's match, unless the sentence asks it back: 昨天不是吐了好几次吗
        is a reminder, not a denial."""
        if not self.rules.denied_before.search(text, max(0, start - 32), start):
            return False
        _, sentence_end = _sentence_around(text, start)
        return not text[start:sentence_end].rstrip(" .!?。！？…~").endswith(("吗", "嘛"))

    def _topic(self) -> set[str]:
        """The facts the learner's turn before asked about or, when it was a short follow-up that
        asked about none, the facts of the turn it followed (at most FOLLOW_UP_DEPTH back)."""
        if self.asked is None:
            return set()
        chinese = self.case.language is Language.ZH
        for asked in reversed(self.learner_turns):
            slots = self._asked_slots(asked)
            follow_up = self.case.lexicon.vague.search(asked) or _length(asked, chinese) <= FOLLOW_UP_WORDS
            if slots or not follow_up:
                return slots
        return set()

    def _asked_slots(self, asked: str | None) -> set[str]:
        """The case facts a learner turn asked about (history or examination)."""
        if asked is None:
            return set()
        case = self.case
        return {slot for slot, pattern in (*case.slot_match, *case.objective_match) if pattern.search(asked)}


def _clause_start(normal: str, at: int) -> int:
    """Where the words leading to `at` begin: its sentence, after the last place in it where the
    patient speaks in their own voice again."""
    start, end = _sentence_around(normal, at)
    # Searched to the sentence's end: "so " is the patient's own voice only when "you can…" follows.
    for found in _OWN_VOICE_AGAIN.finditer(normal, start, end):
        if found.end() > at:
            break
        start = found.end()
    return start
