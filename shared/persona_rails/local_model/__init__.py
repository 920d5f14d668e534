"""The judges' local models: small logistic regressions over the folded text, shipped as data.

`features.py` turns a folded text into hashed n-gram features; `model.py` loads a trained model
file and scores. Training is dev tooling (`make train`, persona_rails_dev.train); inference is
pure Python and imports nothing heavier than `zlib`.
"""

from persona_rails.local_model.features import text_features, text_grams
from persona_rails.local_model.model import LocalModel, load_model

__all__ = ["LocalModel", "load_model", "text_features", "text_grams"]
