"""InterceptSessionFunction: the app-open interception dialog (spec: intercept-session.md)."""
