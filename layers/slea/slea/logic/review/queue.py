"""The review queue as a reviewer reads it: a page of open entries of both
kinds, filtered, searched and sorted, with a cursor to continue.

The two tables' queue indexes are read from where the cursor left each (DynamoDB's own
ExclusiveStartKey) and merged by queued_at (or, sorted by confidence, the attempts' confidence
index first, then the questions by queued_at: questions have no confidence, and a sort never
drops entries). The questions of a page's attempts are read in one BatchGetItem, not one read each.

Filters apply to what the indexes return, so the cursor continues after the last entry read,
matching or not: a filtered page may hold fewer than `limit` entries (even none) and still have a
next cursor. A filtered request reads each index up to FILTERED_READS times to fill its page."""

import base64
import binascii
import hashlib
import json
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from slea.constants import ID_MAX_LENGTH
from slea.contracts.common import ID_PATTERN
from slea.contracts.review import (
    AttemptsPosition,
    OverrideProposal,
    QuestionsPosition,
    QueueCursor,
    QueueSource,
    QueueView,
    Report,
    ReviewedAttempt,
    ReviewedQuestion,
    ReviewEntry,
    ReviewQueue,
    ReviewReason,
)
from slea.dal import review, sessions
from slea.dal.attempts import StoredAttempt
from slea.dal.question_records import StoredQuestion
from slea.language.shown_terms import whole_terms
from slea.logic.review.reasoning import reasoning_summary
from slea.platform.errors import Invalid
from slea.platform.observability import logger, tracer

REASONS = frozenset(get_args(ReviewReason))
# A page of the queue stays far below Lambda's 6 MB response: at most this many bytes as sent,
# of which QUEUE_ENVELOPE_BYTES are kept for `open` and the next cursor around the entries.
QUEUE_PAGE_MAX_BYTES = 1_000_000
QUEUE_ENVELOPE_BYTES = 8_192
# An entry's texts in the listing: a field at most TEXT_MAX characters (no contract allows a
# longer one), a text in a list at most LISTED_TEXT_MAX, a list at most LIST_MAX items. Items
# stored before the contracts had limits are cut to these, so one entry is at most ~800 KB as
# sent even if every text is non-ASCII (escaped to 6 bytes a character): it always fits a page.
TEXT_MAX, LISTED_TEXT_MAX, LIST_MAX = 4000, 500, 20
TRUNCATED = "… [truncated]"
# Reads of each index one filtered request may make (each of `limit` items): a bound on the
# work of a request whose filter matches little; the cursor carries the rest.
FILTERED_READS = 4
# What the review routes accept as an attempt or question id (functions/api/app.py ItemId).
_ACTIONABLE_ID = re.compile(ID_PATTERN)


def same_user(user_id: Any, reviewer: str) -> bool:
    """Subjects compare as Tool 1 keys profiles: a UUID in any case is one user."""
    return isinstance(user_id, str) and user_id.strip().casefold() == reviewer.strip().casefold()


# ---------------------------------------------------------------- entries
def _key_terms(keywords: list[str] | None, *texts: str | None) -> list[str] | None:
    """The keywords as whole terms of the texts they came from: the terms the learner's feedback
    names, never the bare stems the keyword matcher keeps ("덧붙이" is shown "덧붙이는")."""
    return whole_terms(keywords, [text for text in texts if text]) if keywords is not None else None


def _as_list(texts: tuple[str, ...] | None) -> list[str] | None:
    return None if texts is None else list(texts)


def reviewed_question(stored: StoredQuestion) -> ReviewedQuestion:
    key = stored.answer_schema
    return ReviewedQuestion(
        question_id=stored.question_id,
        session_id=stored.session_id,
        round=stored.round,
        type=stored.item_type or None,  # None, as before, for an item stored without one
        stem=stored.stem,
        choices=list(stored.choices or ()),
        correct_answer=key.correct_key,
        correct_keywords=_as_list(key.correct_keywords),
        key_terms=_key_terms(_as_list(key.correct_keywords), key.reference_answer, key.explanation, stored.stem),
        reference_answer=key.reference_answer,
        explanation=key.explanation,
        difficulty=stored.difficulty,
        category=stored.category,
        language=stored.language or "en",
        validation_score=key.validation_score,
        usage_count=stored.usage_count,
        correct_count=stored.correct_count,
        status=stored.status or "active",
        reports=[Report(reason=report.reason, at=report.at) for report in stored.reports],
        rested_at=stored.rested_at,
        rest_reason=stored.rest_reason,
    )


