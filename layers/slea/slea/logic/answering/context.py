"""What answering one question reads, read once: the question's session (one Query: the question
itself, the text shown to the learner, the items not yet answered) and, in one BatchGetItem, the
session's owner, this very attempt if it was recorded, the learner's ability, the bank item of a
drawn copy and the cached explanation of the outcome (dal/answer_reads.py).

A learner model that cannot be read never costs the grade: the answer is then recorded without
its ability update (`ability_unreadable`), as the recording step says.
"""

from dataclasses import dataclass, field, replace

from slea.contracts.llm import GradingItem
from slea.contracts.profile import normalised_user_id
from slea.contracts.scoring import ScoreAnswerInput
from slea.dal import answer_reads, attempts, questions
from slea.dal.answer_reads import AnswerReads, AnswerRecords
from slea.dal.question_records import StoredQuestion
from slea.logic.answering import grading
from slea.logic.answering.explaining import cache_variant
from slea.platform.errors import DataAccessError
from slea.platform.observability import logger
from slea.security.key_leaks import KeyedItem, unanswered_items


class GradeNotRecordedError(DataAccessError):
    """The grading could not be read for or stored; nothing was recorded, so the request can be
    retried."""


@dataclass(frozen=True)
class AnswerContext:
    """One answer and everything read for it (a value: reading it returns a new one)."""

    request: ScoreAnswerInput
    stored: StoredQuestion | None  # the question as saved by Tool 5 (None if it never was)
    attempt_key: str
    item: GradingItem
    unanswered: list[KeyedItem] = field(default_factory=list)
    # A short answer: the session's questions, whose other short-answer references an answer
    # agreeing with better than with its own is not correct (short_answers.py).
    session: tuple[StoredQuestion, ...] = ()
    records: AnswerRecords = field(default_factory=AnswerRecords)
    ability_unreadable: bool = False

    @property
    def category(self) -> str | None:
        category = self.request.category or (self.stored.category if self.stored else None)
        return str(category) if category else None

    @property
    def bank_item_id(self) -> str | None:
        """The bank item a drawn copy stands for (None: the question is its own item, or unsaved)."""
        item_id = self.stored.item_id if self.stored else None
        return item_id if item_id and self.stored and item_id != self.stored.question_id else None

    @property
    def bank_item(self) -> StoredQuestion | None:
        if self.stored is None:
            return None
        return self.records.bank_item if self.bank_item_id else self.stored

    @property
    def exemplar_item_id(self) -> str | None:
        """The bank item whose reviewed answers a short answer is compared with (a drawn copy's
        item, else the stored question itself)."""
        if self.request.question_type != "short_answer" or self.stored is None:
            return None
        return self.bank_item_id or self.stored.question_id or None

    @property
    def own_items(self) -> tuple[str, ...]:
        """The ids the question's own reference print is kept under (the bank item and this copy)."""
        if self.stored is None:
            return ()
        return tuple(found for found in (self.stored.question_id, self.stored.item_id) if found)

    @property
    def cacheable(self) -> bool:
        """Only stored MC/TF questions have their explanations cached: their content is fixed."""
        return self.request.question_type != "short_answer" and self.stored is not None


def in_session(session: list[StoredQuestion], question_id: str) -> StoredQuestion | None:
    return next((question for question in session if question.question_id == question_id), None)


def session_of(session_id: str | None) -> list[StoredQuestion]:
    """The stored question's session (one Query). Without it the unanswered items' keys are
    unknown, and an explanation is never shown unchecked: GradeNotRecordedError."""
    if not session_id:
        return []
    try:
        return questions.session_questions(session_id)
    except DataAccessError as error:
        logger.error("session questions unavailable, the answer is not graded", extra={"reason": str(error)})
        raise GradeNotRecordedError(str(error)) from error


def _shown_to_learner(stored: StoredQuestion, session: list[StoredQuestion]) -> list[str]:
    """The stems and choices of the question's session, as GET /questions shows them: text the
    learner could paste, which is no evidence of knowing the answer."""
    texts: list[str] = []
    for question in session:
        if question.question_id != stored.question_id:
            texts.append(question.stem)
        texts.extend(question.choices or ())
    return texts


def prepare(request: ScoreAnswerInput, stored: StoredQuestion | None, session: list[StoredQuestion]) -> AnswerContext:
    """The answer as the grader will see it, before the BatchGetItem. A choice is graded here
    (pure: the key decides), so the cached explanation of its outcome is read with the rest."""
    short = stored is not None and stored.item_type == "short_answer"
    shown = _shown_to_learner(stored, session) if short and stored is not None else []
    context = AnswerContext(
        request=request,
        stored=stored,
        attempt_key=attempts.attempt_key(request.question_id, request.identity()),
        item=grading.grading_item(request, stored, shown),
        unanswered=unanswered_items(session, answering=request.question_id) if stored is not None else [],
        session=tuple(session) if request.question_type == "short_answer" else (),
    )
    if not context.cacheable:
        return context
    return replace(context, item=context.item.model_copy(update={"is_correct": grading.keyed_outcome(context.item)}))


def reads_for(context: AnswerContext, session_id: str | None) -> AnswerReads:
    request = context.request
    return AnswerReads(
        session_id=session_id,
        attempt_key=(request.session_id, context.attempt_key),
        ability=(normalised_user_id(request.user_id), context.category) if context.category else None,
        bank_item_id=context.bank_item_id,
        explanation=(request.question_id, cache_variant(context.item)) if context.cacheable else None,
        exemplars_of=context.exemplar_item_id,
        prints_of=context.category if context.exemplar_item_id else None,
    )


def read(context: AnswerContext, session_id: str | None = None) -> AnswerContext:
    """The context with its `records`, read in one BatchGetItem (`session_id`: also read the
    session's owner). If DynamoDB fails the call, it is made once more without the learner model:
    the grade is then recorded without its ability update rather than refused."""
    reads = reads_for(context, session_id)
    unreadable = context.ability_unreadable
    try:
        records = answer_reads.read(reads)
    except DataAccessError as error:
        if reads.ability is None and reads.bank_item_id is None:
            raise
        logger.error("learner model unreadable, the grade is recorded without it", extra={"reason": str(error)})
        records = answer_reads.read(
            AnswerReads(
                reads.session_id, reads.attempt_key, None, None, reads.explanation, reads.exemplars_of, reads.prints_of
            )
        )
        unreadable = True
    unanswered = records.unanswered
    if unanswered & {"session", "attempt"}:
        raise DataAccessError(f"answer reads unprocessed: {', '.join(sorted(unanswered))}")
    unreadable = unreadable or bool(unanswered & {"ability", "bank_item"})
    return replace(context, records=records, ability_unreadable=unreadable)
