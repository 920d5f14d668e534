"""SpsEncounterFunction: the standardized-patient runtime and transcript validator."""
