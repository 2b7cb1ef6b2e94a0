"""The human review loop: the queue of provisional grades and doubtful questions, reviewers'
actions with their audit trail, and the item analysis."""
