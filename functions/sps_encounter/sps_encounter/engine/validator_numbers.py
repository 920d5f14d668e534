"""NUMERIC_LEAKAGE: the patient saying a measured number (a vital sign, a value with its unit, one of
today's findings) when nothing was measured, and what counts as the learner measuring."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from enum import Enum

from sps_encounter.engine.compiled import Case
from sps_encounter.engine.text import with_arabic_numerals, with_digits
from sps_encounter.engine.text_rules import number_end, text_rules
from sps_encounter.engine.validator_state import _RunState
from sps_encounter.engine.validator_turns import _Patient, _sentence_around

_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?")
_DIGIT = re.compile(r"\d")
_DECIMAL = re.compile(r"(?<![\d.])\d+\.\d+(?!\d|\.\d)")
_PERCENT = re.compile(r"(?:%|percent)$")
# A number said as a percentage in Chinese, where the word comes first: 百分之二十.
_PERCENT_BEFORE = re.compile(r"百分之\s*$")
_PERCENT_AFTER = re.compile(r"\s?(?:%|percent\b|per\s?cent\b)")
_NUMBER_WORD = re.compile(r"\b(?:hundred|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)")
_PAIR_REST = re.compile(r"\s*(?:/|\bover\b)\s*\d+")
_NO_READING_AFTER = re.compile(r"\s*(?:度|次)?(?:以上|以下|多|左右的话|的话)")


class _NumberRules(_RunState):
    # Empty: every family shares `_RunState`'s slots, and `_Run` gets no instance dict.
    __slots__ = ()

    def _asked(self) -> Asked | None:
        return None if self.asked is None else measurement_asked(self.case, self.asked)

    def numeric_leakage(self, turn: _Patient) -> None:
        # English numbers in words stay words here, but for today's whole reading or a finding to
        # the tenth: patients say their own usual weights and remembered readings in words, and the
        # rules that tell those from today's findings were measured on digits (docs/judges.md, the
        # blind sets g, j and k).
        normal = with_arabic_numerals(turn.normal) if turn.chinese else turn.normal
        spelled: list[str] = []
        if not turn.chinese:
            spelled = [*self._todays_readings_in_words(normal), *self._todays_decimals_in_words(normal)]
        if not _DIGIT.search(normal) and not spelled:
            return
        # After a measurement the patient may read its result out, unless they wave the measurement
        # away and say the number themselves ("不用量了，三十八度一"). Asked for a reading they know
        # ("Have you had your blood pressure checked?"), they may tell any, but not today's.
        asked = self._asked()
        if asked is not None and not self.rules.declines_measurement.search(normal):
            if asked is Asked.MEASURED:
                return
            leaked = self._said_as_todays(normal)
        else:
            leaked = self._leaked_numbers(normal)
        leaked = list(dict.fromkeys([*leaked, *spelled]))
        if leaked:
            read_out = self._read_out()
            leaked = [value for value in leaked if not _echoed(value, read_out)]
        if leaked:
            self.error(
                "NUMERIC_LEAKAGE",
                turn.index,
                "a measured value was said without the learner measuring anything",
                {"values": leaked},
            )

    def _leaked_numbers(self, normal: str) -> list[str]:
        """What reads as a measurement: a vital sign or lab value with its number ("blood pressure
        160/95", "心率88", "152 over 94"); a number with a unit of measurement, unless it tells a
        change ("lost 5 kilos", "90 percent better"); a bare number equal to an objective value,
        unless a unit of time or count follows ("20个小时", "98岁") or it is someone's age."""
        rules = self.rules
        leaked: list[tuple[int, int]] = []
        told: list[tuple[int, int]] = []
        for match in rules.vital_reading.finditer(normal):
            told.append(match.span())
            if rules.count_unit.match(normal, number_end(match)) or self._not_now(normal, match):
                continue
            leaked.append(match.span())
        for match in self.case.lexicon.measured_number.finditer(normal):
            told.append(match.span())
            start, end = match.span()
            if (
                self._share(match)
                or rules.history_before.search(normal, max(0, start - 40), start)
                or rules.history_after.match(normal, end)
                or rules.load_before.search(normal, max(0, start - 40), start)
                or self._not_now(normal, match)
            ):
                continue
            leaked.append(match.span())
        inside_told = _Spans(told)
        for match in _NUMBER.finditer(normal):
            if match.group() not in self.case.objective_numbers:
                continue
            start, end = match.span()
            if inside_told.holds(start):
                continue
            if (
                rules.count_unit.match(normal, end)
                or rules.age_before.search(normal, max(0, start - 60), start)
                or rules.clock_before.search(normal, max(0, start - 6), start)
                or self._change_in_percent(normal, start)
                or self._percent_of_no_reading(normal, match)
            ):
                continue
            leaked.append(match.span())
        return list(dict.fromkeys(normal[a:b].strip() for a, b in _one_per_reading(leaked)))

    def _todays_readings_in_words(self, normal: str) -> list[str]:
        """Today's whole reading said in words ("she said it was one-fifty-two over ninety-four"
        in a case whose blood pressure is 152/94): a remembered pair is never exactly today's, so
        only today's pairs are read in words. A single vital sign in words is read too when it is
        that sign's value today, nobody asked for a reading the patient knows, and its sentence
        places it nowhere else ("Pulse is about eighty-eight" in a case whose pulse is 88; not "my
        pulse is usually about eighty-eight", nor "heart rate's about ninety-four" when 94 is the
        diastolic); other numbers in words stay words."""
        if not _NUMBER_WORD.search(normal):
            return []
        found = []
        digits = with_digits(normal)
        for match in self.rules.vital_reading.finditer(digits):
            numbers = _NUMBER.findall(match.group())
            if len(numbers) >= 2:
                if "/".join(numbers[:2]) in self.case.objective_pairs:
                    found.append(match.group().strip())
            elif (
                numbers
                and numbers[0] in self._todays_values_of(match.group())
                and not self.rules.count_unit.match(digits, number_end(match))
                and self._asked() is None
                and not self._elsewhere(digits, match.start())
            ):
                found.append(match.group().strip())
        return found

    def _todays_values_of(self, reading: str) -> set[str]:
        """Today's numbers of the vital signs a reading names ("pulse is about 88": the pulse's)."""
        case = self.case
        return {
            number
            for slot, pattern in case.objective_match
            if pattern.search(reading)
            for number in _NUMBER.findall(case.fact_values.get(slot, ""))
        }

    def _todays_decimals_in_words(self, normal: str) -> list[str]:
        """One of today's findings with a decimal point, said in words ("I'm thirty-six point six,
        bang on normal" in a case whose temperature is 36.6): a remembered temperature or
        haemoglobin is not today's to the tenth, as a remembered pair is not today's pair."""
        if " point " not in normal:
            return []
        digits = with_digits(normal)
        return [
            match.group()
            for match in _DECIMAL.finditer(digits)
            # "thirty-six point six minutes" counts time, not a temperature.
            if match.group() in self.case.objective_numbers
            and not self.rules.count_unit.match(digits, match.end())
        ]

    def _said_as_todays(self, normal: str) -> list[str]:
        """Vital signs told as today's ("118 over 74 today"), in a sentence that places them
        nowhere else ("at the pharmacy today", "my watch says… now") and gives them to no one
        else: the patient does not know today's readings before the learner takes them. Unlike
        `_not_now`, a value equal to today's finding is not a leak by itself here: the learner
        asked for a reading the patient knows, and the one they give may be today's ("Have you had
        it checked?" "So that's 152 over 94, is it?", tests/unit/sps_encounter/test_real_speech.py)."""
        rules = self.rules
        leaked: list[str] = []
        for match in rules.vital_reading.finditer(normal):
            start = match.start()
            sentence_start, sentence_end = _sentence_around(normal, start)
            if (
                rules.said_now.search(normal, sentence_start, sentence_end) is not None
                and rules.remembered.search(normal, sentence_start, sentence_end) is None
                and not rules.count_unit.match(normal, number_end(match))
                and not self._not_own(normal, start)
            ):
                leaked.append(match.group().strip())
        return leaked

    def _read_out(self) -> set[str]:
        """The numbers of the readings read out before: in the learner's turn before, any reading
        ("三十八度一？发烧了啊？" after "体温好了……三十八度一"); in any earlier learner turn, a vital sign
        with its name (a nurse's "Blood pressure's one eighteen over seventy-four", twenty turns
        before "One eighteen over seventy-four, she said?"), not a weight or a count read out in
        passing. A patient who repeats one heard it and did not make it up. A number said in
        another sense is no reading: "you live at 97 Station Road" reads no 97 out."""
        history = self.learner_history
        for folded in history[self.read_out_upto : len(history) - 1]:
            self.read_out_before.update(self._numbers_read(with_digits(folded), vital_signs_only=True))
        self.read_out_upto = max(self.read_out_upto, len(history) - 1)
        if self.asked is None:
            return self.read_out_before
        return self.read_out_before | self._numbers_read(with_digits(self.asked), vital_signs_only=False)

    def _numbers_read(self, said: str, *, vital_signs_only: bool) -> set[str]:
        readings = [*self.rules.vital_reading.finditer(said)]
        if not vital_signs_only:
            readings.extend(self.case.lexicon.measured_number.finditer(said))
        numbers: set[str] = set()
        for reading in readings:
            # "Blood pressure's 118 over 74" reads as the sign and its first number: the pair's
            # second half is read out too.
            pair = _PAIR_REST.match(said, reading.end())
            numbers.update(_NUMBER.findall(reading.group() + (pair.group() if pair else "")))
        return numbers

    def _share(self, match: re.Match[str]) -> bool:
        """A percentage that is none of today's values tells a share ("they take the edge off,
        maybe 50 percent", "a 10% chance"), not a saturation: those are read by `vital_reading`
        with their word ("sats 94")."""
        return _PERCENT.search(match.group()) is not None and not self._todays(match.group())

    def _change_in_percent(self, normal: str, start: int) -> bool:
        """A percentage in Chinese that tells a change ("能好个百分之二十", 减轻了百分之三十), as
        "90 percent better" does in English: the number is one of today's values only by chance."""
        percent = _PERCENT_BEFORE.search(normal, max(0, start - 6), start)
        if percent is None:
            return False
        before = percent.start()
        return self.rules.history_before.search(normal, max(0, before - 40), before) is not None

    def _percent_of_no_reading(self, normal: str, match: re.Match[str]) -> bool:
        """One of today's numbers said as a percentage ("好多了，大概百分之二十", "20 percent")
        when no reading today is that percentage: the case's respiratory rate of 20 is no share."""
        start, end = match.span()
        if match.group() in self.case.objective_percents:
            return False
        before = _PERCENT_BEFORE.search(normal, max(0, start - 6), start)
        return before is not None or _PERCENT_AFTER.match(normal, end) is not None

    def _todays(self, value: str) -> bool:
        """Whether a value said is one of today's findings: a pair ("138 over 88") only as the
        whole reading, a single number as any of them."""
        numbers = _NUMBER.findall(value)
        if len(numbers) == 2 and self.case.objective_pairs:
            return "/".join(numbers) in self.case.objective_pairs
        return any(number in self.case.objective_numbers for number in numbers)

    def _not_now(self, normal: str, match: re.Match[str]) -> bool:
        """A value that is no reading taken now: its sentence places it in the past or elsewhere
        ("at the pharmacy in August", "the machine said", "I was 95 kilos at Christmas",
        "usually"), imagines it ("if it went up to 180…"), or gives it to someone else before it
        ("my husband's is high too, 150 over 95", "我爸血压高，六十多了"). Never one of today's
        findings: "my pulse was 88" is the case's 88 told before anyone measured it."""
        if self._todays(match.group()):
            return False
        return self._elsewhere(normal, match.start())

    def _elsewhere(self, normal: str, start: int) -> bool:
        """Whether the value at `start` is no reading of the patient's now: its sentence places it
        in the past or elsewhere (anywhere in the sentence), or the words before it imagine it or
        give it to someone else."""
        sentence_start, sentence_end = _sentence_around(normal, start)
        remembered = self.rules.remembered.search(normal, sentence_start, sentence_end) is not None
        return remembered or self._not_own(normal, start)


class _Spans:
    """Whether a position lies in any of some spans, in logarithmic time: a turn may hold
    thousands of readings, and testing every number against every reading is quadratic."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for start, end in sorted(spans):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self._starts = [start for start, _ in merged]
        self._ends = [end for _, end in merged]

    def holds(self, position: int) -> bool:
        index = bisect_right(self._starts, position) - 1
        return index >= 0 and position < self._ends[index]


def _one_per_reading(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """One value per reading, in text order: "blood pressure 152/94" and "152/94 mmHg" overlap, so
    the longer stands for both. The spans kept never overlap, so each new one is checked against
    its two neighbours only."""
    starts: list[int] = []
    kept: list[tuple[int, int]] = []
    for start, end in sorted(set(spans), key=lambda span: span[0] - span[1]):
        index = bisect_left(starts, start)
        if index > 0 and kept[index - 1][1] > start:
            continue
        if index < len(kept) and kept[index][0] < end:
            continue
        starts.insert(index, start)
        kept.insert(index, (start, end))
    return kept


def _echoed(value: str, read_out: set[str]) -> bool:
    numbers = set(_NUMBER.findall(value))
    return bool(numbers) and numbers <= read_out


class Asked(Enum):
    """How a learner turn asks for a number the patient may then say."""

    # Measures or examines ("Can we check your blood pressure?") or reads a result out ("152 over
    # 94, pulse 88."): the patient may say today's values.
    MEASURED = "measured"
    # Asks for a reading the patient knows ("What's your usual blood pressure?", "What did your
    # home monitor say?"): the patient may say theirs, not today's.
    KNOWN_READING = "known_reading"


def measurement_asked(case: Case, folded: str) -> Asked | None:
    """How a learner turn asks for a number, if it does."""
    rules = text_rules(case.language)
    if case.lexicon.measurement.search(folded):
        return Asked.MEASURED
    # A result read out in words ("体温三十八度一", "one fifty-two over ninety-four") is read in
    # digits; a threshold or a supposition ("三十八度以上才算发烧", "心率一百多的话") reads nothing out.
    digits = with_digits(folded)
    readings = rules.vital_reading.finditer(digits)
    if any(not _NO_READING_AFTER.match(digits, number_end(match)) for match in readings):
        return Asked.MEASURED
    if rules.reading_request.search(folded):
        return Asked.KNOWN_READING
    return None


def asks_for_measurement(case: Case, folded: str) -> bool:
    """A learner turn after which the patient may say a number: it measures, reads a result out,
    or asks for a reading the patient knows."""
    return measurement_asked(case, folded) is not None
