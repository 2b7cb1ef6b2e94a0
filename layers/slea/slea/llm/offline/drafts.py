"""The offline provider's item writing: the offline generator's drafts, drawn with a keyed random
generator (loaded by the provider's first `generate_questions`, with the item writer)."""

from slea.authoring.offline_generator import generate_offline
from slea.contracts.generation import DraftBatch, GenerateQuestionsInput
from slea.llm.provider import llm_call
from slea.security.ids import keyed_random


def draft_batch(request: GenerateQuestionsInput, count: int, provider: str) -> DraftBatch:
    """`count` drafts for the request, timed and counted as the provider's "generate" call."""
    # Deterministic per (session, round, attempt) for a retried step, yet not replayable by a
    # learner who knows them and reads this code: the draws are keyed under the secret.
    rng = keyed_random(
        "offline-generator",
        request.session_id,
        request.round,
        request.attempt,
        request.difficulty,
        request.category,
    )
    with llm_call("generate", provider):
        return DraftBatch(questions=generate_offline(request, count, rng))
