"""The learner: their latest profile (Tool 1) and their measured ability as they see it."""
