"""The standardized-patient engine (spec: sps-interaction.md): pure and deterministic.

No I/O, no clock, no environment: the scenario, the persona and the policy are passed in, and
every random choice is drawn from the encounter's xorshift32 state, so the same seed, scenario
and learner turns give the same transcript and meta.
"""
