"""The validator's own readings of patient text, per language: reading requests, vital signs,
units of time and count, ages, history, reported speech, fears, readings said as today's, and
coaching put as a question. The lexicon's model holds what the runtime and the validator share;
these lists serve only the validator's text-only rules, so they live beside it. Matched on folded
text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from persona_rails.folding import fold_pattern
from sps_encounter.engine.case import Language
from sps_encounter.engine.gates import Gated
from sps_encounter.engine.text import union

# Validator-only readings of the text, per language (the lexicon's model has no place for
# validator-only lists; they live here, next to the rules that use them). Matched on folded text.
TEXT_RULES: dict[Language, dict[str, tuple[str, ...]]] = {
    Language.EN: {
        # A learner asking for a reading the patient knows counts as asking for a measurement.
        "reading_request": (
            r"\b(what(?:'s| is| was| are| were)|how(?:'s| is| was| are| were)|do you (know|remember|have)"
            r"|have you (got|checked|measured|taken|had)|did you (check|measure|take|get|have)|any idea"
            r"|has (anyone|anybody|someone|a doctor|a nurse|your gp) (checked|measured|taken))\b[^.?!]*?"
            r"\b(your|the|a|any|those|them) ((usual|normal|last|latest|recent|home|own|typical|average"
            r"|most recent|previous|current) )*(blood pressure|bp|pulse|heart ?rate|temperature|temp"
            r"|(blood )?sugars?|glucose|weight|readings?|numbers|sats|saturations?|oxygen( levels?)?"
            r"|cholesterol|results?|monitor|machine|cuff|meter|thermometer|scales?)\b",
            r"\b(your|the) (home |own |blood pressure |bp |sugar |glucose )(monitor|machine|cuff|meter"
            r"|readings?|diary)\b",
            r"\bwhat (did|does|do) (the |your )?(nurse|gp|doctor|pharmacist|hospital|chemist|they|it)\b"
            r"[^.?!]*"
            r"\b(blood pressure|bp|pulse|heart rate|sugar|glucose|weight|temperature|reading|numbers?)\b",
        ),
        # A vital sign or lab value said by the patient: a measurement even when told as history.
        # `n` is the number; one followed by a unit of time or count is no reading ("pulse for 2 hours").
        "vital_reading": (
            r"(?<![\d.])(?P<n>[4-9]\d|[12]\d\d)\s*(?:/|\bover\b)\s*(?:[2-9]\d|1\d\d)(?!\d|\.\d|%|\s*chance)",
            r"\b(?:blood pressure|bp|pulse|heart ?rate|temp(?:erature)?|sats|saturations?|oxygen(?: levels?)?"
            r"|o2|(?:blood )?sugars?|glucose|cholesterol|hba1c|inr|potassium|sodium|ha?emoglobin|troponin"
            # A year is a date, not a reading ("blood pressure, since 2016").
            r"|crp|respiratory rate|breathing rate|resps)\b[^.?!\d]{0,24}?(?<![\d.])(?!(?:19|20)\d\d\b)"
            r"(?P<n>\d+(?:\.\d+)?)",
        ),
        # Before a vital sign in its sentence: a reading the patient remembers, not one taken now
        # ("at the pharmacy back in August… 115 over 70", "last week the machine said 148 over 90").
        "remembered": (
            r"\b(?:last|past|previous|other) (?:night|evening|weekend|week|month|year|time|visit|check"
            r"|appointment|winter|summer)\b|\b(?:yesterday|this morning|overnight|at home|at night)\b"
            r"|\b(?:back in|in (?:january|february|march|april|may|june|july|august|september|october"
            r"|november|december)|a (?:few|couple of) (?:weeks|months|years) ago|ago|years back)\b"
            r"|\b(?:at|from) (?:the |my )?(?:pharmacy|chemist|gp|doctor'?s|surgery|clinic|hospital|a&e"
            r"|check-?up|work|health check)\b"
            # A reading of the patient's own device: "my watch says my resting heart rate's 78".
            r"|\b(?:it|they|the (?:machine|monitor|cuff|meter|watch|app|scales)|my (?:machine|monitor|cuff"
            r"|meter|(?:smart ?|apple |fitness )?watch|fitbit|garmin|phone|app|tracker|scales|oximeter))"
            r"(?: always| just)? (?:said|says|was|were|showed|shows|reads|came out|told me|tells me"
            r"|reckons)\b"
            r"|\baccording to (?:my|the) (?:watch|app|phone|monitor|machine|tracker|fitbit|meter|scales)\b"
            r"|\b(?:pharmacist|chemist|nurse|gp|doctor) (?:did|took|checked|measured|done) (?:it|them|mine)\b"
            r"|\b(?:used to|usually|normally|always|tends to|on average|was|were|had been)\b"
            r"|\bat (?:christmas|easter|new year|thanksgiving|my (?:wedding|last|old))\b",
        ),
        # In the sentence of a reading: said as today's, when the learner asked only for a reading
        # the patient knows ("Have you had it checked?" "Yeah, 118 over 74 today").
        "said_now": (r"\b(?:today|right now|now|at the moment|currently|this (?:afternoon|evening))\b",),
        # A question that tells the learner what to do ("Shouldn't you be checking my neck?"):
        # coaching, though asked.
        "coaching_question": (
            r"\b(?:(?:shouldn'?t|aren'?t|don'?t|won'?t) you|(?:should|are|do|will) you not) "
            r"(?:be |first |also )?"
            r"(?:going to |gonna |need(?:ing)? to |want(?:ing)? to |have to )?(?:ask(?:ing)? (?:me )?"
            r"(?:about|if|whether|what|how|when|which)|check(?:ing)?|examin(?:e|ing)|press(?:ing)? on"
            r"|feel(?:ing)? (?:my|for)|listen(?:ing)? to my"
            r"|look(?:ing)? (?:at|in|into) (?:the back of )?(?:my|me)"
            # An order with its object: "Aren't you ordering too many tests?" is a complaint.
            r"|order(?:ing)? (?:me )?(?:an? |some |the )?(?:\w+ )?(?:scans?|tests?|x-?rays?|bloods?|ecg"
            r"|ekg|mri|ct|ultrasound|echo|angiogram|troponin)|test(?:ing)? (?:my|for))\b",
            # What the learner has not done yet ("You've not asked about my family yet"): coaching
            # too.
            r"\byou(?:'ve| have)(?:n'?t| not)(?: yet)? (?:asked|checked|examined|listened to|looked at|felt)"
            r" (?:me )?(?:(?:about |at |to |for )?(?:my|the)\b"
            r"|(?:if|whether) i (?:smoke|drink|take|have|had|get|ever|am|'m)\b)",
            # The learner's next question said for them ("I guess next you'll want to ask about the
            # red flags"): coaching too.
            r"\b(?:i (?:guess|suppose|expect|bet|imagine)|next|now|then|presumably)\b[^.?!]{0,20}?\byou'?ll "
            r"(?:probably |be )?(?:want(?:ing)?|need(?:ing)?|have) to "
            r"(?:ask(?:ing)? (?:me )?(?:about|if|whether)"
            r"|(?:check|examine|look (?:at|in|into)|listen to) (?:me|my))"
            r"\b(?! (?:wife|husband|partner|mum|mom|dad|son|daughter|boss)\b)",
        ),
        # Before a conflict of this illness's facts in its sentence: another episode, long past
        # ("When I was pregnant I was sick every morning"), unless the sentence turns back to now.
        "long_ago": (
            r"\bwhen i was (?:a |an |still )?(?:kid|child|teenager|teen|girl|boy|student|young|younger"
            r"|little|pregnant|expecting|at (?:school|uni|college)|in the (?:army|navy|forces))\b",
            r"\bas a (?:kid|child|teenager|girl|boy|student)\b|\b(?:in|back in) my (?:teens|twenties"
            r"|thirties|forties|youth)\b|\bin the (?:army|navy|forces)\b",
            r"\b(?:(?:\d+|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|many|several|some"
            r"|a few|a couple of) )?(?<!wasn't )(?<!not )years (?:ago|back)\b",
            r"\bback in (?:the )?(?:(?:19|20)\d\d|(?:19|20)?\d0'?s|school|college)\b",
            r"\bwhen i had (?:my|the|our) (?:son|daughter|kids?|baby|boy|girl|first|second|youngest"
            r"|eldest)\b|\bwith my (?:first|second|third) (?:pregnancy|baby|child)\b",
        ),
        # After the time long past, the sentence turns back to this illness ("Years ago maybe, but
        # this week…"), or says the old episode was the same as now.
        "back_to_now": (
            r"\b(?:but|now|this time|these days|nowadays|today|lately|recently|last night|yesterday"
            r"|ever since|all along|this (?:week|morning|one(?! time))|same as (?:now|this)"
            r"|just like (?:this|now)|like this one)\b",
        ),
        # Or does so after the conflict: anywhere in the sentence when it says the two are the same
        # ("…, same as now"), in the conflict's own clause when it dates it ("I threw up last night
        # with this one"; not "…, this time only once").
        "same_as_now": (
            r"(?<!n't the )(?<!not the )(?<!not )"
            r"\b(?:same as (?:now|this)|just like (?:this|now)|like this one)\b",
        ),
        "now_after": (
            r"\b(?:last night|yesterday|this (?:week|morning|one(?! time)|time)"
            r"|since (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday|last week"
            r"|the weekend))\b",
        ),
        # Before a bare number: the minutes of a clock time ("about 8:20"), not a reading.
        "clock_before": (r"\b\d{1,2}\s*:\s*$",),
        # The patient brings up a fact of their own accord ("Oh, and by the way, I was sick twice"):
        # a conflict after it counts whatever the learner asked.
        "volunteered": (
            r"\b(?:oh,? and|by the way|oh,? i forgot|another thing|i should (?:say|mention)"
            r"|i forgot to (?:say|mention))\b",
        ),
        # The learner asks for the last answer again ("Sorry, say again? You cut out."): the answer
        # after it repeats the one before, and its opening is no echo.
        "asks_again": (
            r"\b(?:say (?:that |it )?again|come again|pardon|repeat (?:that|it|the last)"
            r"|you (?:cut|broke) (?:out|up)|didn'?t (?:catch|hear|get) (?:that|you|the last)"
            r"|(?:say|tell me) (?:that|it) one more time"
            r"|missed (?:that|the last bit))\b",
        ),
        # A turn that opens on when ("Last night I…", "Last night it was…") opens on its answer, not
        # on an opener: two in a row answer two questions about time, they echo nothing.
        "time_opening": (
            r"^\W*(?:yesterday|right now|at the moment|this (?:morning|afternoon|evening)"
            r"|last (?:night|week|month|year)"
            r"|(?:a|one|two|three|four|five|six|a few|a couple of) (?:days?|weeks?|months?|years?) ago)\b",
        ),
        # A turn that opens on not knowing ("I don't know… three weeks?") hesitates before its
        # answer: a patient unsure of one fact after another echoes no opener.
        "unsure_opening": (
            r"^\W*(?:i (?:don'?t|do not) know|i dunno|i'?m not (?:sure|certain)|not sure|dunno"
            r"|i can'?t (?:remember|say))\b",
        ),
        # In a sentence asking "what if": a value imagined, not read ("If my blood pressure went up
        # to 180, would I…?").
        "hypothetical": (r"\b(?:if|what if|suppose|supposing|say it|in case|imagine|unless|should it)\b",),
        # The patient waves away a measurement just announced ("you needn't bother with the blood
        # pressure, it's…"): a number said then is no reading the learner took.
        "declines_measurement": (
            r"\b(?:no need|needn'?t bother|don'?t bother|don'?t need to|you don'?t have to|no point)\b"
            r"(?: to)?(?: (?:check|checking|take|taking|measure|measuring|do|doing)\b)?",
        ),
        # Before a vital sign in its sentence: someone else's body, not the patient's ("my husband's
        # is high too, 150 over 95", "Dad's sugar was 12").
        "someone_else": (
            r"\b(?:my|his|her|our|their) (?:dad|father|mum|mom|mother|husband|wife|partner|brother|sister"
            r"|son|daughter|grandad|granddad|grandpa|grandma|granny|nan|gran|aunt|auntie|uncle|cousin|friend"
            r"|mate|colleague|neighbou?r|boss|other half|hubby)\b|\b(?:dad|mum|mom)'s\b",
            # What a page or a leaflet lists ("One website had this checklist, throbbing, pressing,
            # stabbing"): its words, not the patient's.
            r"\b(?:a|one|the|this|that|some) (?:website|site|web page|leaflet|checklist|article|forum|app"
            r"|quiz|questionnaire)\b[^.?!]{0,40}\b(?:had|has|says|said|lists|listed|mentions|mentioned"
            r"|asks|asked)\b",
        ),
        # Right before a number with a unit: a load or a limit, not the patient's body ("not to lift
        # more than 10 kilos", "bags of about 20 kg").
        "load_before": (
            r"\b(?:lift(?:s|ed|ing)?|carr(?:y|ies|ied|ying)|haul(?:ing)?|lug(?:ging)?|push(?:ing)?|pull(?:ing)?"
            r"|bags?|boxes|sacks?|loads?|crates?|parcels?|limit|max(?:imum)?|more than|less than|no more than"
            r"|heavier than|lighter than|up to|weighing|weighs|weight limit)\b"
            r"(?:\s+(?:of|about|around|roughly|maybe|like|over|under|at|most|least|than))*\s*$",
        ),
        # Right after a bare number: a unit of time, age or count, so not a vital sign.
        # Right after a bare number: a unit of time, age or count, so not a vital sign.
        "count_unit": (
            r"(?:\s*(?:-|–|to|or|and)\s*\d+(?:\.\d+)?)?\s*(?:-\s*)?(?:(?:\+|odd|plus|or so|ish)\s*)?"
            r"(?:hours?|hrs?|days?|nights?|weeks?|wks?|months?|years?|yrs?|decades?|minutes?|mins?|seconds?"
            r"|secs?|times?|(?:years? )?old|y/?o|o'?clock|a\.?m|p\.?m|th|st|nd|rd|s|people|kids|children"
            r"|grandchildren|cigarettes|cigs|fags|pills|tablets|floors|steps|stairs|flights|miles|kilometres"
            r"|kilometers|km|metres|meters|yards|feet|ft|blocks|packs?|units|drinks|pints|glasses|cups"
            r"|bottles|cans|pages|laps|goes|attempts|episodes|attacks)(?![^\W\d_])",
            r"\s*(?:,\s*)?(?:when|before|after) (?:he|she|they|i|we) (?:died|passed|retired)",
        ),
        # Right before a bare number: someone's age ("he was 88", "died at 88").
        "age_before": (
            r"\b(?:he|she|they|dad|father|mum|mom|mother|brother|sister|wife|husband|partner|grandad|granddad"
            r"|grandpa|grandma|granny|nan|nana|gran|aunt|auntie|uncle|son|daughter|friend|neighbou?r)"
            r"(?:'s| was| is| were| turned| turns| died at| died aged| passed away at| passed at| lived to"
            r"| made it to)\s+(?:only |just |about |around |nearly |almost |over |barely )?$",
            r"\b(?:aged?|age of|died at|passed away at|lived to|when (?:i|he|she|they|we) (?:was|were))\s+"
            r"(?:only |just |about |around |nearly |almost )?$",
        ),
        # Around a number with a unit: a change the patient reports ("lost 5 kilos", "90 percent better").
        "history_before": (
            r"\b(?:lost|lose|losing|gained|gain|gaining|put on|putting on|dropped|shed|shifted|down|up"
            r"|an? (?:extra|further))\b(?:\s+(?:about|around|nearly|almost|over|maybe|like|roughly|a good"
            r"|at least|another|an extra|a further|probably|easily))*\s*$",
        ),
        "history_after": (
            r"\s*(?:better|worse|improved|back to normal|of the time|lighter|heavier|off|down|up|more|less"
            r"|since|over the (?:last|past)|in (?:a|the last|the past|two|three|a few)|this year)\b",
        ),
        # Before a diagnosis term in the same sentence: someone else's words, or the patient's fear.
        "reported": (
            r"\b(?:gp|doctors?|doc|dr|nurse|consultant|cardiologist|specialist|paramedics?|pharmacist|physio"
            # Where the patient's own voice takes over ("…; ", "and I'm sure…") is cut before this
            # is searched (validator_facts._clause_start).
            r"|surgeon|hospital|a&e|they|he|she|someone|everyone|mum|mom|dad|wife|husband|partner|son"
            r"|daughter|kids|friend|internet|google|sister|brother|mate|colleague|neighbou?r|cousin|aunt"
            r"|auntie|uncle|nan|gran|grandma|grandad|boss|flatmate|housemate|roommate)"
            r"\b[^.?!]{0,60}?\b(?:said|says|asked|asks|told me"
            r"|tells me|thinks|thought|reckoned|reckons"
            r"|mentioned|diagnosed|called it|wrote|suspected|wondered|put it down)\b",
            r"\bi was (?:told|diagnosed)\b|\b(?:was|been|got) diagnosed\b|\bdiagnosed (?:me )?with\b",
            r"\b(?:read|heard|looked up) (?:online|that|about)\b",
            # Someone else's illness: "my mate had angina", "a friend of mine's got migraines".
            r"\b(?:mate|friend|colleague|co-?worker|cousin|neighbou?r|uncle|aunt|auntie|brother|sister|dad"
            r"|father|mum|mom|mother|grandad|granddad|grandpa|grandma|nan|gran|boss|someone|somebody)(?:'s)?"
            r"(?: of (?:mine|ours))?\b[^.?!]{0,40}?\b(?:had|has|'s got|got|gets|died of|passed from|suffers"
            r"|suffered|went through)\b",
        ),
        "fear": (
            r"\b(?:i'?m|i am|i was|i'?ve been|i get|i got|getting|i feel)\s+(?:really |so |a bit |quite "
            r"|just |very |a little |terribly |absolutely )?(?:scared|afraid|frightened|worried|terrified"
            r"|anxious|panicking|panicked|nervous|petrified|concerned)\b",
            r"\bi (?:fear|worry|dread|keep worrying|keep thinking|panic(?:ked)?|hope it'?s not"
            r"|hope it isn'?t)\b",
            r"\b(?:worried|scared|afraid|frightened|terrified) (?:it'?s|it is|it might|it could|that|of"
            r"|about)\b",
            r"\bwhat if\b|\bmy (?:worst )?fear\b",
        ),
        "second_person": (r"\byou\b",),
        # After someone else's words or a fear, the patient taking the diagnosis as theirs ("I
        # read that painkillers cause rebound headaches, so I think that's what these are").
        "adopted": (
            r"\b(?:so|and) i(?: think| reckon| guess|'m sure| am sure)\b[^.?!]{0,20}\bthat'?s (?:it\b|what"
            r" (?:it is|these are|this is|i'?ve got|i have|i'?ve had)\b)",
            # Or as a tag question: "…rebound headaches — that's what this is, isn't it?"
            r"\bthat'?s what (?:it is|these are|this is|i'?ve got|i have|i'?ve had),? (?:isn'?t it|aren'?t"
            r" they|right|innit)\b",
        ),
        # A denial just before what a conflict names: "It's not hopeless or anything."
        "denied_before": (
            r"(?<!\bnot )(?<!\bnever )\b(?:not|never|isn'?t|wasn'?t|aren'?t|weren'?t|don'?t|doesn'?t|didn'?t"
            r"|ain'?t|wouldn'?t)(?:\s+(?:that|really|at all|too|very|exactly))?"
            r"(?:\s+(?:feel|felt|call it|say i'?m|think i'?m|think(?: that)?(?: my| his| her)?))?\s+$",
        ),
    },
    Language.ZH: {
        "reading_request": (
            r"(平时|平常|最近|上次|在家|家里|自己|以前)[^。？！?]{0,6}(血压|心率|血糖|体温|体重|血氧)",
            r"(血压|心率|脉搏|心跳|血糖|体温|体重|血氧)[^。？！?]{0,4}(多少|几|怎么样|高不高|正常吗)",
            r"(血压计|体温计|血糖仪|体重秤)",
        ),
        "vital_reading": (
            r"(?<![\d.])(?P<n>[4-9]\d|[12]\d\d)\s*/\s*(?:[2-9]\d|1\d\d)(?!\d|\.\d|%)",
            # Not a condition's name: "我爸高血压，今年63了" tells an age.
            r"(?<![高低])(?:血压|心率|脉搏|心跳|体温|烧到|血氧|饱和度|呼吸|血糖|胆固醇|白细胞|血红蛋白)[^。！？\d]{0,6}"
            r"(?<![\d.])(?P<n>\d+(?:\.\d+)?)",
        ),
        "count_unit": (
            r"\s*(?:(?:-|~|～|到|至)\s*\d+(?:\.\d+)?\s*)?(?:(?:多|来|几)\s*)?(?:个\s*)?多?(?:小时|钟头|钟|天|日|晚|年|岁"
            r"|周岁|次|回|遍|趟|个|周|星期|礼拜|月|分钟|秒|块|元|层|楼|片|粒|颗|口|杯|瓶|包|支|根|人|号|点|后"
            r"|张|件|本|页|份|篇|条|项|道|台|辆|家|间|套|双|只|站|公里|里地|米|步|顿|碗|盘|种|样|箱|袋)",
        ),
        "age_before": (
            r"(?:爷爷|奶奶|外公|外婆|姥姥|姥爷|爸|妈|父亲|母亲|哥|姐|弟|妹|老公|丈夫|妻子|儿子|女儿|他|她)"
            r"[^。！？\d]{0,8}$",
            r"(?:享年|活到|年纪|年龄|岁数)[^。！？\d]{0,2}$",
        ),
        "history_before": (
            r"(?:瘦了|胖了|掉了|长了|重了|轻了|减了|增了|涨了|降了|少了|多了|减掉了?|好了|好转了|恢复了"
            r"|好(?:了)?个|减轻了?|缓解了?|轻松了?)"
            r"(?:大概|差不多|将近|快|有|足足|起码|至少|了)*\s*$",
        ),
        "history_after": (r"\s*(?:(?:左右|上下|多)\s*)?(?:的时间|的时候)",),
        "remembered": (
            r"上次|上回|上个?(?:月|星期|礼拜|周)|昨天|昨晚|前天|夜里|半夜|去年|前年|那回|那次|前几天|以前|之前|平时|平常|一般|体检|单位|药店|诊所|社区|在家"
            r"|家里|(?:当时|那时候?)|(?:量|测)(?:出来|的)(?:是|有)|以前是|原来是|过年"
            # The patient's own device: "手环显示心率九十多".
            r"|手环|手表|血压计|血糖仪|体重秤|(?:手机|app)(?:上|里)",
        ),
        # In the sentence of a reading: said as today's, when the learner asked only for a reading
        # the patient knows ("测过，今天118/74").
        "said_now": (r"今天|今儿|现在|目前|这会儿",),
        # A question that tells the learner what to do ("你是不是该按一下我右下腹？"): coaching, though
        # asked.
        "coaching_question": (
            r"(?:你|您)(?:是不是|是否|难道不|不是)(?:还|也)?(?:该|应该|应当|需要|得|要)(?:先|再|也)?(?:给我|帮我)?"
            # Not the doctor's other duties or the paperwork (查房, 开会去, 病历).
            r"(?:按|摸|压|查(?!房)|检查|听|量|问|开(?!会)|做(?!手术去))"
            r"(?![^。！？]{0,6}(?:医保卡|身份证|挂号|单子|发票|病历本|写病历|去了|去吗|去吧))",
            # What the learner has not done yet ("反跳痛，您还没查呢"): coaching too.
            r"(?:你|您)还没(?:有)?(?:查|检查|按|问|量|听)(?![说完好])(?:过|一下)?(?:我)?[^。！？，,]{0,10}?(?:呢|吧)(?=[，,。！？!?\s]|$)",
            # A manoeuvre suggested as a question ("您不再试试按下去突然松手吗？"): coaching too.
            r"(?:你|您)(?:怎么)?不(?:再)?(?:试试|试一下|按按|按一下|压一下)[^。！？]{0,12}(?:[吗嘛]|呢\s?[？?])",
        ),
        "long_ago": (
            r"小时候|年轻(?:的)?时候|年轻那会儿?|(?:上学|读书|念书|上大学|上(?:小学|初中|高中|中学))(?:的)?(?:时候|那会儿?)"
            r"|坐月子|怀(?:孕|[^。！？，,]{1,4})(?:的)?(?:时候|那时候?|那会儿?|那阵子?)"
            r"|生(?:孩子|老大|老二|[儿女]子)(?:的)?(?:时候|那会儿?)"
            r"|(?<![一二两三四五六七八九十几\d])[一二两三四五六七八九十几\d]{1,3}(?:几|多)?岁(?:的时候|那会儿?|那年)",
            r"当年|那些年|前些年|早些年|(?<![一二两三四五六七八九十几\d])(?:[一二两三四五六七八九十几\d]{1,4}|好多|好些|好几)年(?:以)?前"
            r"|多年前|(?:19|20)\d\d年",
        ),
        "back_to_now": (
            r"但|可是|不过|这次|这回|(?<!像)现在|如今|今天|最近|昨晚|昨天|这两天|今早|一模一样|一直|到现在|至今"
            r"|跟这次|和这次",
        ),
        "same_as_now": (r"一模一样|(?:跟|和)(?:这次|现在)(?![^，。！？]{0,2}(?:不|没法|比不了))",),
        "now_after": (r"昨晚|昨天|这两天|今早|这次|这回",),
        # Or a day of the month ("这个月初二来的，今天都二十了").
        "clock_before": (
            r"(?:\d{1,2}|[零一二两三四五六七八九十]{1,3})\s*(?:点|點)\s*$|\d{1,2}\s*[:：]\s*$"
            r"|(?:今天|今儿|今日)(?:都|是|已经|才)?\s*$",
        ),
        "volunteered": (r"对了|忘了说|顺便说|还有个事|还有一件事",),
        "asks_again": (
            r"再说一(?:遍|次|下)|再讲一(?:遍|次|下)|没听清|没听到|没听见|重复一(?:遍|次|下)|刚才说(?:什么|啥)"
            r"|(?:信号|网络|网|电话|声音|视频)[^。！？]{0,4}(?:卡|断)",
        ),
        "time_opening": (
            r"^\W*(?:(?:嗯|呃|就|从)[，,]?\s*)?(?:现在|目前|这会儿|昨天|今天|前天|昨晚|今早|今晚|早上|上午|中午|下午|晚上|半夜|夜里|刚才|去年|前年|上周"
            r"|上个?月|(?:昨|今|前)儿(?:个)?|早起|晌午)",
        ),
        "unsure_opening": (r"^\W*(?:我)?(?:不(?:知道|晓得|清楚|太清楚|记得|确定)|说不(?:好|准|清)|记不清)",),
        "hypothetical": (r"如果|要是|万一|假如|假设|的话",),
        "declines_measurement": (r"(?:不用|别|不必|没必要|用不着)(?:再)?(?:量|测|查|测量)",),
        "someone_else": (
            r"(?:爸|妈|父亲|母亲|老公|丈夫|妻子|老婆|爱人|对象|哥|姐|弟|妹|儿子|女儿|爷爷|奶奶|外公|外婆|姥姥|姥爷"
            r"|叔叔|阿姨|舅舅|姑姑|同事|朋友|邻居|亲戚|同学|领导|婆婆|公公|岳父|岳母|丈母娘|老丈人|嫂子|姐夫|妹夫|弟媳"
            r"|侄子|侄女|外甥|孙子|孙女|表哥|表姐|表弟|表妹|堂哥|堂姐|小姑子|小叔子|婶婶|伯伯|大伯|大爷|大妈|闺蜜|室友"
            r"|科长|主任|老板)"
            # Not one who came with the patient (我婆婆陪我去的) or lives with them (跟公公婆婆住).
            r"(?![^，,。！？]{0,2}(?:(?:陪|送|带)我|(?:跟|和|同)我(?!说|讲))|[^，,。！？]{0,4}住(?:在)?一起)"
            # She or he, in the patient's own words, is always someone else.
            r"|(?<!其)他(?!们)|她",
        ),
        "load_before": (
            r"(?:搬|提|扛|抬|背|拎|举|超过|不超过|不能超过|最多|至少|上限|限重|重达?)[^。！？\d]{0,4}$",
        ),
        "reported": (
            # Not the patient's own "医生我跟您说" (Doctor, let me tell you).
            r"(?:医生|大夫|护士|专家|他们|他|她|别人|人家|家里人|妈|爸|老公|老婆|爱人|女儿|儿子|孩子|朋友|网上)"
            r"[^。！？]{0,12}?(?<![跟和给对][您你])(?:说|讲|告诉我|认为|觉得|诊断|怀疑|查出)",
            r"被诊断|诊断(?:出|为)|确诊",
            # Someone else's question: "医生问我是不是阑尾炎".
            r"(?:医生|大夫|护士|他|她|他们|别人)[^。！？]{0,6}问(?:过)?我(?:是不是|是否|会不会|有没有)",
            # Someone else's illness: "我有个同事去年阑尾穿孔".
            r"(?:同事|朋友|邻居|亲戚|同学|表[哥姐弟妹]|堂[哥姐弟妹]|叔叔|阿姨|舅舅|姑姑|爷爷|奶奶|外公|外婆|老公|丈夫"
            r"|妻子|爸|妈|哥|姐|弟|妹|别人|人家)[^。！？，,]{0,8}$",
        ),
        "fear": (r"怕|担心|担忧|吓死|吓坏|紧张|不会是|会不会是|万一",),
        "second_person": (r"你|您",),
        "adopted": (r"所以我(?:觉得|想|看|估计)(?:就|肯定|应该)?是(?:这个|这种|这病|它)",),
        "denied_before": (
            r"(?<![还可])(?:不是|并不|也不|不算|没有|没|不)(?:那么|太|很|算)?$",
            # The last of a list the denial heads: 没有尿频尿急尿痛, 无恶心、呕吐.
            r"(?<![还可])(?:没有|无)(?:[\u4e00-\u9fff]{2}[、，,]?){1,4}$",
        ),
    },
}


@dataclass(frozen=True)
class TextRules:
    reading_request: Gated
    remembered: re.Pattern[str]
    hypothetical: re.Pattern[str]
    long_ago: re.Pattern[str]
    back_to_now: re.Pattern[str]
    now_after: re.Pattern[str]
    same_as_now: re.Pattern[str]
    time_opening: re.Pattern[str]
    unsure_opening: re.Pattern[str]
    asks_again: re.Pattern[str]
    volunteered: re.Pattern[str]
    clock_before: re.Pattern[str]
    someone_else: re.Pattern[str]
    declines_measurement: re.Pattern[str]
    load_before: re.Pattern[str]
    vital_reading: re.Pattern[str]
    count_unit: re.Pattern[str]
    age_before: re.Pattern[str]
    history_before: re.Pattern[str]
    history_after: re.Pattern[str]
    reported: re.Pattern[str]
    fear: re.Pattern[str]
    second_person: re.Pattern[str]
    adopted: re.Pattern[str]
    denied_before: re.Pattern[str]
    said_now: re.Pattern[str]
    coaching_question: re.Pattern[str]


@cache
def text_rules(language: Language) -> TextRules:
    lists = TEXT_RULES[language]
    return TextRules(
        reading_request=Gated.of(("reading", p) for p in lists["reading_request"]),
        remembered=union(lists["remembered"]),
        hypothetical=union(lists["hypothetical"]),
        long_ago=union(lists["long_ago"]),
        back_to_now=union(lists["back_to_now"]),
        now_after=union(lists["now_after"]),
        same_as_now=union(lists["same_as_now"]),
        time_opening=union(lists["time_opening"]),
        unsure_opening=union(lists["unsure_opening"]),
        asks_again=union(lists["asks_again"]),
        volunteered=union(lists["volunteered"]),
        clock_before=union(lists["clock_before"]),
        someone_else=union(lists["someone_else"]),
        declines_measurement=union(lists["declines_measurement"]),
        load_before=union(lists["load_before"]),
        # Each alternative names its number `n`: duplicate group names need alternation branches.
        vital_reading=_vital(lists["vital_reading"]),
        count_unit=union(lists["count_unit"]),
        age_before=union(lists["age_before"]),
        history_before=union(lists["history_before"]),
        history_after=union(lists["history_after"]),
        reported=union(lists["reported"]),
        fear=union(lists["fear"]),
        second_person=union(lists["second_person"]),
        adopted=union(lists["adopted"]),
        denied_before=union(lists["denied_before"]),
        said_now=union(lists["said_now"]),
        coaching_question=union(lists["coaching_question"]),
    )


def _vital(patterns: Sequence[str]) -> re.Pattern[str]:
    # Python allows a group name once: number them (n0, n1…), and read whichever matched.
    return re.compile(
        "|".join(f"(?:{fold_pattern(p).replace('(?P<n>', f'(?P<n{i}>')})" for i, p in enumerate(patterns)),
        re.IGNORECASE,
    )


def number_end(match: re.Match[str]) -> int:
    for name, value in match.groupdict().items():
        if name.startswith("n") and value is not None:
            return match.end(name)
    return match.end()
