"""Local models: the file format, the features and the arithmetic of inference."""

import array
import json
import math

import pytest

from persona_rails.folding import fold
from persona_rails.local_model import load_model, text_grams
from persona_rails.local_model.features import FEATURE_SCHEME, SHORT_TEXT_SLOTS, grams, hashed, text_features
from persona_rails.local_model.model import ModelFileError, encode_weights, parse_model


def document(**overrides):
    weights = [0.0] * 8
    weights[3] = 2.0
    base = {
        "name": "toy",
        "version": "1",
        "feature_scheme": FEATURE_SCHEME,
        "buckets": 8,
        "classes": ["no", "yes"],
        "vectors": [{"bias": -1.0, "rules": {"flag": 1.5}, "ngrams": encode_weights(weights)}],
        "thresholds": {"band": 0.5},
    }
    return {**base, **overrides}


def test_a_binary_model_is_a_sigmoid_of_bias_rules_and_ngrams():
    model = parse_model(json.dumps(document()).encode(), "toy")
    slots, weight = text_features("hello world", 8)
    ngram = weight * 2.0 * slots.count(3)
    for rules, extra in (({}, 0.0), ({"flag": 1.0}, 1.5), ({"unknown": 1.0}, 0.0)):
        expected = 1 / (1 + math.exp(-(-1.0 + extra + ngram)))
        probabilities = model.probabilities("hello world", rules)
        assert probabilities["yes"] == pytest.approx(expected)
        assert probabilities["no"] == pytest.approx(1 - expected)
    assert model.thresholds == {"band": 0.5}


def test_a_multinomial_model_is_a_softmax():
    zero = encode_weights([0.0] * 8)
    vectors = [{"bias": bias, "rules": {}, "ngrams": zero} for bias in (0.0, 1.0, 2.0)]
    model = parse_model(json.dumps(document(classes=["a", "b", "c"], vectors=vectors)).encode(), "toy")
    probabilities = model.probabilities("anything")
    total = sum(math.exp(b) for b in (0.0, 1.0, 2.0))
    assert probabilities == pytest.approx(
        {name: math.exp(b) / total for name, b in zip("abc", (0.0, 1.0, 2.0), strict=True)}
    )


def test_ngrams_read_once_score_as_the_text_does():
    # Two models reading one answer share its n-grams (`text_grams`) instead of each folding and
    # reading it again.
    model = parse_model(json.dumps(document()).encode(), "toy")
    for text in ("Hello World!", "我 想 你", ""):
        assert text_grams(text) == grams(fold(text))
        assert model.probabilities_of(text_grams(text), {"flag": 1.0}) == model.probabilities(
            text, {"flag": 1.0}
        )


def test_the_id_names_the_model_its_version_and_its_bytes():
    data = json.dumps(document()).encode()
    model = parse_model(data, "toy")
    other = parse_model(json.dumps(document(thresholds={"band": 0.6})).encode(), "toy")
    assert model.id.startswith("toy@1+")
    assert len(model.id) == len("toy@1+") + 12
    assert model.id != other.id


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"feature_scheme": "other-1"}, "feature scheme"),
        ({"buckets": 6}, "power of two"),
        ({"buckets": 16}, "8 weights for 16 buckets"),
        ({"classes": ["a", "b", "c"]}, "1 weight vectors"),
    ],
)
def test_a_model_that_does_not_fit_the_code_is_refused(change, message):
    with pytest.raises(ModelFileError, match=message):
        parse_model(json.dumps(document(**change)).encode(), "toy")


def test_features_are_the_folded_text_s_ngrams():
    assert grams("我想你!") == {"我", "想", "你", "我想", "想你", "我想你", "p!"}
    assert {"wlove", "wyou", "blove you", "c lo", "clov", "cove", "cve "} <= grams("LOVE you")
    # "you're" and a spelled-out "y o u ' r e" are one word.
    assert grams("you're") == grams("youre")
    assert text_features("我 想 你", 1 << 16) == text_features("我想你", 1 << 16)


def test_features_are_stable_across_processes_and_machines():
    # CRC-32, not hash(): the slots of a text never change without a new FEATURE_SCHEME.
    slots, weight = hashed({"w" + "hello", "我想"}, 1 << 16)
    assert slots == sorted(slots)
    assert slots == [41218, 52545]
    # Two slots count as a short text's worth, not as two: 1/sqrt(16), not 1/sqrt(2).
    assert weight == pytest.approx(1 / math.sqrt(SHORT_TEXT_SLOTS))
    many, weight = hashed({f"w{n}" for n in range(64)}, 1 << 16)
    assert weight == pytest.approx(1 / math.sqrt(len(many)))


def test_a_model_file_is_read_once(tmp_path):
    path = tmp_path / "toy.json"
    path.write_text(json.dumps(document()), encoding="utf-8")
    assert load_model(path) is load_model(path)
    assert isinstance(load_model(path).weights[0], array.array)