def _question_of(attempt: StoredAttempt, stored: StoredQuestion | None) -> ReviewedQuestion:
    """The attempt's question as stored, else what the attempt itself recorded of it (Tool 6 by
    direct invocation grades questions that were never saved)."""
    if stored is not None:
        return reviewed_question(stored)
    key = attempt.answer_key
    return ReviewedQuestion(
        question_id=attempt.question_id or "",
        session_id=attempt.session_id,
        round=attempt.round,
        type=attempt.question_type,
        correct_answer=key.correct_answer,
        correct_keywords=_as_list(key.correct_keywords),
        key_terms=_key_terms(_as_list(key.correct_keywords), key.reference_answer),
        reference_answer=key.reference_answer,
        difficulty=attempt.difficulty,
        language=attempt.language,
    )


def _attempt_entry(attempt: StoredAttempt, stored: StoredQuestion | None) -> ReviewEntry:
    proposal = attempt.proposal
    question = _question_of(attempt, stored)
    matched = _key_terms(list(attempt.keyword_matches), question.reference_answer, question.explanation)
    return ReviewEntry(
        entry_id=attempt.attempt_id or "",
        kind="attempt",
        source="grade",
        reasons=["override_proposed"] if proposal else ["needs_review"],
        queued_at=attempt.queued_at or attempt.graded_at,
        learner_id=attempt.user_id,
        session_id=attempt.session_id,
        round=attempt.round,
        question=question,
        attempt=ReviewedAttempt(
            attempt_id=attempt.attempt_id or "",
            session_id=attempt.session_id,
            user_answer=attempt.user_answer,
            score=attempt.score,
            is_correct=attempt.is_correct,
            confidence=attempt.confidence,
            reasoning=attempt.grader_reasoning,
            keyword_matches=matched or [],
            feedback=attempt.feedback,
            graded_at=attempt.graded_at,
            group_id=attempt.review_group,
            proposal=OverrideProposal.model_validate(proposal) if proposal is not None else None,
            reasoning_summary=reasoning_summary(attempt, question.correct_keywords, waiting=not proposal),
        ),
    )


def _question_entry(stored: StoredQuestion) -> ReviewEntry:
    reasons = [reason for reason in stored.review_reasons if reason in REASONS]
    source: QueueSource = "report" if "reported" in reasons else "item"
    session_id = stored.session_id
    return ReviewEntry(
        entry_id=stored.question_id,
        kind="question",
        source=source,
        reasons=reasons,
        queued_at=stored.queued_at or stored.created_at or "",
        session_id=session_id if session_id is not None and "#" not in session_id else None,
        round=stored.round,
        question=reviewed_question(stored),
    )


def _bounded(value: Any, in_list: bool = False) -> tuple[Any, bool]:
    """`value` with every text and list cut to the queue's bounds, and whether anything was cut.
    A text in a list (a choice, a keyword, a report) is bounded tighter than a field of its own."""
    if isinstance(value, str):
        most = LISTED_TEXT_MAX if in_list else TEXT_MAX
        return (value, False) if len(value) <= most else (value[:most] + TRUNCATED, True)
    if isinstance(value, list):
        parts = [_bounded(inner, in_list=True) for inner in value[:LIST_MAX]]
        return [part for part, _ in parts], len(value) > LIST_MAX or any(cut for _, cut in parts)
    if isinstance(value, dict):
        bounded = {name: _bounded(inner, in_list) for name, inner in value.items()}
        return {name: part for name, (part, _) in bounded.items()}, any(cut for _, cut in bounded.values())
    return value, False


def _listed(entry: ReviewEntry) -> ReviewEntry:
    bounded, truncated = _bounded(entry.model_dump(mode="json"))
    return ReviewEntry.model_validate({**bounded, "truncated": truncated})


def _size(entry: ReviewEntry) -> int:
    """Bytes of the entry in the response, measured as the API serialises it (non-ASCII escaped,
    so never fewer than its UTF-8 bytes)."""
    return len(json.dumps(entry.model_dump(mode="json"), separators=(",", ":"))) + 1  # and its comma


# ---------------------------------------------------------------- filters
def _searchable(text: str) -> str:
    """Compatibility forms and case folded, so a full-width "RAG" finds "rag" and "Straße" finds "STRASSE"."""
    return unicodedata.normalize("NFKC", text).casefold()


def matches(entry: ReviewEntry, view: QueueView) -> bool:
    question = entry.question
    wanted = (
        (view.source, entry.source),
        (view.item_type, question.type),
        (view.category, question.category),
        (view.language, question.language),
    )
    if any(want is not None and want != have for want, have in wanted):
        return False
    if view.q is None:
        return True
    texts = [question.stem or "", entry.attempt.user_answer if entry.attempt else ""]
    needle = _searchable(view.q)
    return any(needle in _searchable(text) for text in texts)


