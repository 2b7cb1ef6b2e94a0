"""What keeps a learner from computing what they must not know (ids, the order of choices)."""
