"""Learner turns of the chest-pain case, by what they exercise, and a long seeded encounter drawn
from them: what the variation tests share."""

from __future__ import annotations

import random

from tests.unit.sps_encounter.support import catalog_case, encounter

OPEN_FACTS = [
    "What does the pain feel like?",
    "When did it start?",
    "Tell me about your work.",
    "What are you worried about?",
    "Where is the pain?",
    "What makes it better?",
]
MIXED = [
    *OPEN_FACTS,
    "What brings you in today?",
    "Does it go anywhere?",
    "Any other symptoms?",
    "Any medical problems?",
    "Do you take any medications?",
    "Any allergies?",
    "Any family history?",
    "Do you smoke?",
    "Do you drink alcohol?",
    "Tell me more.",
    "Anything else?",
    "That sounds really hard.",
    "Just answer yes or no.",
    "Can you do some push-ups for me?",
    "What's your date of birth?",
    "Are you under a lot of pressure?",
    "I mean, how does the pain in your chest feel?",
    "I'll check your blood pressure.",
    "What is your pulse?",
    "Have you travelled recently?",
    "Describe the pain.",
]


def long_run(persona: str, seed: int, turns: int = 300):
    """An encounter of `turns` learner turns drawn (seeded) from MIXED."""
    played = encounter(catalog_case(persona=persona), seed)
    pick = random.Random(seed)
    for _ in range(turns):
        played.say(pick.choice(MIXED))
    return played
