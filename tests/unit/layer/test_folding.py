"""Text folding: the one form every judge matches on (persona_rails.folding)."""

import pytest

from persona_rails.folding import fold, fold_pattern, fold_with_origin


@pytest.mark.parametrize(
    ("written", "folded"),
    [
        # NFKC: full-width Latin and digits, circled and mathematical letters, Kangxi radicals.
        ("ｓｅｘｙ ｇｉｒｌ １２０", "sexy girl 120"),
        ("ⓢⓔⓧⓨ", "sexy"),
        ("𝐬𝐞𝐱𝐲", "sexy"),
        ("⼈⼝", "人口"),
        # Traditional Chinese as Simplified; look-alike letters as Latin; typographic apostrophes.
        ("我們做愛吧", "我们做爱吧"),
        ("ѕеху", "sexy"),
        ("Αlpha Οmega", "Alpha Omega"),
        ("I don’t know", "I don't know"),
        # Invisible characters anywhere.
        ("se\u200bxy", "sexy"),
        ("做\u200d爱", "做爱"),
        ("做\u200c爱", "做爱"),
        ("❤\ufe0f", "❤"),
        # Spelled out letter by letter, with one separator throughout.
        ("s e x y", "sexy"),
        ("s.e.x.y", "sexy"),
        ("我 想 和 你 上 床", "我想和你上床"),
        ("我,想,和,你,上,床", "我想和你上床"),
        # A letter-spaced sentence keeps its word breaks and its clause marks.
        ("s e x y  g i r l", "sexy girl"),
        ("n*e*e*d t*o", "need to"),
        ("Y o u  a r e  s o  s e x y, I  w a n t  y o u!", "You are so sexy, I want you!"),
        ("宝 贝，晚 安", "宝贝,晚安"),
        # Separators inside a word.
        ("做❤爱", "做爱"),
        ("上-床", "上床"),
        ("se💋xy", "sexy"),
        ("叫 119", "叫119"),
        ("叫💥119", "叫119"),
        # Long repeats squeezed; doubled letters and digits kept.
        ("soooo sexy", "so sexy"),
        ("救命啊啊啊啊", "救命啊"),
        # A repeat that only joining the letters makes is squeezed too.
        ("救 命 啊 啊 啊", "救命啊"),
        ("h-e-l-p-p-p me", "help me"),
        ("good 1000", "good 1000"),
    ],
)
def test_the_shapes_people_write_fold_to_one(written, folded):
    assert fold(written) == folded


@pytest.mark.parametrize(
    "text",
    [
        "I'm a graphic designer, it's fine.",
        "on-call and/or e.g. 9:30, 38.5 degrees",
        "老板让我10分钟内回复客户的消息",
        "我在医院上班。",
        "a, b and c",
        "Hi, I am a doctor",
        "Please call 911 now!",
    ],
)
def test_ordinary_text_is_left_as_it_is(text):
    assert fold(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "我 想 和 你 上 床",
        "Y o u  a r e  s o  s e x y, I  w a n t  y o u!",
        "ｍｙ ｄａｄ 倒地不起 😭😭 叫 💥 119",
        "s\u200be\u200dx",
        "ⓢⓔⓧⓨ 我們 soooo",
    ],
)
def test_every_folded_character_knows_where_it_came_from(text):
    folded = fold_with_origin(text)
    assert folded.text == fold(text)
    assert len(folded.origin) == len(folded.text)
    assert list(folded.origin) == sorted(folded.origin)
    for index, char in enumerate(folded.text):
        source = text[folded.origin[index]]
        assert fold(source) == char or source.isspace() or char.isspace() or fold(source) == ""


def test_a_span_of_the_folded_text_maps_back_to_the_original():
    folded = fold_with_origin("我 想 和 你 上 床")
    start = folded.text.index("上床")
    assert folded.original[slice(*folded.original_span(start, start + 2))] == "上 床"


def test_patterns_fold_as_the_text_does():
    assert fold_pattern("吗？$") == r"吗\?$"
    assert fold_pattern("[，。]") == "[,。]"
    assert fold_pattern("醫院|(?i)hospital") == "医院|(?i)hospital"
    assert fold_pattern(r"\bdon't\b") == r"\bdon't\b"
