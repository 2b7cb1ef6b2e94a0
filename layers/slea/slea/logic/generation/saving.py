"""Tool 5: save validated questions; a failed write puts the whole question on the SQS retry
queue (drained by the retry worker), so nothing is ever lost."""

from collections.abc import Mapping
from typing import Any

from slea.constants import REVISE_THRESHOLD
from slea.contracts.questions import (
    RetryMessage,
    SaveQuestionInput,
    SaveQuestionQueued,
    SaveQuestionResult,
    SaveQuestionSaved,
    SaveQuestionsBatchInput,
    SaveQuestionsBatchResult,
    SaveQuestionWithdrawn,
    parse_round_id,
)
from slea.dal import bank, questions, reference_prints, retry_queue
from slea.platform.clock import utc_now
from slea.platform.errors import Conflict, DataAccessError
from slea.platform.observability import logger, metrics, tracer
from slea.platform.settings import resource_name
from slea.security import exposure, ids

REVISE_LOW, REVISE_HIGH = REVISE_THRESHOLD
REPEATS_WITHDRAWN = "repeats a question withdrawn from the bank"


class RepeatsWithdrawn(Conflict):
    """The question's stem and key are those of a bank item withdrawn from the bank (retired or
    rested): saved as its copy it would show that item again, so nothing is written. Not a
    storage failure: a retry would find the same, so it is never queued."""

    def __init__(self, owner: str) -> None:
        super().__init__("REPEATS_WITHDRAWN", REPEATS_WITHDRAWN)
        self.owner = owner


