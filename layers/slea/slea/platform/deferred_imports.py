"""Every import the layer makes inside a function, and why it waits: each keeps a module a
handler's cold start does not need (a heavy library, or what only a rarer request uses) out of
that handler's import (tests/unit/platform/test_cold_import_paths.py asserts several of them).
Any other import belongs at the top of its module, where the call graph can be read;
tests/architecture/test_deferred_imports.py holds the layer to this list.

Keys are (the importing module, the module imported); nothing imports this module. The handlers'
own deferrals (functions/) are in HANDLER_DEFERRED_IMPORTS: a handler deciding what its cold start
leaves out is where such a decision belongs."""

DEFERRED_IMPORTS: dict[tuple[str, str], str] = {
    # Heavy libraries.
    ("slea.feedback.details", "rapidfuzz"): "only a short answer's feedback compares texts",
    ("slea.grading.semantic", "tokenizers"): "a compiled library, loaded with the word vectors",
    ("slea.grading.offline", "slea.grading"): "semantic: the word vectors' module, with the first short answer",
    ("slea.grading.relatedness", "slea.grading"): "semantic: the word vectors' module, with the first short answer",
    ("slea.http.api", "aws_lambda_powertools.event_handler.openapi.models"): "the OpenAPI models, for the schema only",
    ("slea.llm.provider_choice", "slea.llm.gemini"): "google-genai, only when Gemini is configured",
    ("slea.platform.aws", "aws_lambda_powertools.utilities"): "Powertools' parameters utility imports boto3",
    ("slea.security.exposure", "slea.security"): "key_leaks: saving a question uses only fingerprints",
    ("slea.security.key_leaks", "slea.grading.terms"): "the stemmer: Tool 6 loads the matcher, not its terms",
    # The offline provider loads each of its writers and graders with its first use.
    ("slea.llm.offline", "slea.llm.offline.drafts"): "the offline item writer",
    ("slea.llm.offline", "slea.llm.offline.semantic_review"): "Tool 4's offline semantic review",
    ("slea.llm.offline", "slea.llm.offline.short_answers"): "the offline short-answer grader",
    ("slea.llm.offline", "slea.feedback.offline_explanation"): "the offline explainer",
    # Short-answer grading: choices and true/false (most answers) never load it.
    ("slea.logic.answering.grading", "slea.logic.answering.short_answers"): "short-answer grading and its modules",
    ("slea.logic.generation.saving", "slea.grading.reference_prints"): "a short answer's print (the stemmer)",
    # Tool 4's rules: word lists load with the rules that need them.
    ("slea.authoring.item_rules", "slea.grading.terms"): "its word lists, for one rule",
    ("slea.authoring.item_rules", "slea.grading.evidence"): "its word lists, for two rules",
}


HANDLER_DEFERRED_IMPORTS: dict[tuple[str, str], str] = {
    # The HTTP API: the reviewers' routes and logic, and what only some learners' requests use.
    ("functions.api.app", "routers"): "the review routes, with a reviewer's first request",
    ("functions.api.routers.review", "slea.logic.review"): "the review logic, with a reviewer's first request",
    ("functions.api.routers.review", "slea.security.names"): "a reviewer's display name",
    ("functions.api.routers.learners", "slea.logic.learners.ability"): "the level panel's read",
    ("functions.api.routers.learners", "slea.logic.sessions.history"): "the learner's answers across sessions",
    ("functions.api.routers.sessions", "slea.logic.sessions"): (
        "what only some routes use: the skip count (progress), the grading path (answers), the key-leak"
        " matcher (attempt_list), the planner (placement_steps, summary) and the profile (summary)"
    ),
    # The MCP server: the tools only some callers use, and the SDK for the stdio server only.
    ("functions.mcp.app", "slea.logic"): "the authoring tools and the learner's own reads, with their first call",
    ("functions.mcp.app", "slea.logic.sessions"): (
        "the answer, skip, round and placement tools: the grading path, the skip count, the planner"
    ),
    ("functions.mcp.app", "anyio"): "the stdio server (the MCP SDK)",
    ("functions.mcp.app", "mcp_types"): "the stdio server (the MCP SDK)",
    ("functions.mcp.app", "mcp.server"): "the stdio server (the MCP SDK)",
    ("functions.mcp.app", "mcp.server.context"): "the stdio server (the MCP SDK)",
}
