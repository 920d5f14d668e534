"""The chair-interrupt benchmark's seeded corpus: 300-character chunks of debate speech, English or
Chinese, some with one trigger sentence (docs/benchmarks.md, "Chair interrupt"). The trigger-free
sentences are full of near misses, as debate text is, so the quick check's patterns start many
partial matches; `check_corpus` proves every chunk's label with the function's own quick check."""

from __future__ import annotations

import random
from dataclasses import dataclass

SEED = 20261125
TEXT_CHARS = 300
TRIGGER_SHARE = 0.2  # of chunks, carrying one trigger sentence
EXCLAIM_SHARE = 0.3  # of trigger sentences, ending with an exclamation mark
LANGUAGES = ("en", "zh")

REASONS = (
    "straw_man_detected",
    "factual_correction",
    "direct_challenge",
    "pivotal_point",
    "clarification_needed",
    "strong_agreement",
)
# A trigger chunk's reason, drawn with these weights (the spec's own patterns cover the first four).
REASON_WEIGHTS = (0.25, 0.2, 0.2, 0.15, 0.1, 0.1)

# The frameworks catalogue's keys, and how a speaker names each: (school, adherents) in English,
# then in Chinese.
SCHOOLS = {
    "utilitarianism": ("utilitarianism", "utilitarians", "功利主义", "功利主义者"),
    "deontology": ("deontology", "deontologists", "义务论", "义务论者"),
    "virtue_ethics": ("virtue ethics", "virtue ethicists", "德性伦理", "德性伦理学者"),
    "contractualism": ("contractualism", "contractualists", "契约主义", "契约主义者"),
    "pragmatism": ("pragmatism", "pragmatists", "实用主义", "实用主义者"),
    "care_ethics": ("care ethics", "care ethicists", "关怀伦理", "关怀伦理学者"),
    "existentialism": ("existentialism", "existentialists", "存在主义", "存在主义者"),
    "libertarianism": ("libertarianism", "libertarians", "自由意志主义", "自由意志主义者"),
}
FRAMEWORKS = tuple(SCHOOLS)
# The schools the factual-correction patterns name ("utilitarianism ignores …", "义务论忽视 …").
FACTUAL_SCHOOLS = FRAMEWORKS[:6]

EN_TOPICS = (
    "AI systems deceiving users for their own good",
    "mandatory vaccination",
    "lying to protect a friend",
    "eating meat",
    "a universal basic income",
    "autonomous weapons",
    "a market in kidneys",
    "privacy against public safety",
)
ZH_TOPICS = (
    "人工智能为了用户好而欺骗用户",
    "强制接种疫苗",
    "为保护朋友而说谎",
    "吃肉",
    "全民基本收入",
    "自主武器",
    "器官买卖",
    "隐私与公共安全",
)
EN_NAMES = ("Anna", "Tomas", "Lena", "Marcus", "Priya", "Jonah")
ZH_NAMES = ("小林", "王老师", "李医生", "阿明", "陈女士", "张先生")