def question_item(
    request: SaveQuestionInput, question_id: str, created_at: str, placement: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The stored question (every field Tool 5 saves), answer key inside answer_schema.
    `placement` overrides where it is kept (an author's item: outside every session)."""
    session_id, round_number = parse_round_id(request.round_id)
    answer: dict[str, Any] = (
        {"correct_keywords": request.correct_keywords}
        if request.item_type == "short_answer"
        else {"correct_key": request.correct_key}
    )
    if request.reference_answer and request.reference_answer.strip():
        answer["reference_answer"] = request.reference_answer.strip()
    # With the key, never shown before the answer: what Tool 6 cites and says of a wrong pick.
    if request.sources:
        answer["sources"] = [source.model_dump() for source in request.sources]
    if request.choice_notes and request.item_type == "multiple_choice":
        answer["choice_notes"] = [note.model_dump() for note in request.choice_notes]
    # Tool 4's "revise" band: good enough to use, worth a reviewer's look.
    revise = request.validation_score is not None and REVISE_LOW <= request.validation_score < REVISE_HIGH
    language = request.language or "en"
    # Only a validated question of a learner's round joins the bank's index at once: one waiting for
    # a reviewer (revise, an author's) or never validated is a bank item that cannot be drawn yet.
    drawable = placement is None and request.validation_score is not None and not revise
    # Written for an account farm's round: a bank item (its fingerprint is claimed) that rests at once.
    rested = {"rested_at": created_at, "rest_reason": request.rest_reason} if request.rest_reason else {}
    return {
        **rested,
        **(questions.queue_fields("revise", created_at) if revise else {}),
        **questions.bank_fields(question_id, request.difficulty, language, request.topics),
        **({"bank_key": questions.bank_key(request.categories[0], language)} if drawable and not rested else {}),
        "question_id": question_id,
        "session_id": session_id,
        "round": round_number,
        "round_id": request.round_id,
        "item_type": request.item_type,
        "stem": request.stem,
        "choices": request.choices,
        "answer_schema": {**answer, "validation_score": request.validation_score, "explanation": request.explanation},
        "difficulty": request.difficulty,
        "category": request.categories[0],
        "categories": request.categories,
        "created_at": created_at,
        **(placement or {}),
    }


# What makes a saved question a bank item of its own; a copy of another bank item has none of it.
OWN_ITEM_FIELDS = ("bank_key", "difficulty_b", "difficulty_precision", "item_answers", "topics")


def as_copy_of(item: dict[str, Any], owner: str) -> dict[str, Any]:
    """`item` as a copy of the bank item `owner` (as a drawn copy is: `item_id` = the original's):
    the learner's round keeps its question, and its answers calibrate the one item."""
    copy = {name: value for name, value in item.items() if name not in OWN_ITEM_FIELDS}
    return {**copy, "item_id": owner}


def store(request: SaveQuestionInput, question_id: str, placement: Mapping[str, Any] | None = None) -> str:
    """Write the question once (idempotent: a repeat of the same save is a success). Returns the
    time it was saved; raises DataAccessError if DynamoDB failed after its retries, ValueError if
    the id already belongs to a different question.

    The question joins the bank with its fingerprint (its stem and key) in one transaction
    (dal/bank.py `join`). If another bank item has that stem and key already (saved by another
    round, concurrently or long ago, retired or not), the bank keeps that one: this question is
    saved as a copy of it, so the round keeps its question and the item is calibrated in one
    place; a retired item's stem and key do not come back into the bank under a new id. A copy
    saved for an account farm's round (`rest_reason`) rests the item it copies, as a draw for the
    farm would have. If that item was withdrawn (retired or rested), a copy would show it again:
    nothing is written and RepeatsWithdrawn is raised (the item is read only on this path)."""
    saved_at = utc_now()
    item = question_item(request, question_id, saved_at, placement)
    joined = bank.join(item, exposure.bank_fingerprint(exposure.stored_item(item)))
    existing = joined.existing
    if joined.owner is not None:
        if bank.withdrawn(joined.owner):
            logger.warning("stem and key of a withdrawn bank item: not saved", extra={"item_id": joined.owner})
            metrics.add_metric(name="QuestionsRepeatingWithdrawn", unit="Count", value=1)
            raise RepeatsWithdrawn(joined.owner)
        logger.info("stem and key already in the bank: saved as a copy", extra={"item_id": joined.owner})
        metrics.add_metric(name="QuestionsSavedAsCopies", unit="Count", value=1)
        existing = questions.put_new_question(as_copy_of(item, joined.owner))
        if request.rest_reason:  # a farm's round shows the owner's stem and key: it rests as if drawn
            bank.rest_repeated_for_farm(joined.owner, saved_at)
    elif existing is None:
        _leave_print(request, question_id)
    if existing is not None:
        if any(
            existing.get(field) != item[field]
            for field in ("round_id", "item_type", "stem", "choices", "answer_schema")
        ):
            raise ValueError(f"question_id {question_id} already belongs to a different question")
        logger.info("question was already saved by an earlier attempt", extra={"question_id": question_id})
    return saved_at


def _leave_print(request: SaveQuestionInput, question_id: str) -> None:
    """A new short-answer bank item leaves its reference's print in its category's record, so an
    answer to another item that pastes this reference is recognised (grading/reference_prints.py).
    The reference is the one `question_item` keeps: the request's, stripped, if it is not blank."""
    reference = (request.reference_answer or "").strip()
    if request.item_type != "short_answer" or not reference:
        return
    from slea.grading.reference_prints import sketch  # noqa: PLC0415 - short answers only

    reference_prints.add(request.categories[0], question_id, sketch(reference))


def question_id_of(request: SaveQuestionInput) -> str:
    """The caller's id (Mode 1 fixes one per draft when it is generated), else the keyed id of the
    question itself: a retry of the same direct save targets the same item, a different question
    never does, and without the deployment's secret the id says nothing about the answer key."""
    return request.question_id or ids.keyed_uuid("question", *request.identity())


@tracer.capture_method
def save_generated_question(request: SaveQuestionInput) -> SaveQuestionResult:
    question_id = question_id_of(request)
    try:
        saved_at = store(request, question_id)
    except RepeatsWithdrawn as refused:
        return SaveQuestionWithdrawn(round_id=request.round_id, saved_at=utc_now(), error=refused.message)
    except DataAccessError as error:
        queued_at = utc_now()
        message = RetryMessage(question_id=question_id, question=request, error=str(error), queued_at=queued_at)
        # Raises QueueUnavailableError if SQS is unreachable too: never drop a question silently.
        retry_queue.send(resource_name(retry_queue.QUEUE_VARIABLE), message.model_dump(mode="json"))
        logger.warning(
            "question save failed, queued for retry", extra={"question_id": question_id, "reason": str(error)}
        )
        metrics.add_metric(name="QuestionsQueuedForRetry", unit="Count", value=1)
        return SaveQuestionQueued(round_id=request.round_id, saved_at=queued_at, error=str(error))
    metrics.add_metric(name="QuestionsSaved", unit="Count", value=1)
    return SaveQuestionSaved(question_id=question_id, round_id=request.round_id, saved_at=saved_at)


@tracer.capture_method
def save_generated_questions(batch: SaveQuestionsBatchInput) -> SaveQuestionsBatchResult:
    """Each question is written (or queued) on its own: one failure never blocks the others."""
    results = [save_generated_question(question) for question in batch.questions]
    saved = sum(result.success for result in results)
    queued = sum(isinstance(result, SaveQuestionQueued) for result in results)
    return SaveQuestionsBatchResult(
        results=results, saved=saved, queued_for_retry=queued, withdrawn=len(results) - saved - queued
    )


@tracer.capture_method
def save_from_retry_queue(message: RetryMessage) -> None:
    """The retry worker's unit of work; raises so SQS redelivers (and finally dead-letters). A
    question that repeats a withdrawn bank item is dropped (deleted from the queue): redelivered,
    it would be refused the same way."""
    try:
        store(message.question, message.question_id)
    except RepeatsWithdrawn:
        # `store` counted it (QuestionsRepeatingWithdrawn); the message is deleted, not redelivered.
        logger.warning(
            "queued question repeats a withdrawn bank item: dropped", extra={"question_id": message.question_id}
        )
        return
    metrics.add_metric(name="QuestionsSavedOnRetry", unit="Count", value=1)
