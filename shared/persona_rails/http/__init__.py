"""FastAPI plumbing shared by the HTTP functions: errors, dependencies, app and Lambda entry."""
