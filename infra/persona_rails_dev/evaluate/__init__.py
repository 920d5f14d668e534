"""`rails eval [JUDGE]`: how well each judge decides text it was not trained on (docs/judges.md)."""
