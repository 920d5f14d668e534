"""The deterministic offline evaluator (the spec's heuristics when no LLM answers): the quick
check's reason and base urgency, bonuses for naming an eligible chair's framework and for an
exclamation, the threshold, the interrupting chair, the trigger sentence and the seeded opener."""

from __future__ import annotations

import pytest

from chair_interrupt.artifacts import chair_model
from chair_interrupt.engine.evaluate import (
    Outcome,
    offline_decision,
    opener,
    targeted_chair,
)
from chair_interrupt.engine.model import Chair, QuickCheck, Reason
from tests.unit.chair_interrupt.support import (
    CARE,
    DEON,
    SEED,
    UTIL,
    VIRTUE,
    config,
    context,
    detected,
    offline,
)


def test_without_a_rule_trigger_the_scorer_decides_and_reports_its_urgency():
    decision = offline(context("Thank you. I'll take the second question first."), aggressiveness=3)
    assert decision.outcome is Outcome.BELOW_THRESHOLD
    assert decision.candidate is None
    assert decision.urgency is not None
    assert 0 <= decision.urgency < config().threshold(3)


def test_a_trigger_without_reason_or_span_is_left_to_the_scorer():
    cfg = config()
    ctx = context("They just want power.")
    expected = offline_decision(
        cfg, ctx, [VIRTUE], QuickCheck(False), aggressiveness=5, seed=SEED, model=chair_model()
    )
    for quick in (QuickCheck(True, None, (0, 4)), QuickCheck(True, Reason.STRAW_MAN_DETECTED, None)):
        decision = offline_decision(
            cfg, ctx, [VIRTUE], quick, aggressiveness=5, seed=SEED, model=chair_model()
        )
        assert decision == expected


def test_a_misattribution_is_a_factual_correction_by_the_chair_whose_school_was_misread():
    ctx = context("Mill was the one who argued lying is always wrong.", speaker=DEON, others=(VIRTUE, UTIL))
    decision = offline(ctx, aggressiveness=3)
    assert decision.outcome is Outcome.INTERRUPT
    assert decision.candidate is not None
    assert decision.candidate.trigger_reason is Reason.FACTUAL_CORRECTION
    assert decision.candidate.interrupting_chair == UTIL
    assert decision.urgency == pytest.approx(0.85 + 0.05)