# Slots: {school}, {School}, {adherents}, {Adherents}, {topic}, {num}, {name}.
EN_PLAIN = (
    "I think {school} gets something right about {topic}, but it has to say more about who bears the cost.",
    "Consider a doctor who could save {num} patients by sacrificing one; the numbers alone do not settle "
    "what we owe that one.",
    "From the standpoint of {school}, the question is not whether the outcome is good but whether it could "
    "be justified to each person affected.",
    "They want a rule that holds in every case, and I understand the appeal of that.",
    "The real difficulty with {topic} is that the benefits are spread thin while the harms fall on a few.",
    "Clearly, this needs more care than a slogan can give it.",
    "{Adherents} care about outcomes, yes, but they also care about how those outcomes are distributed.",
    "Let me grant the point about consent and ask what follows from it for {topic}.",
    "A person of practical wisdom would look at the particulars before reaching for a principle.",
    "If we accept that premise, then the policy on {topic} looks very different in practice.",
    "My colleague raised an important concern about trust, and I want to take it seriously.",
    "The evidence from the last {num} years suggests that people adapt faster than we expect.",
    "This is where the comparison with medicine becomes useful, I think.",
    "What matters here is whether anyone could reasonably reject the principle behind {topic}.",
    "We should be careful not to confuse what is legal with what is right.",
    "I am not sure the analogy holds, because the stakes in {topic} are so much higher.",
    "Nobody in this room denies that suffering matters; the disagreement is about what we may do to "
    "prevent it.",
    "The core of my view is simple: people are owed an explanation they could accept.",
    "Everyone agrees that the status quo has costs, so the burden is on us to compare them fairly.",
    "It is not obvious that {school} and common sense come apart here.",
    "Let us return to the case of {name}, who has to decide before she knows the outcome.",
    "I would put it differently: the duty comes first, and the calculation comes after.",
    "That is a fair challenge, and here is how I would answer it.",
    "What a policy on {topic} should do is leave room for judgement in hard cases.",
    "There are {num} ways this could go wrong, and only some of them are foreseeable.",
    "Others only ask for a fair hearing, and that seems reasonable to me.",
    "Do you mean that the rule admits no exceptions at all?",
    "I agree with part of that, but not with the conclusion you draw about {topic}.",
    "The right answer depends on facts about {topic} that none of us has in front of us.",
    "Surely we can say that some harms are worse than others without a complete theory.",
    "{School} asks us to count everyone equally, and that is a demanding ideal.",
    "People simply differ in how much risk they will accept, and a fair policy has to allow for that.",
)
ZH_PLAIN = (
    "我认为{school}在{topic}这个问题上有一定道理，但它必须回答代价由谁来承担。",
    "设想一位医生可以牺牲一个病人来拯救{num}个病人，单靠数字并不能说明我们对那一个人负有什么责任。",
    "从{school}的角度看，关键不在于结果好不好，而在于能否向每一个受影响的人作出交代。",
    "他们希望有一条在所有情况下都成立的规则，我理解这种想法的吸引力。",
    "{topic}的难点在于，好处分散在很多人身上，而伤害集中在少数人身上。",
    "这个问题需要比口号更细致的讨论。",
    "{adherents}当然关心结果，但他们同样关心结果如何分配。",
    "我先承认对方关于知情同意的观点，再来看它对{topic}意味着什么。",
    "一个有实践智慧的人会先看具体情况，而不是急着套用原则。",
    "如果我们接受这个前提，那么关于{topic}的政策在实践中就会很不一样。",
    "对方提出了关于信任的重要担忧，我想认真回应一下。",
    "过去{num}年的经验表明，人们适应变化的速度比我们预想的要快。",
    "在这里，与医学的类比很有帮助。",
    "重要的是，是否有人能够合理地拒绝{topic}背后的原则。",
    "我们要小心，不要把合法的事情和正确的事情混为一谈。",
    "我不确定这个类比是否成立，因为{topic}涉及的利害关系要大得多。",
    "在座没有人否认痛苦是重要的，分歧在于我们可以为了防止痛苦做些什么。",
    "我的观点其实很简单：每个人都应当得到一个他能够接受的解释。",
    "大家都承认现状是有代价的，所以我们有责任公平地比较各种代价。",
    "在这一点上，{school}和常识未必冲突。",
    "我们回到{name}的例子，她必须在知道结果之前作出决定。",
    "我换一种说法：义务在先，计算在后。",
    "这是一个合理的质疑，我来回答一下。",
    "这件事可能出错的方式有{num}种，只有其中一部分是可以预见的。",
    "其他人只是要求一个公平的听证机会，这在我看来是合理的。",
    "你的意思是这条规则完全没有例外吗？",
    "我同意其中一部分，但不同意你关于{topic}得出的结论。",
    "正确的答案取决于关于{topic}的一些事实，而这些事实我们手头都没有。",
    "即使没有一套完整的理论，我们也可以说有些伤害比另一些更严重。",
    "{school}要求我们平等地看待每一个人，这是一个很高的理想。",
    "人们能接受的风险本来就不一样，一个公平的政策必须考虑到这一点。",
)

EN_TRIGGERS: dict[str, tuple[str, ...]] = {
    "straw_man_detected": (
        "Honestly, {adherents} just want to feel good about themselves.",
        "They just want a formula so they never have to think.",
        "That's ridiculous as a picture of how people actually decide.",
        "That\u2019s absurd as a description of {school}.",
        "What a naive picture of human motivation.",
        "All {adherents} really care about is the final tally.",
    ),
    "factual_correction": (
        "{School} ignores the people who actually pay the price.",
        "Utilitarians don't care about individual rights at all.",
        "Virtue ethics has no answer to this dilemma.",
        "{School} can't account for duties to strangers.",
    ),
    "direct_challenge": (
        "That claim is clearly wrong, and the data shows it.",
        "The premise is simply false.",
        "No serious person believes that consequences never matter.",
        "Everyone knows that rule breaks down the moment it is tested.",
    ),
    "pivotal_point": (
        "The real issue is whether anyone consented to this.",
        "This is exactly where our frameworks part ways.",
        "The crux of the disagreement here is who counts as affected.",
        "This is precisely our disagreement, and we should name it.",
    ),
    "clarification_needed": (
        "What exactly do you mean by harm in this case?",
        "It's unclear what counts as consent here.",
    ),
    "strong_agreement": (
        "I completely agree with the point about trust.",
        "Exactly right, and that is why the rule matters.",
        "I couldn't agree more with my colleague.",
    ),
}
ZH_TRIGGERS: dict[str, tuple[str, ...]] = {
    "straw_man_detected": (
        "他们只是想让自己感觉良好罢了。",
        "这太荒谬了，没有人会这样生活。",
        "你们就是想回避真正的代价。",
    ),
    "factual_correction": (
        "{school}根本不在乎个人的权利。",
        "{school}忽视了那些真正付出代价的人。",
    ),
    "direct_challenge": (
        "这个说法显然是错的。",
        "这个前提毫无疑问是错误的。",
    ),
    "pivotal_point": (
        "真正的问题是，谁同意过这件事？",
        "根本的分歧在于我们如何看待个人。",
    ),
    "clarification_needed": (
        "你说的伤害到底是什么意思？",
        "这里的同意到底指的是什么？",
    ),
    "strong_agreement": (
        "我完全同意刚才关于信任的观点。",
        "说得太对了，这正是规则重要的原因。",
        "非常赞同对方的看法。",
    ),
}


