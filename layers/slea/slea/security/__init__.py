"""What keeps a learner from computing what they must not know (keyed ids, key leaks), what
one user may ask per second (rate limits), and who may do what (roles)."""
