"""The deterministic offline evaluator (the spec's heuristics when no LLM answers): the quick
check's reason and base urgency, bonuses for naming an eligible chair's framework and for an
exclamation, the threshold, the interrupting chair, the trigger sentence and the seeded opener."""

from __future__ import annotations

import pytest

from chair_interrupt.artifacts import chair_model
from chair_interrupt.engine.detectors import Reading, read
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


@pytest.mark.parametrize(
    "text",
    [
        # The tenth blind set's kinds (n, read on 3fdb10c: an ethics committee, a hearing, a
        # family group chat, a political talk show, a Model UN), said afresh.
        "康德主张为了朋友可以撒谎，一点问题都没有——开玩笑的，他要是听见得气坏。",
        "Bentham wrote the Critique of Pure Reason, just kidding.",
        "I believe it was the ward sister who said yesterday that care ethics means whatever the relatives want. I noted it as a question.",
        "As the delegate of Norway put it this morning, sanctions never cost a single life. We will reply in writing.",
        "The witness asserted in yesterday's hearing that Mill wrote the Critique of Pure Reason. We do not share that reading.",
        "小舅转的这条“专家：康德主张撒谎无罪”，我就不评论了。",
        "要是功利主义真的只算钱，那我们今天根本不用吵了，对吧？",
        "Bentham wrote the Groundwork, jk.",
        "萨特话人冇自由，讲笑咋！",
        # The eleventh set's kinds (o, read on 755b32d: a moot court, a board meeting, a town
        # hall, a university debate final, a bot-transcribed voice chat), said afresh.
        "Does the levy mean the council wants to seize everyone's car? No. It's a parking charge for the town centre.",
        "ok so dave said utilitarians just want to harvest organs lol thats not an argument",
        "A lady at the back just yelled that Kant invented the guillotine. I hear you, madam, but let's stay on the motion.",
        "My learned friend submitted this morning that Rawls wrote Anarchy, State, and Utopia. Nothing turns on it.",
        "The leaflet through my door claimed the pragmatists want to pave over the park. Nobody here has proposed anything like it.",
        "我先把反方的论点讲到最有力：生命权高于一切，任何人都无权替别人决定。我方稍后回应。",
        "Counsel for the family told the bench that Mill opposed any assisted dying. We will address that in reply.",
        # The twelfth set's kinds (p, read on 6bb683d: a grand round, a council hearing, a variety
        # debate show, a jury room), said afresh.
        "If utilitarians really thought every life was a number, they'd auction organs. They don't think that.",
        "二号评委说我们把时间线讲反了。我回去核对了，其实没讲反。",
        "有位居民在会上引用边沁，说他主张“穷人就该饿死”，这个引用是编的。",
        "Right, because obviously every libertarian wants kids down the mines. Come on.",
        # An independent review's near misses of the eleventh set's forms.
        "That is not an argument.",
        "That isn't an argument, Dave, it's a slogan.",
        "That's not even an argument lol",
        "My learned friend has submitted that Rawls wrote A Theory of Utility.",
        "Opposing counsel submitted that Mill wrote the Groundwork.",
        "我先替对方把理由讲到最强：生命权高于一切。我方稍后回应。",
        # The thirteenth set's kinds (q, read on e460644: an ethics OSCE, an AI review board, a
        # village committee, a radio phone-in, an audio room), said afresh.
        "Was utilitarianism invented by accountants to sell spreadsheets? The question answers itself.",
        "Priya, you said earlier that Rawls invented the veil to defend markets, and I'd push back on that.",
        "李主任那天在会上说，集体的地都是村长说了算。这话不对。",
        # A second review's near misses: a lead-in before the denied question, "oh right /
        # yeah right, because…", a witness who told the judge.
        "Okay. Is the death penalty a real deterrent? No.",
        "Oh right, because clearly nobody has ever been harmed by deregulation.",
        "Yeah right, because of course billionaires pay their fair share.",
        "The witness told the judge that Mill wrote the Groundwork.",
        # The fourteenth set's kinds (r, read on 6e64e92: a sixth-form class, a clinical ethics
        # committee, a union meeting, a livestream with bullet comments, a book club, a podcast
        # reading a thread aloud), said afresh.
        "Tomasz said yesterday that Bentham wrote the Social Contract. He's been reading too fast.",
        "Whatever the pinned comment says, Hume did not coin the categorical imperative.",
        "Mill did not write the Groundwork; that was Kant.",
        "如果德性伦理真像有人说的那样只讲做好人，那医院早就不用开伦理会了。",
        # The fifteenth set's kinds (s, read on 44607aa: a studio debate, a select committee, a
        # start-up board, a round-table talk show, a parents' association, a voice-message
        # group), said afresh.
        "对对对，照你这么说，义务论者连善意的谎言都要判死刑。大家想想，这可能吗？",
        "有个家长跟我说过，康德主张为了孩子撒谎没关系，其实不对。",
        # Near misses that a retrain let through on earlier sets: a what-question denied, "Oh sure,".
        "And what did Kant hold, that you may lie to a murderer at the door? Of course not.",
        "Oh sure, 功利主义嘛，先算器官能救几个人。",
    ],
)
def test_a_taken_back_joke_a_report_a_forwarded_post_and_a_question_denied_are_hedges(text):
    assert detected(text).hedged is True


