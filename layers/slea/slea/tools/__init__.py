"""The six tools of the specification, one module each, named as the spec names them:
get_user_profile (Tool 1), search_question_templates (2), get_difficulty_keywords (3),
validate_question_quality (4), save_generated_question (5) and score_and_explain (6).

Each module is the tool's public entry, what its handler in functions/<tool>/app.py calls: the
parsed input contract in, the output contract out, in one call; the behaviour lives in logic/
(which also serves Mode 1, the HTTP API and the MCP server, and so never imports from here)."""
