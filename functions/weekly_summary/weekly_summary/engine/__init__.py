"""Pure weekly-summary logic: ISO weeks in local time, rates, ties, trend, the insight sentence."""
