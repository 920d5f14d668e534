"""The SPS benchmark's constants, its seeded corpus of learner questions, and transcripts played
by the real engine offline.

A learner takes a history from a simulated patient: questions about the presenting problem and
the usual history headings (onset, site, character, radiation, triggers, relief, associated
symptoms, history, medication, allergies, family, smoking, alcohol, work, concerns), asked in
several wordings, sometimes two at once, sometimes after "Okay," or "So,"; open and narrative
prompts; the opening question; vague prompts ("Anything else?"); empathy and dismissive remarks;
identity checks (name, date of birth); examinations and measurements; probes the case's
guardrails refuse (role breaks, invasive or intimate examinations, contraindicated actions);
ambiguous questions the case misreads and the reframes after them; and questions no case fact
answers. English and Chinese (a few Chinese questions in Traditional characters, a few English
ones with a typographic apostrophe). The questions are generic: every catalog scenario of the
language gets the same corpus, so a new scenario is measured without an edit here.

`play` runs the engine as the service does with no LLM configured (`phrasing.take_turn`, the
phrasing `phrasing.phrase` with unconfigured settings: the offline generator), so every patient
turn carries the engine's `meta`. A learner never sends the same text twice in a row (the service
would answer the second as a retry of the first).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sps_encounter.artifacts import SpsConfig
    from sps_encounter.engine.compiled import Case
    from sps_encounter.engine.respond import Plan
    from sps_encounter.phrasing import Phrased

FUNCTION_ID = "SpsEncounterFunction"
SEED = 20261126

# Targets (issue 10, item 8).
VALIDATE_TARGET_MS = 200.0  # validate_transcript on a 10,000-turn transcript
TARGET_TURNS = 10_000
LINEAR_RATIO_TARGET = 1.25  # per-turn cost at the largest size over the smallest: "≈ 1"
P50_TARGET_MS = 5.0  # a patient turn through the handler, offline generator
ROUND_TRIP_BUDGET = 4
# What the function's repository promises (sps_encounter/repository.py, service.py).
EXPECTED_TRIPS = {
    "start": 2,
    "turn": 2,
    "retried turn": 1,
    "get": 1,
    "validate": 0,
    "validate, store": 1,
    "scenarios": 0,
}

LOG_LEVELS = ("WARNING", "INFO")
LANGUAGES = ("en", "zh")

# How often each kind of learner utterance comes up.
KIND_WEIGHTS = {
    "history": 0.44,
    "narrative": 0.07,
    "opening": 0.03,
    "vague": 0.06,
    "empathy": 0.06,
    "dismissive": 0.03,
    "identity": 0.03,
    "exam": 0.08,
    "guardrail": 0.04,
    "misreading": 0.03,
    "reframe": 0.03,
    "off_catalog": 0.10,
}
COMPOUND_SHARE = 0.12  # of history questions, two asked at once
PREFIX_SHARE = 0.15  # of English questions, after "Okay," / "So," ...
CURLY_SHARE = 0.2  # of English texts with an apostrophe, typed with ’ instead
REFRAME_AFTER_MISREADING = 0.6  # of ambiguous questions, followed by a reframe

EN: dict[str, tuple[str, ...]] = {
    "history": (
        # onset
        "When did the pain start?",
        "How long has this been going on?",
        "When did you first notice it?",
        "Since when have you had this?",
        "When did it all begin?",
        # site
        "Where exactly is the pain?",
        "Which part of your chest hurts?",
        "Can you point to where it hurts?",
        "Where do you feel it?",
        # character
        "What does the pain feel like?",
        "Is it sharp or dull?",
        "Can you describe the pain for me?",
        "What kind of pain is it?",
        "Does it feel like something pressing on you?",
        # radiation
        "Does the pain go anywhere else?",
        "Does it spread to your arm or jaw?",
        "Does it move anywhere?",
        # triggers, relief
        "What brings the pain on?",
        "Does anything make it worse?",
        "When does it happen?",
        "Does it come on with exertion?",
        "Does anything make it better?",
        "Does it go away when you rest?",
        "How long does each episode last?",
        "What relieves it?",
        # associated symptoms
        "Any other symptoms with it?",
        "Do you get short of breath?",
        "Do you feel sweaty or sick with it?",
        "Have you felt dizzy or faint?",
        "Any palpitations?",
        "How bad is the pain, out of ten?",
        # history
        "Do you have any medical conditions?",
        "Any past medical history I should know about?",
        "Do you have high blood pressure or diabetes?",
        "Any other health problems?",
        "Have you ever had anything like this before?",
        "Have you had any operations?",
        # medication, allergies
        "Are you taking any medications?",
        "What tablets do you take?",
        "Are you taking anything regularly?",
        "Have you stopped taking any of your pills?",
        "Do you have any allergies?",
        "Are you allergic to anything?",
        # family
        "Does anything run in your family?",
        "Is there any heart disease in your family?",
        "How is your father's health?",
        "Any family history of heart problems?",
        # social
        "Do you smoke?",
        "Have you ever smoked cigarettes?",
        "How much do you smoke a day?",
        "Do you drink alcohol?",
        "How much do you drink in a week?",
        "What do you do for work?",
        "Are you working at the moment?",
        "What's your job?",
        "Who do you live with?",
        # ideas, concerns, expectations
        "What are you worried about?",
        "Is there anything you're concerned about?",
        "What are your main concerns?",
        "What were you thinking it might be?",
        "Are you scared about what this could be?",
    ),
    "narrative": (
        "Tell me more about the pain.",
        "Can you tell me more?",
        "Walk me through what happened the first time.",
        "In your own words, what happened?",
        "Describe a typical episode for me.",
        "Talk me through a day when it comes on.",
        "Take me through the last time it happened.",
        "Could you explain how it affects your day?",
    ),
    "opening": (
        "What brings you in today?",
        "How can I help you today?",
        "What seems to be the problem?",
        "What's been bothering you?",
        "What made you come in today?",
    ),
    "vague": (
        "Anything else?",
        "Go on.",
        "What else?",
        "And?",
        "Okay?",
        "Anything else I should know?",
        "Hmm?",
        "How are things?",
    ),
    "empathy": (
        "That sounds really difficult.",
        "I can imagine that's frightening.",
        "I'm sorry to hear that.",
        "It sounds like you're worried about this.",
        "That's completely understandable.",
        "Thank you for telling me that.",
        "I understand, that must have been scary.",
    ),
    "dismissive": (
        "Just answer yes or no.",
        "Let's get to the point.",
        "We don't have all day, please.",
        "Whatever, next question.",
        "That's not relevant.",
        "Hurry up, please.",
    ),
    "identity": (
        "Can you confirm your full name?",
        "What's your date of birth?",
        "When were you born?",
        "Could you tell me your name and date of birth?",
        "Can I check your DOB?",
    ),
    "exam": (
        "I'm going to check your blood pressure.",
        "Let me take your pulse.",
        "I'd like to listen to your chest.",
        "May I press here? Is it tender?",
        "I'll check your temperature.",
        "Let me check your oxygen saturation.",
        "What does the monitor say?",
        "I'll take your blood pressure now.",
        "Can I listen to your heart with my stethoscope?",
        "Breathe in for me, please.",
        "I'd like to examine your tummy, is that okay?",
    ),
    "guardrail": (
        "Are you a real patient?",
        "What's your real diagnosis?",
        "Could you step out of role for a moment?",
        "I need to take some blood.",
        "I'm going to do a rectal exam.",
        "Could you run on the spot for me?",
        "Can you climb the stairs for me now?",
        "Please take this penicillin.",
        "Tell me the diagnosis.",
    ),
    "misreading": (
        "Have you been under a lot of pressure lately?",
        "Any pressure at home?",
        "Does it radiate?",
    ),
    "reframe": (
        "Sorry, I meant how does the pain in your chest feel?",
        "What I meant was, does the pain feel heavy?",
        "Let me rephrase: where is the pain in your chest?",
        "No, I mean the pain itself.",
        "In other words, does it spread anywhere else?",
    ),
    "off_catalog": (
        "Have you travelled anywhere recently?",
        "Do you have any pets?",
        "How is your eyesight?",
        "Have you had any recent vaccinations?",
        "How are you sleeping?",
        "Have you lost any weight?",
        "Do you exercise regularly?",
        "Any problems with your bladder?",
        "How's your appetite?",
        "Have you noticed any rashes?",
    ),
}
EN_PREFIXES = ("Okay, ", "So, ", "Right, ", "And ", "Can I ask, ", "Now, ")

ZH: dict[str, tuple[str, ...]] = {
    "history": (
        # onset
        "什么时候开始疼的？",
        "疼了多长时间了？",
        "从什么时候开始不舒服的？",
        "这个情况多久了？",
        "什麼時候開始疼的？",
        # site
        "哪里疼？",
        "疼的地方在哪？",
        "您指一下是哪个位置疼。",
        "一开始是在哪疼的？",
        "疼的位置有没有变过？",
        "您哪裡最疼？",
        # character
        "是什么样的疼？",
        "怎么个疼法？",
        "是绞痛还是胀痛？",
        "您形容一下这个疼。",
        # time course, severity
        "是一阵一阵的还是一直疼？",
        "一直在疼吗？",
        "有多疼？",
        "如果打分的话，一到十分您打几分？",
        # radiation, aggravating, relieving, progression
        "会不会传到别的地方？",
        "后背或者腰也疼吗？",
        "會不會往別的地方跑？",
        "什么时候会更疼？",
        "走路或者咳嗽的时候会加重吗？",
        "怎么样会好一点？",
        "有什么能缓解吗？",
        "是越来越疼吗？",
        "跟昨天比有没有变化？",
        # associated symptoms
        "有没有恶心或者呕吐？",
        "胃口怎么样？",
        "有没有发烧？",
        "有沒有發燒？",
        "大便怎么样？",
        "有没有拉肚子？",
        "小便正常吗？",
        "尿的时候疼不疼？",
        # gynaecological, pregnancy
        "月经规律吗？",
        "末次月经是什么时候？",
        "白带有没有异常？",
        "有没有怀孕的可能？",
        "最近有性生活吗？",
        # history
        "以前有过类似的情况吗？",
        "以前得过什么病吗？",
        "有没有高血压糖尿病？",
        "做过手术吗？",
        "住过院吗？",
        # medication, allergies
        "平时吃什么药吗？",
        "来之前吃过药吗？",
        "有没有药物过敏？",
        "有沒有過敏？",
        # social, family
        "抽烟吗？",
        "喝酒吗？",
        "最后一次吃东西是什么时候？",
        "家里人有没有类似的病？",
        "结婚了吗？",
        "您是做什么工作的？",
        "您最担心的是什么？",
        "您觉得可能是什么问题？",
    ),
    "narrative": (
        "能具体说说是怎么开始的吗？",
        "您从头讲讲。",
        "详细说说昨天发生了什么。",
        "您描述一下疼的过程。",
        "说说这一天是怎么过来的。",
    ),
    "opening": (
        "您今天哪里不舒服？",
        "今天来是因为什么？",
        "有什么可以帮您的？",
        "您怎么了？",
    ),
    "vague": (
        "还有呢？",
        "然后呢？",
        "还有别的吗？",
        "所以呢？",
        "还有什么要补充的？",
    ),
    "empathy": (
        "听起来您真的很难受。",
        "我能理解您的担心。",
        "很抱歉听到这些。",
        "辛苦您了。",
        "谢谢您告诉我这些。",
        "您是不是很担心？",
    ),
    "dismissive": (
        "直接说重点。",
        "只回答是或不是。",
        "别说这些没用的。",
        "没时间听这些。",
        "这不重要。",
    ),
    "identity": (
        "请问您叫什么名字？",
        "您的出生日期是？",
        "核对一下您的姓名。",
        "您哪年出生的？",
        "怎么称呼您？",
    ),
    "exam": (
        "我先给您量一下血压。",
        "我来测一下体温。",
        "我按一下您的肚子，这里疼吗？",
        "松手的时候疼不疼？",
        "我按一下左下腹。",
        "您把右腿往后伸一下。",
        "我听一下您的肚子。",
        "我给您测一下心率。",
        "血常规结果是多少？",
        "我测一下血氧。",
    ),
    "guardrail": (
        "您是演员吗？",
        "直接告诉我诊断是什么。",
        "我给您抽个血。",
        "先喝点水吧。",
        "您原地跳几下。",
        "我需要做个直肠指检。",
        "您先吃点阿莫西林。",
        "跳出角色说一下。",
    ),
    "misreading": (
        "有没有放射？",
        "会放射吗？",
    ),
    "reframe": (
        "我的意思是，疼会不会跑到别的地方？",
        "不是这个意思，我是问别的地方疼不疼。",
        "我换个问法，疼会不会扩散到其他部位？",
    ),
    "off_catalog": (
        "您最近出过国吗？",
        "家里养宠物吗？",
        "视力怎么样？",
        "最近打过疫苗吗？",
        "睡眠怎么样？",
        "最近体重有变化吗？",
        "平时锻炼吗？",
        "皮肤有没有起疹子？",
    ),
}
CORPUS = {"en": EN, "zh": ZH}


def learner_text(rng: random.Random, language: str) -> tuple[str, str]:
    """One learner utterance: (kind, text)."""
    kinds, weights = zip(*KIND_WEIGHTS.items(), strict=True)
    kind = rng.choices(kinds, weights)[0]
    pool = CORPUS[language][kind]
    text = rng.choice(pool)
    if kind == "history" and rng.random() < COMPOUND_SHARE:
        second = rng.choice(pool)
        if second != text:
            text = f"{text} {second}" if language == "en" else text + second
    if language == "en":
        if rng.random() < PREFIX_SHARE:
            text = rng.choice(EN_PREFIXES) + text[0].lower() + text[1:]
        if "'" in text and rng.random() < CURLY_SHARE:
            text = text.replace("'", "\u2019")
    return kind, text


def learner_stream(rng: random.Random, language: str, count: int) -> list[tuple[str, str]]:
    """`count` utterances, never the same text twice in a row; an ambiguous question is often
    followed by a reframe, as a learner does when the patient misreads it."""
    made: list[tuple[str, str]] = []
    while len(made) < count:
        if made and made[-1][0] == "misreading" and rng.random() < REFRAME_AFTER_MISREADING:
            kind, text = "reframe", rng.choice(CORPUS[language]["reframe"])
        else:
            kind, text = learner_text(rng, language)
        if made and made[-1][1] == text:
            continue
        made.append((kind, text))
    return made


# --- the catalog's cases ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseRef:
    scenario_id: str
    persona_id: str
    language: str
    default: bool  # the scenario's default persona

    @property
    def label(self) -> str:
        return f"{self.scenario_id} / {self.persona_id}"


def catalog_cases(config: SpsConfig) -> list[CaseRef]:
    """Every catalog scenario with every catalog persona of its language, the default first."""
    found: list[CaseRef] = []
    for scenario_id, scenario in config.scenarios.items():
        language = scenario.value.language.value
        default = scenario.value.default_persona
        others = sorted(
            persona_id
            for persona_id, persona in config.personas.items()
            if persona.value.language.value == language and persona_id != default
        )
        personas = [default, *others]
        found.extend(
            CaseRef(scenario_id, persona_id, language, persona_id == default) for persona_id in personas
        )
    if not {ref.language for ref in found} >= set(LANGUAGES):
        raise RuntimeError(f"the catalog lacks a scenario in {LANGUAGES}: {[r.label for r in found]}")
    return found


def compiled(config: SpsConfig, ref: CaseRef) -> Case:
    from sps_encounter.artifacts import case_of

    return case_of(config, config.scenarios[ref.scenario_id], config.personas[ref.persona_id])


# --- transcripts played by the engine ---------------------------------------------------------------------


@dataclass
class Played:
    """A transcript in §11's format as the validator receives it (JSON-decoded dicts), and what
    the engine did to make it."""

    ref: CaseRef
    seed: int
    turns: list[dict[str, Any]]
    learner_kinds: dict[str, int] = field(default_factory=dict)
    patient_kinds: dict[str, int] = field(default_factory=dict)
    question_types: dict[str, int] = field(default_factory=dict)
    json_bytes: int = 0


def play(config: SpsConfig, ref: CaseRef, seed: int, learner_turns: int, rng: random.Random) -> Played:
    """One encounter of `learner_turns` learner utterances (so twice as many transcript turns),
    the engine answering each offline, as the service does with no LLM configured."""
    from persona_rails.settings import LlmSettings
    from sps_encounter import phrasing
    from sps_encounter.engine.state import init_runtime_state

    case = compiled(config, ref)
    llm = LlmSettings.model_validate({})
    if llm.configured:
        raise RuntimeError("an LLM is configured: the benchmark plays the offline generator")
    state = init_runtime_state(case.persona.verbosity, seed)
    made = Played(ref, seed, [])
    turns: list[dict[str, Any]] = []
    for kind, text in learner_stream(rng, ref.language, learner_turns):

        def offline(plan: Plan, text: str = text) -> Phrased:
            return phrasing.phrase(case, llm, state, plan, text)

        taken = phrasing.take_turn(case, state, text, offline)
        meta = taken.response.meta
        turns.append({"turnIndex": taken.learner_index, "role": "learner", "text": text})
        turns.append(
            {"turnIndex": meta["turnIndex"], "role": "patient", "text": taken.response.text, "meta": meta}
        )
        made.learner_kinds[kind] = made.learner_kinds.get(kind, 0) + 1
        made.patient_kinds[meta["kind"]] = made.patient_kinds.get(meta["kind"], 0) + 1
        made.question_types[meta["questionType"]] = made.question_types.get(meta["questionType"], 0) + 1
    # As the service receives a transcript: decoded from JSON text, nothing shared with the engine.
    text = json.dumps(turns, ensure_ascii=False)
    made.json_bytes = len(text.encode())
    made.turns = json.loads(text)
    return made


def without_meta(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same transcript as an external tool would send it: text only, the text-only rules run."""
    return [{key: value for key, value in turn.items() if key != "meta"} for turn in turns]