def view_digest(view: QueueView) -> str:
    """What a cursor was made for: empty for the default view (cursors made before views existed)."""
    if view == QueueView():
        return ""
    return hashlib.sha256(view.model_dump_json().encode()).hexdigest()[:16]


# ---------------------------------------------------------------- reading the indexes
# An open entry as its index gives it: an attempt's record or a question's.
type Queued = StoredAttempt | StoredQuestion
type Fetch = Callable[[dict[str, Any] | None], review.QueuePage[Any]]


@dataclass
class _Index:
    """One table's open entries as this request read them, and how many the page has used."""

    kind: Literal["attempt", "question"]
    fetch: Fetch
    page: review.QueuePage[Queued]
    reads_left: int
    by_confidence: bool
    used: int = 0
    questions: dict[str, StoredQuestion] = field(default_factory=dict)

    @property
    def waiting(self) -> Queued | None:
        return self.page.items[self.used] if self.used < len(self.page.items) else None

    @property
    def read_out(self) -> bool:
        """Everything read was used, the index may hold more, and this request may read no more."""
        return self.waiting is None and self.page.more and self.reads_left <= 0

    def refill(self) -> None:
        """Read the next items after the last one read, if all read are used and reads are left."""
        if self.waiting is not None or not self.page.more or self.reads_left <= 0 or not self.page.items:
            return  # (an empty read with more after it has no last key to continue from: the cursor does)
        last = self.page.items[-1] if self.page.items else None
        after = review.queue_key(last, by_confidence=self.by_confidence) if last is not None else None
        following = self.fetch(after)
        self.reads_left -= 1
        self.page = review.QueuePage(self.page.items + following.items, following.more)
        self.join()

    def join(self) -> None:
        """The stored questions of the attempts read (one BatchGetItem for those not yet read)."""
        if self.kind != "attempt":
            return
        missing = {item.question_id for item in self.page.items if isinstance(item, StoredAttempt) and item.question_id}
        missing -= set(self.questions)
        if missing:
            self.questions |= review.questions_by_id(sorted(missing))

    def entry(self, item: Queued) -> ReviewEntry | None:
        """The item's entry, or None if no reviewer's route could name it (legacy ids)."""
        entry_id = item.question_id if isinstance(item, StoredQuestion) else item.attempt_id
        if not isinstance(entry_id, str) or len(entry_id) > ID_MAX_LENGTH or not _ACTIONABLE_ID.match(entry_id):
            logger.warning("review entry skipped: its id cannot be acted on", extra={"kind": self.kind})
            return None
        if isinstance(item, StoredQuestion):
            return _question_entry(item)
        return _attempt_entry(item, self.questions.get(str(item.question_id)))