@dataclass(frozen=True)
class Chunk:
    language: str
    text: str
    reason: str | None  # the trigger it carries, or None


def _fill(rng: random.Random, language: str, template: str, schools: tuple[str, ...]) -> str:
    en_name, en_adherents, zh_name, zh_adherents = SCHOOLS[rng.choice(schools)]
    if language == "en":
        return template.format(
            school=en_name,
            School=en_name[0].upper() + en_name[1:],
            adherents=en_adherents,
            Adherents=en_adherents[0].upper() + en_adherents[1:],
            topic=rng.choice(EN_TOPICS),
            num=rng.randint(2, 40),
            name=rng.choice(EN_NAMES),
        )
    return template.format(
        school=zh_name,
        adherents=zh_adherents,
        topic=rng.choice(ZH_TOPICS),
        num=rng.randint(2, 40),
        name=rng.choice(ZH_NAMES),
    )


def _trigger(rng: random.Random, language: str, reason: str, schools: tuple[str, ...]) -> str:
    template = rng.choice((EN_TRIGGERS if language == "en" else ZH_TRIGGERS)[reason])
    if reason == "factual_correction":
        # The factual-correction patterns name six schools; prefer one a chair of the debate holds.
        schools = tuple(school for school in schools if school in FACTUAL_SCHOOLS) or FACTUAL_SCHOOLS
    text = _fill(rng, language, template, schools)
    if rng.random() < EXCLAIM_SHARE:
        text = text[:-1] + ("!" if language == "en" else "！")
    return text


def chunk(
    rng: random.Random, language: str, reason: str | None, schools: tuple[str, ...] = FRAMEWORKS
) -> Chunk:
    """Exactly TEXT_CHARS characters of speech; with `reason`, one trigger sentence lies wholly
    inside it, anywhere (first, middle or last)."""
    plain = EN_PLAIN if language == "en" else ZH_PLAIN
    joiner = " " if language == "en" else ""
    while True:
        sentences = [_fill(rng, language, template, schools) for template in rng.sample(plain, 14)]
        trigger = ""
        if reason is not None:
            trigger = _trigger(rng, language, reason, schools)
            sentences.insert(rng.randint(0, 6), trigger)
        speech = joiner.join(sentences)
        # The chunk starts somewhere in the speech's first sentence (a stream is cut anywhere).
        start = rng.randrange(0, len(sentences[0]))
        text = speech[start : start + TEXT_CHARS]
        if len(text) == TEXT_CHARS and trigger in text:
            return Chunk(language, text, reason)


def random_reason(rng: random.Random) -> str | None:
    """A chunk's trigger as the debates draw it: TRIGGER_SHARE of chunks carry one."""
    return rng.choices(REASONS, REASON_WEIGHTS)[0] if rng.random() < TRIGGER_SHARE else None


def quick_corpus(count: int, seed: int) -> list[Chunk]:
    """`count` chunks, English and Chinese alternating, TRIGGER_SHARE of them with a trigger
    (exactly that share, shuffled), reasons drawn by REASON_WEIGHTS."""
    rng = random.Random(seed)
    triggers = round(count * TRIGGER_SHARE)
    carries = [True] * triggers + [False] * (count - triggers)
    rng.shuffle(carries)
    return [
        chunk(rng, LANGUAGES[index % 2], rng.choices(REASONS, REASON_WEIGHTS)[0] if carried else None)
        for index, carried in enumerate(carries)
    ]


def check_corpus(chunks: list[Chunk]) -> None:
    """The function's own quick check agrees with the corpus: no trigger where none was put, and
    the intended reason where one was."""
    from chair_interrupt.artifacts import chair_config
    from chair_interrupt.engine.quick import quick_check

    config = chair_config()
    for item in chunks:
        found = quick_check(config, item.text)
        if item.reason is None and found.potential_trigger:
            raise RuntimeError(f"a trigger-free chunk triggers {found.likely_reason}: {item.text!r}")
        if item.reason is not None and (not found.potential_trigger or found.likely_reason != item.reason):
            raise RuntimeError(f"a {item.reason} chunk gives {found.likely_reason}: {item.text!r}")
