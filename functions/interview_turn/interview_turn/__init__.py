"""InterviewTurnFunction: the memoir interviewer's control plane (router, depth governor, safety overlay)."""
