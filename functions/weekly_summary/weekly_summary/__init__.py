"""WeeklySummaryFunction: each user's week of excuses, verdicts and compliance.

Spec: intercept-session.md, "Analytics & Telemetry" and "UI Flow Notes".
"""