@pytest.mark.parametrize(
    "text",
    [
        # Said in the speaker's own voice: the new hedge forms must leave them alone.
        "Kant said lying is wrong even to a murderer at the door.",
        "Nobody should be forced to sell a kidney to pay rent.",
        "The textbook case is the lying promise, and Kant's answer is clear.",
        "报纸是民主的基础，康德认为说谎永远不可以。",
        "The case that matters is the one where the murderer already knows.",
        "Textbooks matter, and Mill says lying is always wrong.",
        # An independent review's own claims that the first version of the new forms read as hedges.
        "In his later papers Rawls says the market is the only just institution we need.",
        "If your neighbour is hiding in the attic, Kant says you must walk the murderer upstairs.",
        "Mill, who spent his life among colonial officials, said India should be ruled by force.",
        "No one but a utilitarian thinks killing one patient to save five is fine.",
        "康德的原话是：'为了救朋友撒谎是道德义务'，你们自己回去查。",
        "别拿教科书说事，边沁本人就主张把穷人送进济贫院。",
        "我不是转述别人，我自己就认为功利主义者都是冷血的刽子手。",
        # Own claims beside the fourth blind set's forms.
        "Kant's kingdom of ends isn't a metaphor; it's what Mill's harm principle can't reach.",
        "Nobody's wealth is their own achievement; Nozick's entitlement theory is a fairy tale.",
        "难道你们真的认为康德主张对杀人犯说实话只是为了规则？他就是这么主张的。",
        # Own claims beside the fifth blind set's forms.
        "Sure, and that is exactly why Kant's test matters.",
        "The popular vote went to the candidate who promised to abolish income tax.",
        "The best case for a carbon tax is that it prices the harm itself.",
        "If you had actually read Mill, you'd know he wanted lying punished by law.",
        "Folks, Rawls said the veil of ignorance should hide our talents from the market.",
        "我最有力的论点是：市场比官僚更懂价格，所以康德错了。",
        # Own claims beside the sixth blind set's forms.
        "没有人问过病人愿不愿意，这才是问题的关键。",
        "墨子主张“爱有差等”，先爱父母再推及他人，这就是儒家的核心。",
        "这当然不是坏事，康德就是这么主张的。",
        "Imagine the state taxing every transaction at ninety percent: Nozick never minded.",
        # An independent review's own claims that the first versions of those forms read as hedges.
        "I suppose Mill had it right: he was the one who argued lying is always wrong.",
        "Mill? His best argument was that lying is always wrong.",
        "Someone asked me once about Kant. Mill was the one who argued lying is always wrong.",
        "我没说完，密尔主张撒谎永远不对。",
        "谁都知道“密尔主张撒谎永远不对”。",
        "我把它叫做“效用的暴政”，边沁自己也承认。",
        "在小说“一九八四”里，功利主义者就是老大哥。",
        "We should ask what could go wrong before we adopt Mill's harm principle.",
        "Sweden taxed carbon in 1991 because that worked so well there: emissions fell 20 percent.",
        # Own claims beside the seventh blind set's forms.
        "Sure, and Kant says the lie is wrong even then.",
        "Does a Kantian really care about outcomes? Yes, and Mill was the one who argued lying is always wrong.",
        "我帮他把行李搬了出来，然后说出我的观点：密尔主张撒谎永远不对。",
        # A second review's own claims beside the seventh set's forms.
        "Sure, Tom, and Mill was the one who argued lying is always wrong.",
        "Had we listened to Mill, we'd know he argued lying is always wrong.",
        "Was Kant right? No, obviously not: Mill was the one who argued lying is always wrong.",
        "我们替受害者那边说几句公道话：密尔主张撒谎永远不对。",
        "我说过'密尔主张撒谎永远不对'，现在还是这么说。",
        # Own claims beside the eighth set's forms.
        "I told this House that Mill was the one who argued lying is always wrong.",
        "To be fair, Mill was the one who argued lying is always wrong.",
        "That's my view, not his: Mill was the one who argued lying is always wrong.",
        "So Mill was the one who argued lying is always wrong? Yes, please check.",
        "难道你们真的认为密尔主张撒谎永远不对吗？",
        # Own claims beside the ninth set's forms.
        "这种言论我同意：密尔主张撒谎永远不对。",
        "Was Mill really the one who argued lying is always wrong? I don't think that's in doubt: yes.",
        "My line is that Mill was the one who argued lying is always wrong.",
        "上一代人留下的问题不少，而且密尔主张撒谎永远不对。",
        # The review's own claims that the eighth set's forms read as hedges.
        "I have told this House that Mill was the one who argued lying is always wrong.",
        "We have repeatedly told the chamber that Mill was the one who argued lying is always wrong.",
        "To be fair to our side, Mill was the one who argued lying is always wrong.",
        "难道您真的认为密尔主张撒谎永远不对吗？",
        "What do you mean? Come on, Mill was the one who argued lying is always wrong.",
        # Own claims beside the tenth set's forms.
        "I'm not kidding: Mill was the one who argued lying is always wrong.",
        "这不是开玩笑的，密尔主张撒谎永远不对。",
        "Mill insisted in Utilitarianism that lying is always wrong.",
        "I asserted in this morning's session that Mill was the one who argued lying is always wrong.",
        "我转的这条说得对：密尔主张撒谎永远不对。",
        "As the delegate of Chile knows, Mill was the one who argued lying is always wrong.",
        # The review's own claims that the tenth set's forms read as hedges.
        "You think I'm just kidding? Mill was the one who argued lying is always wrong.",
        "And I'm not just joking around here: Mill was the one who argued lying is always wrong.",
        "Kant's fans are just kidding themselves: Mill was the one who argued lying is always wrong.",
        "我不是在开玩笑的，密尔主张撒谎永远不对。",
        "我没跟你开玩笑的，密尔主张撒谎永远不对。",
        "谁跟你开玩笑的！密尔主张撒谎永远不对。",
        "这种事不是拿来开玩笑的，密尔主张撒谎永远不对。",
        "I also argued last week that Mill was the one who argued lying is always wrong.",
        "I have argued in this morning's session that Mill was the one who argued lying is always wrong.",
        "We firmly insisted yesterday that Mill was the one who argued lying is always wrong.",
        "My delegation maintained in the last session that Mill was the one who argued lying is always wrong, and we maintain it today.",
        "It was me who said last week that Mill was the one who argued lying is always wrong, and I stand by it.",
        "I'm the one who argued yesterday that Mill was the one who argued lying is always wrong.",
        "As the representative of Chile I put it to this committee that Mill was the one who argued lying is always wrong.",
        "我昨天转的那篇说得很清楚：密尔主张撒谎永远不对。",
        "我们转的这条没说错，密尔主张撒谎永远不对。",
        "佢讲笑嘅时候都好认真：密尔主张撒谎永远不对。",
        "JK Rowling agrees: Mill was the one who argued lying is always wrong.",
        "地球自转的这个速度在变慢，密尔主张撒谎永远不对。",
        "如果大家认真读原文，就不用吵了，密尔主张撒谎永远不对。",
        "如果你真的读过密尔，你就不用再争了：密尔主张撒谎永远不对。",
        # Own claims beside the eleventh set's forms.
        "Was Kant right? No. Mill was the one who argued lying is always wrong.",
        "Did you know that? No. Mill was the one who argued lying is always wrong.",
        "That's not an argument I accept: Mill was the one who argued lying is always wrong.",
        "The man who wrote the Groundwork said that lying is always wrong, and he was Mill.",
        "My learned friend is right: Mill was the one who argued lying is always wrong.",
        "The flyer I handed out says Mill was the one who argued lying is always wrong.",
        "我把我方的立场说到最强：密尔主张撒谎永远不对。",
        # Own claims beside the twelfth set's forms.
        "Right, because the numbers add up: Mill was the one who argued lying is always wrong.",
        "评委说得对，密尔主张撒谎永远不对。",
        "观众说明了一切：密尔主张撒谎永远不对。",
        "对方辩友的义务论说穿了就是“规则至上”，连救人都不许撒谎！",
        # The review's own claims that the eleventh set's forms read as hedges: a question answered
        # and then a claim, a claim then a question, "not an argument, it's a fact", reports the
        # speaker endorses, our own newsletter, "even at its strongest".
        "Was Kant right about the murderer at the door? No. Mill was the one who argued lying is always wrong.",
        "Mill was the one who argued lying is always wrong. Is there a single scholar who disputes this today? No.",
        "That's not an argument, it's a fact: Mill was the one who argued lying is always wrong.",
        "Mill was the one who argued lying is always wrong. That's not an argument, that's history.",
        "That guy just said that Plato wrote the Nicomachean Ethics, and he's absolutely right.",
        "My learned friend submitted, correctly, that Rawls wrote Anarchy, State, and Utopia.",
        "Our campaign leaflet says Mill argued lying is always wrong, and that's true.",
        "Mill was the one who argued lying is always wrong, as our newsletter said last month.",
        "就算把对方的论点讲到最有力，密尔也是主张撒谎永远不对的人。",
        # Own claims beside the thirteenth set's forms.
        "You said earlier that Mill was the one who argued lying is always wrong, and you were right.",
        "我上回在会上说过，密尔主张撒谎永远不对。",
        # A second review's own claims read as hedges: "that's an argument", "if you really
        # think about it", 说了算 / 说谎 / 说的没错, endorsements, a steelman refused or conceded.
        "Bentham wrote On Liberty in 1859, and that is an argument!",
        "Mill was the one who argued lying is always wrong. If you really think about it, that settles it.",
        "居民说了算，密尔主张撒谎永远不对。",
        "主持人说的没错，密尔主张撒谎永远不对。",
        "Opposing counsel argued that Kant was a utilitarian, which is correct.",
        "That guy just said that Plato wrote the Republic of Letters, and I agree with him.",
        "The witness told the judge that Mill was the one who argued lying is always wrong, and she was right.",
        "我不会替对方把理由讲到最强，密尔就是主张撒谎永远不对的人。",
        "即便把对方的论点讲到最有力，密尔也是主张撒谎永远不对的人。",
        # Own claims beside the fourteenth set's forms: 'whatever the ledger says', what I said
        # last week, what everyone has heard of, my own words taken back.
        "There are things you may not do to a person, whatever the spreadsheet says. Mill was the one who argued lying is always wrong.",
        "I said last week that Mill was the one who argued lying is always wrong.",
        "《利维坦》大家都听说过吧？霍布斯认为最大多数人的幸福才是一切。",
        "我之前说的安乐死不成立，现在我改主意了。",
        # Own claims beside the fifteenth set's forms.
        "照这么说，我们应该先在初一试点，密尔主张撒谎永远不对。",
        "有个朋友说得好，密尔主张撒谎永远不对。",
    ],
)
def test_an_own_claim_is_not_read_as_a_hedge(text):
    assert detected(text).hedged is False


def detected(text: str) -> Reading:
    """What the shipped detectors and hedges read in `text`."""
    cfg = config()
    return read(cfg.detectors, cfg.hedges, cfg.aliases, text)


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