@pytest.mark.parametrize(
    "text",
    [
        "Critics sometimes say utilitarians only count bodies, but that's a caricature.",
        "It is false that Kant ignored consequences; he just refused to let them decide.",
        "Nobody here thinks virtue ethics is about feeling good about yourself.",
        "Someone once told me 'they just want to feel good about themselves', which is unfair.",
        # Misattributions raised and put right by the speaker (issue 22's blind hedge set).
        "Some on the left claim Nozick wanted no state at all. He argued for a minimal one.",
        "For my cousin, Kant = rule worship. Wrong, obviously: he wrote pages on judgement.",
        "Everyone says the Stoics banned feeling. They didn't. They wanted feelings examined.",
        "A blog had Aristotle down as a social contract theorist; he thought we are political by nature.",
        "据说康德认为说谎永远可以接受，这个说法完全颠倒了。",
        # A second blind set's hedges (f, read on c72e518), said afresh.
        "网上有篇文章说：'康德认为对杀人犯也必须说实话'，我只是转述一下。",
        "It's not the case that Mill thought all pleasures are equal.",
        "No one at this debate is claiming that the poor deserve their poverty.",
        "My neighbour insists Rawls was a communist, which makes for long barbecues.",
        "一位评论员写道功利主义者都是冷血的会计。这是常见的一种误解。",
        # A third blind set's hedges (g, read on 0b9d290), said afresh.
        "There's a notion floating around that Bentham wanted everyone in a panopticon.",
        "按照某些人的逻辑，帮助陌生人都是伪善。",
        "谁也不会这么说：康德只在乎规则，不在乎人。",
        # A fourth blind set's hedges (h, read on 4227c41), said afresh.
        "From the chat: 'Isn't virtue ethics just what the rich call good manners?' I'll take it.",
        "No one's saying the poor should be grateful for sweatshop wages.",
        "The moderator suggests Rawls called the welfare state 'theft'. He said no such thing.",
        "边沁常被这么概括：只要结果好，什么手段都行。",
        "难道我们真的相信自由市场会自己照顾病人吗？",
        # A fifth blind set's hedges (i, read on 4793eb7: sarcasm, steelmanning, counterfactuals),
        # said afresh.
        "Oh sure, and the tulip mania was a sound investment strategy.",
        "Sure, and rent control fixed San Francisco's housing too.",
        "Let's ban every car in the city tomorrow. What could possibly go wrong?",
        "哦 sure，边沁就是想把所有人都关进监狱嘛。",
        "难道真有人相信罗尔斯反对任何再分配吗？",
        "The popular story is that Kant never left Königsberg because he hated travel.",
        "The strongest version of their case is that markets reveal what people value.",
        "对方最有力的论点大概是这样：市场比官僚更懂价格。",
        "If the ban really had been in force since 1990, we'd see it in the cancer data.",
        "Some folks claim Aristotle invented the market economy.",
        # A sixth blind set's hedges (j, read on 06cfdfb: evidence, irony, reported chat), said
        # afresh.
        "Someone in the comments just wrote that Pasteur faked all his results. He didn't.",
        "Imagine Bentham had lived to see social media; the panopticon would look quaint.",
        "I keep hearing that the Milgram studies were never replicated. They were, in 2009.",
        "It didn't: the ban was lifted in 1933, and everyone knows why.",
        "有人问我：契约论是不是只适合有钱人？",
        "这种把康德当成机器人的漫画式说法，我不接受。",
        "我学生写“边沁主张动物没有任何道德地位”，这正好说反了。",
        "我可没说美德伦理是精英的道德，那是别人的偏见。",
        "Pragmatism 就是 whatever works？显然不是这么回事。",
        # An independent review's hedges of the same kinds.
        "Somebody in the chat just said that Kant was a utilitarian.",
        "Someone on Twitter claims Kant lied to his landlord.",
        "Had Mill lived to see the internet, he'd have rewritten the harm principle.",
        "I've been hearing that Kant never left his room.",
        "有观众问：康德是不是反对一切说谎？",
        "我可没这么说过，那是别人的话。",
        "根本不是那么回事。",
        "他写道：“康德认为说谎也行”，这显然是误读。",
        # A seventh blind set's hedges (k, read on e7ee7f3: hearings, tutorials, phone-ins, a
        # family dinner), said afresh.
        "上周的纪要里，李委员说'赫尔辛基宣言是1947年的'，他会后已经更正了。",
        "Does a utilitarian really not care about the one? Of course they care.",
        "对对对，功利主义就是算账呗——谁真这么说过？",
        "我今天当一回杠精：美德伦理就是当老好人。谁来反驳？",
        "Let me play devil's advocate: Kant would lie to the murderer.",
        "我先帮契约论那边把最好的理由说出来：大家都同意的规则才算公平。",
        # An eighth blind set's hedges (l, read on cfe3708: competitive debate, a student union,
        # a bioethics seminar, a WeChat group), said afresh.
        "The Member for Finance told this House that Bentham wrote the Critique. It says Kant.",
        "To be fair to the contractualist side: if nobody could reasonably reject it, it binds.",
        "My uncle keeps forwarding this video saying Hume invented the categorical imperative. That's his take, not mine.",
        "What, so Mill thought pleasure was all that mattered, even a pig's? Come on.",
        "难道功利主义者真的认为少数人可以随便牺牲吗？没人这么主张。",
        # A ninth blind set's hedges (m, read on d2b8201: a call-in show, an ethics bowl, a union
        # meeting, a forum thread read aloud, a round-table talk show), said afresh.
        "The prosecution's line is that Mill wrote the Critique. I don't buy it.",
        "功利主义者都是算账机器——这种帖子我一周能刷到好几条。",
        "Is the panel really saying Kant allowed lies? I don't think they are.",
        "Caller 李女士的意思，我 paraphrase 一下：密尔主张撒谎永远不对。",
        "我爸那一辈人总觉得，康德就是个只会讲规矩的老古板。",
        "For argument's sake, say Kant thought lying to the murderer was fine.",
        # An independent review's hedges of the eighth set's kinds that its forms missed.
        "The Member for Finance told Parliament that Bentham wrote the Critique.",
        "In fairness to the other side: they think Kant allowed lies.",
        "That is his view, not mine: Kant allowed lies.",
        "My uncle keeps sending me videos saying Hume wrote the Groundwork.",
        "So what, Kant allowed lies? Yeah, right.",
        # An independent review's hedges of the tenth set's kinds that its forms missed.
        "萨特说人根本没有自由——开玩笑的啦！",
        "As my colleague from Kenya put it, Mill wrote the Critique of Pure Reason.",
        "It was the chaplain who told me last week that Mill wrote the Critique of Pure Reason.",
        "三舅转给我的这条说康德支持撒谎，我不评论。",
    ],
)
def test_a_hedged_chunk_never_interrupts_below_aggressiveness_5(text):
    ctx = context(text, speaker=DEON, others=(VIRTUE, UTIL))
    for aggressiveness in (1, 2, 3, 4):
        decision = offline(ctx, aggressiveness=aggressiveness)
        assert (decision.outcome, decision.candidate) == (Outcome.HEDGED, None), aggressiveness
    # From 5 it is judged, and its urgency pays the hedge penalty.
    assert offline(ctx, aggressiveness=5).outcome is not Outcome.HEDGED


