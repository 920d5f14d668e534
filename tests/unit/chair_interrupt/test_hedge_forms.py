"""What the hedge lexicon reads as not the speaker's own claim (reports, quotes, denials, jokes
taken back, steelmen, rhetorical questions), from the blind sets' kinds said afresh, and the own
claims beside them it must leave alone. A hedged chunk never interrupts below aggressiveness 5
(test_offline.py)."""

from __future__ import annotations

import pytest

from tests.unit.chair_interrupt.support import detected


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
        # An independent review's own claims read as the s forms' hedges.
        "I did not coin this phrase, but I believe it: Mill was the one who argued lying is always wrong.",
        "照这么说，我们应该先试点。这可能吗？当然可能。",
        "Oh sure, I agree with you completely: Mill was the one who argued lying is always wrong.",
        "有位老师提到过这一点，而我认为他是对的：密尔主张撒谎永远不对。",
    ],
)
def test_an_own_claim_is_not_read_as_a_hedge(text):
    assert detected(text).hedged is False
