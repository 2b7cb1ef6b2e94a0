"""Mode 1 rounds: planning (target difficulty, bank draw), collecting valid questions, finishing,
and the lifecycle a learner follows (claim, status, summary)."""