def _cursor(text: str | None, view: QueueView) -> QueueCursor:
    if not text:
        return QueueCursor()
    try:
        cursor = QueueCursor.model_validate_json(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (binascii.Error, ValueError) as error:  # pydantic's ValidationError is a ValueError
        raise Invalid("VALIDATION_ERROR", "cursor: not a cursor of the review queue") from error
    if cursor.view != view_digest(view):
        raise Invalid("VALIDATION_ERROR", "cursor: made for other filters or another sort; start without it")
    by_confidence = view.sort == "confidence"
    if cursor.attempts is not None and (cursor.attempts.confidence is not None) != by_confidence:
        raise Invalid("VALIDATION_ERROR", "cursor: not a cursor of this sort")
    return cursor


def _encoded(cursor: QueueCursor) -> str:
    return base64.urlsafe_b64encode(cursor.model_dump_json(exclude_defaults=True).encode()).decode().rstrip("=")


def _own_entries(reviewer: str | None) -> Callable[[Queued], bool]:
    """Whether a queued attempt or question is the reviewer's own (session owners read once each)."""
    owners: dict[str, str | None] = {}

    def is_own(item: Queued) -> bool:
        if reviewer is None:
            return False
        owner = item.authored_by if isinstance(item, StoredQuestion) else item.user_id
        if same_user(owner, reviewer):
            return True
        session_id = item.session_id
        if not isinstance(session_id, str) or "#" in session_id:  # authored items have no owner
            return False
        if session_id not in owners:
            owners[session_id] = sessions.owner_of(session_id)
        return same_user(owners[session_id], reviewer)

    return is_own


def _indexes(start: QueueCursor, limit: int, view: QueueView) -> tuple[_Index, _Index]:
    newest_first, by_confidence = view.sort == "queued_desc", view.sort == "confidence"
    reads = FILTERED_READS if view.filtering() else 1

    def attempts_after(after: dict[str, Any] | None) -> review.QueuePage[Any]:
        return review.open_attempts(limit, after, newest_first=newest_first, by_confidence=by_confidence)

    def questions_after(after: dict[str, Any] | None) -> review.QueuePage[Any]:
        return review.open_questions(limit, after, newest_first=newest_first)

    # Filtered to other sources, an index is not read at all. Sorted by confidence, questions
    # (which have no confidence, so are not in the attempts' confidence index) follow the attempts.
    skip_attempts = start.attempts_done or view.source in ("report", "item")
    skip_questions = start.questions_done or view.source == "grade"
    no_more: review.QueuePage[Queued] = review.QueuePage([], more=False)
    attempts = _Index(
        "attempt",
        attempts_after,
        no_more if skip_attempts else attempts_after(_key(start.attempts)),
        reads - 1,
        by_confidence,
    )
    attempts.join()
    questions = _Index(
        "question",
        questions_after,
        no_more if skip_questions else questions_after(_key(start.questions)),
        reads - 1,
        False,
    )
    return attempts, questions


def _next_of(attempts: _Index, questions: _Index, view: QueueView) -> _Index | None:
    """The index whose waiting entry comes next in the page's order."""
    ready = [index for index in (attempts, questions) if index.waiting is not None]
    if not ready:
        return None
    if view.sort == "confidence":  # the least sure grades first, then every question entry
        if attempts.waiting is not None:
            return attempts
        return questions if not attempts.page.more and questions.waiting is not None else None

    def when(index: _Index) -> str:
        return "" if index.waiting is None else index.waiting.queued_at or ""

    return max(ready, key=when) if view.sort == "queued_desc" else min(ready, key=when)


@tracer.capture_method
def review_queue(
    limit: int, cursor: str | None = None, reviewer: str | None = None, view: QueueView | None = None
) -> ReviewQueue:
    """Up to `limit` open entries matching `view` after `cursor`, in `view`'s order, in at most
    QUEUE_PAGE_MAX_BYTES; `next_cursor` continues where this page stopped.

    A page stops at `limit` entries, before the entry that would pass the byte bound, or where one
    index has been read out (what it holds next may come before anything left in the other).

    A reviewer is never shown their own entries (their attempts, items of their sessions or
    written by them): the entry holds the item's key, and they may not act on it anyway."""
    view = view or QueueView()
    start = _cursor(cursor, view)
    is_own = _own_entries(reviewer)
    attempts, questions = _indexes(start, limit, view)
    entries: list[ReviewEntry] = []
    size = QUEUE_ENVELOPE_BYTES
    while len(entries) < limit:
        attempts.refill()
        questions.refill()
        if attempts.read_out or questions.read_out:
            break
        index = _next_of(attempts, questions, view)
        if index is None:
            break
        item = index.waiting
        if item is None:
            break
        entry = index.entry(item)
        if entry is not None and not is_own(item) and matches(entry, view):
            listed = _listed(entry)
            cost = _size(listed)
            if entries and size + cost > QUEUE_PAGE_MAX_BYTES:
                break
            entries.append(listed)
            size += cost
        index.used += 1
    return ReviewQueue(
        entries=entries,
        open=review.count_open(),
        next_cursor=_following(start, attempts, questions, view),
    )


def _following(start: QueueCursor, attempts: _Index, questions: _Index, view: QueueView) -> str | None:
    attempts_done = attempts.waiting is None and not attempts.page.more
    questions_done = questions.waiting is None and not questions.page.more
    if attempts_done and questions_done:
        return None
    following = QueueCursor(
        attempts=_position(attempts, AttemptsPosition, view) or start.attempts,
        questions=_position(questions, QuestionsPosition, view) or start.questions,
        attempts_done=attempts_done,
        questions_done=questions_done,
        view=view_digest(view),
    )
    return _encoded(following)


def _key(position: AttemptsPosition | QuestionsPosition | None) -> dict[str, Any] | None:
    """The ExclusiveStartKey's attributes: the index's sort key and the table's key, no other."""
    if position is None:
        return None
    key = position.model_dump(exclude_none=True)
    if "confidence" in key:
        key.pop("queued_at")
    return key


def _position[PositionT: (AttemptsPosition, QuestionsPosition)](
    index: _Index, model: type[PositionT], view: QueueView
) -> PositionT | None:
    """The index key of the last item the page used from `index`, None if it used none."""
    if not index.used:
        return None
    last = index.page.items[index.used - 1]
    queued_at = last.queued_at or "-"  # confidence-sorted: not part of the key
    if isinstance(last, StoredQuestion):
        return model.model_validate({"queued_at": queued_at, "question_id": last.question_id})
    confidence = last.confidence if view.sort == "confidence" else None
    return model.model_validate(
        {"queued_at": queued_at, "session_id": last.session_id, "attempt_key": last.attempt_key}
        | ({"confidence": confidence} if confidence is not None else {})
    )