@pytest.mark.parametrize(
    ("text", "reason", "urgency"),
    [
        ("They just want power.", Reason.STRAW_MAN_DETECTED, 0.85),
        ("Kantians never consider outcomes.", Reason.FACTUAL_CORRECTION, 0.85 + 0.05),
        ("That is obviously wrong.", Reason.DIRECT_CHALLENGE, 0.75),
        ("The real issue is consent.", Reason.PIVOTAL_POINT, 0.7),
        ("What do you mean by harm?", Reason.CLARIFICATION_NEEDED, 0.6),
        ("I fully agree with that.", Reason.STRONG_AGREEMENT, 0.55),
    ],
)
def test_base_urgency_per_reason(text, reason, urgency):
    decision = offline(context(text, others=(DEON,)), aggressiveness=5)
    assert decision.outcome is Outcome.INTERRUPT
    assert decision.candidate is not None
    assert decision.candidate.trigger_reason is reason
    assert decision.urgency == pytest.approx(urgency)


def test_an_exclamation_adds_the_bonus():
    plain = offline(context("That is obviously wrong.", others=(DEON,)))
    exclaimed = offline(context("That is obviously wrong!", others=(DEON,)))
    assert plain.urgency == pytest.approx(0.75)
    assert exclaimed.urgency == pytest.approx(0.8)


def test_a_fullwidth_exclamation_adds_the_bonus():
    decision = offline(context("这显然是错的！", others=(DEON,)))
    assert decision.urgency == pytest.approx(0.8)


def test_naming_an_eligible_chairs_framework_adds_the_bonus_and_picks_that_chair():
    decision = offline(context("Care ethics people just want comfort.", others=(DEON, CARE)))
    assert decision.candidate is not None
    assert decision.candidate.interrupting_chair == CARE
    assert decision.urgency == pytest.approx(0.9)


def test_a_chinese_alias_targets_the_chair():
    decision = offline(context("美德伦理的支持者，他们只是想自我感觉良好！", others=(DEON, VIRTUE)))
    assert decision.candidate is not None
    assert decision.candidate.trigger_reason is Reason.STRAW_MAN_DETECTED
    assert decision.candidate.interrupting_chair == VIRTUE
    assert decision.urgency == pytest.approx(0.95)


def test_an_alias_inside_a_longer_word_targets_nobody():
    # "kant" is a deontology alias, but not inside "Kantorovich".
    assert targeted_chair(named("As Kantorovich showed, they just want efficiency."), [DEON]) is None
    assert targeted_chair(named("As Kant showed, they just want efficiency."), [DEON]) == DEON


def named(text: str) -> frozenset[str]:
    return detected(text).names


def test_urgency_is_clamped_to_one():
    # 0.85 + 0.05 + 0.05 = 0.95 at most with the shipped bonuses; still never above 1.
    decision = offline(context("Virtue ethicists only want applause!!!", others=(VIRTUE,)), aggressiveness=1)
    assert decision.urgency is not None
    assert 0.0 <= decision.urgency <= 1.0


def test_below_threshold_reports_the_urgency_without_a_candidate():
    decision = offline(context("What do you mean by harm?", others=(DEON,)), aggressiveness=2)
    assert decision.outcome is Outcome.BELOW_THRESHOLD
    assert decision.urgency == pytest.approx(0.6)
    assert decision.candidate is None


def test_without_a_target_the_first_eligible_chair_interrupts():
    decision = offline(context("That is obviously wrong.", others=(CARE, DEON)))
    assert decision.candidate is not None
    assert decision.candidate.interrupting_chair == CARE
    assert decision.candidate.interrupted_chair == UTIL


def test_trigger_content_is_the_sentence_holding_the_trigger():
    text = "We agree on the data. But they just want control! Anyway, moving on."
    decision = offline(context(text, others=(DEON,)))
    assert decision.candidate is not None
    assert decision.candidate.trigger_content == "But they just want control!"


def test_trigger_content_of_a_chinese_chunk_is_its_sentence():
    text = "我们先看数据。这显然是错的！然后继续。"
    decision = offline(context(text, others=(DEON,)))
    assert decision.candidate is not None
    assert decision.candidate.trigger_content == "这显然是错的！"


def test_trigger_content_without_a_sentence_end_runs_to_the_chunks_end_capped():
    text = "Well they just want " + "more " * 100
    decision = offline(context(text, others=(DEON,)))
    assert decision.candidate is not None
    assert decision.candidate.trigger_content == text.strip()[:200]


def test_the_opener_is_drawn_from_the_reason_pool_with_the_seed():
    decision = offline(context("They just want power.", others=(DEON,)))
    assert decision.candidate is not None
    assert decision.candidate.suggested_opener == opener(config(), Reason.STRAW_MAN_DETECTED, SEED)


def test_the_same_inputs_decide_the_same():
    ctx = context("Virtue ethics people just want to feel good about themselves!")
    assert offline(ctx) == offline(ctx)


def test_a_chair_is_shown_by_display_name_else_model_id():
    assert VIRTUE.display_name == "Claude"
    assert DEON.display_name == "google/gemini-pro"
    assert Chair("chair_5", "pragmatism", "m").display_name == "m"