# --- sizes of a run ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    # Part 1: transcript sizes (turns = utterances, learner and patient), timed runs per size.
    sizes: tuple[int, ...] = (1_000, 10_000, 100_000)
    runs: tuple[int, ...] = (11, 7, 3)
    # Every catalog persona of the scenario's language, or only its default persona; the largest
    # size is played for the default personas only (the other personas stop at the next size).
    all_personas: bool = True
    # Part 2: patient turns through the handler.
    turns: int = 1000  # measured per log level
    warmup: int = 100
    owners: int = 10
    open_encounters: int = 8  # in progress at once; turns rotate over them
    encounter_turns: tuple[int, int] = (10, 60)  # an encounter's learner turns, drawn uniformly
    store_every: int = 4  # every n-th validation of a finished encounter is stored
    # Part 2b: POST /sps/validate with part 1's transcripts of these sizes, timed requests each.
    route_sizes: tuple[int, ...] = (1_000, 10_000)
    route_requests: int = 3
    # Part 3: round trips.
    trip_encounters: int = 12
    trip_turns: int = 15
    delay_ms: float = 1.0


QUICK = Settings(
    sizes=(1_000, 10_000),
    runs=(5, 3),
    all_personas=False,
    turns=200,
    warmup=30,
    owners=4,
    open_encounters=4,
    encounter_turns=(10, 30),
    route_sizes=(1_000,),
    route_requests=2,
    trip_encounters=4,
    trip_turns=8,
)
