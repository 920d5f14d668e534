"""Precision, recall and F1 per label, and the confusion matrix, of (expected, decided) pairs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def scores(pairs: Iterable[tuple[str, str]], labels: Sequence[str]) -> dict[str, Any]:
    """`labels` in the matrix's order; rows are the expected label, columns the decided one."""
    pairs = list(pairs)
    matrix = {expected: dict.fromkeys(labels, 0) for expected in labels}
    for expected, outcome in pairs:
        matrix[expected][outcome] += 1
    per_label = {}
    for label in labels:
        true_positive = matrix[label][label]
        decided = sum(matrix[other][label] for other in labels)
        support = sum(matrix[label].values())
        precision = true_positive / decided if decided else 0.0
        recall = true_positive / support if support else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_label[label] = {
            "precision": round(precision, 4),
            "recall": round(recall, 4),
            "f1": round(f1, 4),
            "support": support,
        }
    correct = sum(matrix[label][label] for label in labels)
    return {
        "cases": len(pairs),
        "accuracy": round(correct / len(pairs), 4) if pairs else 0.0,
        "labels": per_label,
        "confusion": [[matrix[expected][decided] for decided in labels] for expected in labels],
    }
