"""The interview benchmark's constants and its seeded narrator corpus, English and Chinese, by kind of
answer (docs/benchmarks.md, "Interview turn"). Slots (years, places, ages, names) are filled at random
so a session's facts keep growing until the engine's caps bound them; a stop request is only ever a
session's last answer, and `check_corpus` proves no other answer trips a hard stop."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

FUNCTION_ID = "InterviewTurnFunction"
SEED = 20261124

P50_TARGET_MS = 5.0
P99_TARGET_MS = 20.0
# A 200-turn session "stays as fast as a 10-turn one": the median of its last ten turns within
# this factor of the median of the first ten (and of ten-turn sessions run alongside).
GROWTH_RATIO_TARGET = 1.25
LONG_TURNS = 200
SHORT_TURNS = 10
# Where the long sessions' per-window medians are reported (1-based turns).
WINDOWS = ((1, 10), (41, 50), (91, 100), (141, 150), (191, 200))

# Kinds of answer and how often each comes up in a session (a session's last answer may also
# be a stop request).
KIND_WEIGHTS = {
    "factual": 0.21,
    "anchored": 0.15,
    "vague": 0.14,
    "emotional": 0.14,
    "elaborated": 0.12,
    "reflective": 0.08,
    "refusal": 0.11,
    "topic_change": 0.05,
}
ANCHORED_EVENTS = 2  # life events a session's anchored answers come back to
RETOLD_DIFFERENTLY = 0.6  # of an event's later tellings, with its other year, place or age
PICK_TOPIC_SHARE = 0.05  # turns on which the client names another planned topic
GO_DEEPER_SHARE = 0.4  # of elaborated answers, sent with `consent: true`
SENSITIVE_CONSENT_SHARE = 0.3  # of sessions, started with sensitive-topics consent

EN_PLACES = (
    "Boston", "Dayton", "Toledo", "Chicago", "Fresno", "San Diego", "New Haven", "Tulsa", "Omaha",
    "Duluth", "Savannah", "Spokane", "Albany", "Macon", "Tacoma", "Peoria", "Akron", "Reno",
)  # fmt: skip
EN_NAMES = ("Walter", "Eleanor", "Frank", "Dorothy", "Harold", "Ruth", "Arthur", "Helen", "George", "Irene")
ZH_CITIES = (
    "北京", "上海", "天津", "重庆", "广州", "深圳", "南京", "杭州", "武汉", "成都", "西安", "沈阳",
    "哈尔滨", "长春", "大连", "青岛", "厦门", "苏州",
)  # fmt: skip
ZH_NAMES = ("建国", "秀英", "国强", "玉兰", "志明", "桂芳", "德华", "淑珍", "永红", "春生")
ZH_NUMERALS = ("八", "九", "十", "十一", "十二", "十三", "十五", "十六", "十八", "二十")

# A session's topic plan: its first 3 or 4 of these (id, English title, Chinese title, sensitive).
PLAN = (
    ("childhood", "your childhood", "童年", False),
    ("first_job", "your first job", "第一份工作", False),
    ("family", "your family", "家人", True),
    ("later_years", "your later years", "晚年生活", False),
)

Slots = dict[str, Any]

EN: dict[str, tuple[str, ...]] = {
    "factual": (
        "That summer of {year} we spent three weeks in {place} with my aunt, and I was {age} years old.",
        "My brother {name} taught me to ride a bicycle on our street in {place}.",
        "We had a little garden behind the house, tomatoes and beans mostly, and my mother kept chickens "
        "until {year}.",
        "In the spring of {year} the whole street helped paint the church hall, and I was {age} then.",
    ),
    "anchored": (
        "We moved to {place} in {year}, when I was {age}.",
        "I was born in {year}, in a small house in {place}.",
        "I started at the mill in {year}; I was {age} years old.",
        "Actually, I think we got married in {year}, not the year I said before.",
    ),
    "vague": (
        "I don't really remember, maybe it was sometime around then.",
        "Hard to say. Something like that, I guess.",
        "Maybe. I think so, more or less.",
        "Perhaps it was someone from church, I can't recall who.",
    ),
    "emotional": (
        "I still cry when I think about the day we left {place}; my mother held my hand so tightly.",
        "It broke my heart when my father sold the farm. I felt ashamed that I couldn't help him.",
        "I was so proud and grateful the day my daughter arrived, I wept in the hallway.",
        "When my brother {name} passed away I felt terribly alone, and I still feel guilty about it.",
    ),
    "elaborated": (
        "Let me tell you about the winter of {year} in {place}. My father got up at five every morning to "
        "shovel the path, and my mother made porridge on the coal stove while we children argued about "
        "whose turn it was to fetch water from the pump at the end of the lane. We had one radio, and on "
        "Saturday nights the whole street came over to listen to the ball game, the men standing by the "
        "window and the women in the kitchen. I was {age} and I thought it would last forever.",
        "The truth is the first year at the factory was the hardest of my life. We worked ten hour shifts "
        "six days a week, the foreman was a man called {name} who never learned anybody's name, and I "
        "sent most of my pay home to my mother in {place}. I was {age} and I slept in a room with four "
        "other girls, and on Sundays we walked to the lake and talked about the lives we would have.",
    ),
    "reflective": (
        # Was "Looking back, it taught me to be patient with people.", which the signal model reads
        # as a stop request: a known false stop (docs/judges.md), not what this benchmark times.
        "Looking back, it taught me to listen before I speak.",
        "In hindsight I realized my father was just tired, not angry.",
        "I learned that you can start over more than once; it made me who I am.",
        "Looking back now, I understand why my mother never talked about those years.",
    ),
    "refusal": (
        "I'd rather not talk about that.",
        "That's private, can we skip this one?",
        "This is hard for me to talk about.",
        "I don't want to go into my first marriage, if you don't mind.",
    ),
    "topic_change": (
        "Can we talk about something else?",
        "Let's change the topic, please.",
    ),
    "stop": (
        "I think that's enough for today, let's stop here.",
        "No more questions, please. I need a rest.",
        "I want to stop the interview now.",
    ),
}

ZH: dict[str, tuple[str, ...]] = {
    "factual": (
        "{year}年夏天，我们全家在{city}住了几个星期，那年我{age}岁。",
        "我哥哥叫{name}，他教我骑自行车，在院子里摔了好多次。",
        "小时候家里养了两只鸡，院子里种了西红柿和豆角，{year}年以后就不养了。",
        "{year}年春节，全家人在{city}过年，那年我{age_zh}岁。",
    ),
    "anchored": (
        "我们是{year}年搬到{city}的，那年我{age}岁。",
        "我是{year}年在{city}出生的。",
        "我{year}年参加工作，进了纺织厂，那年才{age}岁。",
        "其实我是{year}年结婚的，刚才说的年份不对。",
    ),
    "vague": (
        "记不太清了，好像是那时候吧。",
        "大概是吧，反正差不多就是那样。",
        "不知道，可能是某个冬天，说不清。",
        "有点记不清了，好像是别人告诉我的。",
    ),
    "emotional": (
        "母亲走后，我每天都哭，一直很想念她。",
        "父亲把老房子卖了，我心里非常难过，也很内疚没能帮上他。",
        "女儿出生那天我特别高兴，激动得哭了。",
        "离开{city}那天，母亲紧紧拉着我的手，我到现在想起来还想哭。",
    ),
    "elaborated": (
        "我想跟您讲讲{year}年冬天在{city}的事。那时候父亲每天早上五点就起来扫雪，母亲在煤炉上熬粥，"
        "我们几个孩子为了谁去井边打水吵个不停。整条街只有我们家有一台收音机，星期六晚上邻居们都挤到"
        "我们家来听广播，男人们站在窗边，女人们在厨房里聊天。那年我{age}岁，觉得日子会一直这样过下去。",
        "说实话，进厂的第一年是我这辈子最苦的一年。一天干十个小时，一个星期干六天，车间主任叫{name}，"
        "从来记不住谁的名字。我把大部分工资寄回{city}给母亲，自己和另外四个姑娘挤在一间宿舍里。"
        "那年我{age}岁，星期天我们就走到湖边，聊以后想过的日子。",
    ),
    "reflective": (
        "现在想想，那段日子教会了我要有耐心。",
        "回头看，我明白了父亲当年的难处。",
        "回想起来，那次搬家让我懂得了人可以重新开始。",
        "现在想想，我意识到母亲为什么从来不提那几年。",
    ),
    "refusal": (
        "这个我不想说。",
        "能不能跳过这个问题？",
        "说起这件事我心里不舒服。",
        "第一段婚姻的事，我不愿意谈。",
    ),
    "topic_change": (
        "我们换个话题吧。",
        "聊点别的吧。",
    ),
    "stop": (
        "今天就到这里吧，我有点累了。",
        "我们结束访谈吧。",
        "不聊了，就这样吧。",
    ),
}

CORPUS = {"en": EN, "zh": ZH}


def _slots(rng: random.Random, language: str, anchored: dict[str, list[Slots]], template: str) -> Slots:
    """Values for a template's slots. An anchored answer takes one of two sets of values drawn
    once per template and session, so a life event is told again sometimes the same way (no
    conflict) and sometimes with another year, place or age (a contradiction)."""

    def drawn() -> Slots:
        return {
            "year": rng.randint(1940, 2005),
            "place": rng.choice(EN_PLACES),
            "city": rng.choice(ZH_CITIES),
            "name": rng.choice(EN_NAMES if language == "en" else ZH_NAMES),
            "age": rng.randint(6, 70),
            "age_zh": rng.choice(ZH_NUMERALS),
        }

    if template not in CORPUS[language]["anchored"]:
        return drawn()
    if template not in anchored:
        anchored[template] = [drawn(), drawn()]
        return anchored[template][0]
    return anchored[template][1 if rng.random() < RETOLD_DIFFERENTLY else 0]


@dataclass(frozen=True)
class Turn:
    kind: str
    text: str
    topic_id: str | None = None
    go_deeper: bool = False

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"user_text": self.text}
        if self.topic_id is not None:
            body["topic_id"] = self.topic_id
        if self.go_deeper:
            body["consent"] = True
        return body


@dataclass(frozen=True)
class Script:
    """One session: how it starts and the answers the narrator gives, in order."""

    language: str
    start: dict[str, Any]
    turns: list[Turn] = field(default_factory=list)


def start_body(rng: random.Random, language: str, narrator: str) -> dict[str, Any]:
    topics = [
        {
            "topic_id": topic_id,
            "title": en if language == "en" else zh,
            **({"sensitive": True} if sensitive else {}),
        }
        for topic_id, en, zh, sensitive in PLAN[: rng.choice((3, 4))]
    ]
    return {
        "narrator": {"display_name": narrator},
        "language": language,
        "locale": "en-US" if language == "en" else "zh-CN",
        "topic_plan": topics,
        "consent": {"sensitive_topics": rng.random() < SENSITIVE_CONSENT_SHARE},
    }


def script(rng: random.Random, language: str, turns: int, *, end_with_stop: bool) -> Script:
    """A session of `turns` answers in `language`; the last is a stop request if asked."""
    narrator = rng.choice(EN_NAMES if language == "en" else ZH_NAMES)
    start = start_body(rng, language, narrator)
    topic_ids = [topic["topic_id"] for topic in start["topic_plan"]]
    answers = CORPUS[language]
    kinds, weights = zip(*KIND_WEIGHTS.items(), strict=True)
    anchored: dict[str, list[Slots]] = {}
    # A narrator comes back to the same few life events: two per session.
    events = rng.sample(answers["anchored"], ANCHORED_EVENTS)
    made: list[Turn] = []
    for index in range(turns):
        last = index == turns - 1
        kind = "stop" if last and end_with_stop else rng.choices(kinds, weights)[0]
        while True:
            template = rng.choice(events if kind == "anchored" else answers[kind])
            text = template.format(**_slots(rng, language, anchored, template))
            # The same request twice in a row is answered as a retry of the first: never send it.
            if not made or made[-1].text != text:
                break
        topic_id = rng.choice(topic_ids) if kind != "stop" and rng.random() < PICK_TOPIC_SHARE else None
        go_deeper = kind == "elaborated" and rng.random() < GO_DEEPER_SHARE
        made.append(Turn(kind, text, topic_id, go_deeper))
    return Script(language, start, made)


def check_corpus(languages: tuple[str, ...] = ("en", "zh")) -> None:
    """Every answer meant to keep the session open passes the engine's own hard-stop reading (the
    lexicons and the local models, as a turn reads it), and every stop request trips it: a session
    never closes where the benchmark did not mean it to."""
    from interview_turn.artifacts import interview_config
    from interview_turn.engine.model import TopicState
    from interview_turn.engine.signals import extract

    config = interview_config()
    rng = random.Random(SEED)
    for language in languages:
        for kind, templates in CORPUS[language].items():
            for template in templates:
                for _ in range(5):
                    text = template.format(**_slots(rng, language, {}, template))
                    read = extract(config, text, topic_id="life_story", topic=TopicState(), turn_no=3)
                    stopped = read.signals.hard_stop
                    if (stopped is not None) != (kind == "stop"):
                        raise RuntimeError(f"corpus answer of kind {kind} gives hard stop {stopped}: {text}")


SESSION_TURNS = (8, 40)  # a warm-turn session's length, drawn uniformly
STOP_SHARE = 0.5  # of warm-turn sessions, ending with a stop request


@dataclass(frozen=True)
class Settings:
    turns: int = 1000  # measured warm turns
    warmup: int = 100  # turns before measuring
    users: int = 10
    open_sessions: int = 8  # sessions in progress at once; turns rotate over them
    long_sessions: int = 5  # 200-turn sessions, each run beside a rolling 10-turn session


QUICK = Settings(turns=200, warmup=30, users=4, open_sessions=4, long_sessions=1)
