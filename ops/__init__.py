"""Operator commands, outside the Lambda layer: loading seed data and the retry queue's admin
(`slea-seed`, `slea-retry-queue`). They share cli.py's region, stack and one-line errors."""
