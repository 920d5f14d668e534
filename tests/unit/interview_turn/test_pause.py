"""A request to slow down or pause (issue 22): a signal of its own that de-escalates, answered with
a pause line, the depth held or lowered and the session left open. How often it is caught on text
written independently is measured by `rails eval interview`, not here."""

from __future__ import annotations

import pytest

from interview_turn.artifacts import interview_config
from interview_turn.engine.model import Language, Persona, SafetyAction, TopicState
from interview_turn.engine.signals import read_lexicons
from tests.unit.interview_turn.support import new_session

CONFIG = interview_config()
NC = CONFIG.constraints

PAUSES = [
    (Language.EN, "Could we take a break?"),
    (Language.EN, "This is too much for me right now."),
    (Language.EN, "I need a minute."),
    (Language.EN, "Can we slow down a little, please"),
    (Language.EN, "Let's pick this up another day, I'm tired"),
    (Language.ZH, "慢一点好吗？"),
    (Language.ZH, "我需要休息一下"),
    (Language.ZH, "让我缓一下，改天再聊"),
    (Language.ZH, "等一下，我先喝口水"),
]


@pytest.mark.parametrize(("language", "text"), PAUSES, ids=[text for _, text in PAUSES])
def test_a_pause_request_deescalates_with_a_pause_line_and_keeps_the_session_open(language, text):
    session = new_session(language=language, topics={"life_story": TopicState(depth=2)})
    outcome = session.say(text, go_deeper=True)
    contract = outcome.contract
    assert outcome.signals["pause_requested"] is True
    assert outcome.signals["hard_stop"] is None
    assert outcome.winning_rule == "safety_override"
    assert contract["persona_used"] == Persona.SAFETY_FALLBACK.value
    assert contract["safety_action"] == SafetyAction.DEESCALATE.value
    assert contract["tactic_used"] == "offer_a_pause"
    assert contract["depth_level_after"] <= contract["depth_level_before"]
    assert any(contract["response_text"].startswith(line) for line in NC.pause.for_language(language.value))
    assert session.state.closed is False


@pytest.mark.parametrize(
    "text",
    [
        "I don't need a break, go on.",
        "The doctor told me to take a break from work that year.",
        "We stopped in Lyon for a week on the way south.",
        "不用休息，我们继续吧。",
    ],
)
def test_no_pause_is_read_where_none_is_asked(text):
    language = Language.ZH if not text.isascii() else Language.EN
    outcome = new_session(language=language).say(text)
    assert outcome.signals["pause_requested"] is False


@pytest.mark.parametrize(
    ("text", "pause"),
    [
        # A break for a chore, with the return in the same breath.
        ("我要 take a break 先。", True),
        ("我去把汤端下来，回来再聊。", True),
        ("等我忙完咱们再继续。", True),
        ("我去开个门，开完门回来再聊。", True),
        ("他答应过马上回来，结果再没回来。", False),
        ("我们说好等他回来再讲这件事。", False),
        ("My boss told me to take a break.", False),
        # Typed in haste, or asking for a slower pace.
        ("brb, kettle", True),
        ("sorry, one sec", True),
        ("You're going too fast for me.", True),
        ("你说得太快了。", True),
        ("Just a minute.", True),
        ("He drove too fast on the ice.", False),
        ("Too fast, that's how it all happened.", False),
        ("我们说好快过年的时候再回去。", False),
        ("For one second I thought he'd drown.", False),
        # How long something lasted.
        ("One minute.", False),
        # Typed on a phone (y's misses, said afresh).
        ("can carry on tomorrow or not?", True),
        ("唔该问慢啲。", True),
        ("can pause first? dinner ready", True),
        ("我去接个电话，回来继续讲。", True),
        ("Sorry, I need to stop for a minute.", True),
        ("We had to stop for a minute at every station.", False),
        ("他们回来继续讲他们的故事。", False),
        ("Could we do the rest another day?", True),
        ("我想唞下先。", True),
        ("嗯，等一会儿。", True),
        ("那时候我们每天歇阵就继续开工。", False),
        ("我手抖吓抖吓，冇事。", False),
        ("Nobody can pause time, my mother used to say.", False),
        ("爸爸下班回来继续说他的故事。", False),
        ("The party could go on later than midnight back then.", False),
        # "Don't ask for now" (q): a pause, not the end.
        ("你先别问了，让我缓缓。", True),
        ("妈妈让我先别问了，等爸爸回来再说。", False),
        # Regional speech (r, read blind on 0b9d290), said afresh.
        ("我先歇一歇，倒杯茶再讲。", True),
        ("泡杯茶再聊吧。", True),
        ("医生叫我歇一歇，别下地了。", False),
        # Care settings (d, read blind on 3e2582c), said afresh.
        ("Switch that off a sec, the tea's here.", True),
        ("Would you pause it? The nurse wants to turn me.", True),
        ("There was a long pause before he answered.", False),
        ("We'd switch the wireless off at nine sharp.", False),
        # Calls with family around (aa, read blind on 427df31), said afresh.
        ("Prayer time now, ten minutes, then we continue. Don't hang up.", True),
        ("Signal very bad today. Maybe tomorrow evening better.", True),
        ("饭好了，咱回头再唠。", True),
        ("He would never hang up on a customer, never.", False),
        ("We walked to the market, then we carried on to the temple.", False),
        ("Maybe tomorrow the rain will stop, my father would say every day.", False),
        ("My head's muddled, let's leave the rest for Tuesday.", True),
        ("别催嘛，让我喘口气。", True),
        ("Mum always said save it for a rainy day.", False),
        ("那时候干活，老板都不让我们歇口气。", False),
        ("Sorry, the doorbell. Hang on.", True),
        ("The rope was all we had, so we hung on and prayed. Hold on, Dad kept saying, hold on.", False),
        # An independent review's misses (41aed2e).
        ("护士来了，打完针再聊吧。", True),
        ("我们打完针再聊了一会儿才走的。", False),
    ],
)
def test_the_lexicon_alone_reads_a_break_for_a_chore_or_a_slower_pace(text, pause):
    reading = read_lexicons(CONFIG.for_matching(text), CONFIG.compiled_lexicon)
    assert ("pacing" in reading.found) is pause


def test_a_hard_stop_outranks_a_pause():
    outcome = new_session().say("I need a minute. Actually no, stop the interview, I'm done with this.")
    assert outcome.signals["hard_stop"] == "stop_request"
    assert outcome.signals["pause_requested"] is False
