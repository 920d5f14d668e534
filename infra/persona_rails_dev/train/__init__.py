"""`make train`: the judges' local models, trained reproducibly from eval/<judge>/train.jsonl.

    python -m persona_rails_dev.train [JUDGE ...] [--check]

Each model is a logistic regression (fit.py) over the folded text's hashed n-grams and the
judge's rule features, computed by the same functions the shipped judge calls. Decision bounds
(the emergency judge's bands) are tuned on 5-fold out-of-fold predictions of the train split; the
test split is never read. The model file is written byte for byte the same on every run and
machine; `--check` trains in memory and fails if a shipped file differs.
"""
