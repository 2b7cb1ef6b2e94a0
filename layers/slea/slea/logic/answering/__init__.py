"""Answering a question, one trip down and back (answer.py): read once, check the rules, grade,
explain, record in one transaction (Tool 6, the HTTP API and MCP share it)."""
