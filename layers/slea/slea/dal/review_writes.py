"""The human review loop's writes: each action's Update of an attempt or a question, with the
condition that applies it only to the item as the reviewer read it. The use cases
(slea.logic.review) decide what changes and commit these items, with the audit record and the
counters, in one transaction (slea.dal.review.commit); the fields, expressions and conditions are
named here only.

An entry leaves the review queue by losing `review_state` and `queued_at` (the keys of the
sparse `review-queue` index, slea.dal.review) and rejoins it by getting them back.

The questions' writes take StoredQuestion records (slea.dal.question_records) and a question's
new text as a QuestionText: its answer_schema map is built here, from the one stored. The
attempts' writes take StoredAttempt records (slea.dal.attempts) and a proposal as an
AttemptProposal, its map built here."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from slea.dal.attempts import AttemptProposal, StoredAttempt
from slea.dal.question_records import StoredQuestion
from slea.dal.questions import bank_key
from slea.dal.review import ATTEMPTS_TABLE, OPEN, QUESTIONS_TABLE, QueuePlace, Rest, ReviewRecord, update

QUEUE_FIELDS = "review_state, queued_at"  # removed: out of the review queue
# An attempt's review fields, as a review finds them and as undoing it puts them back.
REVIEW_FIELDS = ("reviewed", "reviewed_by", "reviewed_by_name", "reviewed_at", "review_action", "review_note")
_STATUS = {"#status": "status"}  # `status` is a DynamoDB reserved word


@dataclass(frozen=True)
class Stamp:
    """Who reviewed (their id and the name shown), when, and with which action: the reviewed
    item's reviewed_by, reviewed_by_name, reviewed_at and review_action."""

    by: str
    by_name: str
    at: str
    action: str


def review_fields(attempt: StoredAttempt) -> dict[str, Any]:
    """The attempt's REVIEW_FIELDS as stored (None: it has no such field), as undoing a review
    puts them back."""
    found = (
        attempt.reviewed,
        attempt.reviewed_by,
        attempt.reviewed_by_name,
        attempt.reviewed_at,
        attempt.review_action,
        attempt.review_note,
    )
    return dict(zip(REVIEW_FIELDS, found, strict=True))


def _attempt_key(attempt: StoredAttempt) -> dict[str, Any]:
    return {"session_id": attempt.session_id, "attempt_key": attempt.attempt_key}


def _bank_key_of(question: StoredQuestion) -> str:
    return bank_key(question.category or "general", question.language or "en")


@dataclass(frozen=True, slots=True)
class QuestionText:
    """A question's stem, choices (None: none, or left as they are) and answer_schema (the map
    written: its key, and the rest of the stored one) as an edit or its undo writes them."""

    stem: str | None
    choices: list[str] | None
    answer_schema: Mapping[str, Any]

    @property
    def correct_key(self) -> Any:
        return self.answer_schema.get("correct_key")

    @property
    def correct_keywords(self) -> Any:
        return self.answer_schema.get("correct_keywords")


def edited_text(
    question: StoredQuestion,
    stem: str,
    choices: Sequence[str] | None,
    *,
    correct_key: str | None = None,
    correct_keywords: Sequence[str] | None = None,
    short_answer: bool = False,
) -> QuestionText:
    """The question's text as an edit writes it: the new stem and choices, and its stored
    answer_schema with its key (keywords for a short answer) replaced."""
    answer = dict(question.answer_schema.as_stored)
    if short_answer:
        answer["correct_keywords"] = correct_keywords
    else:
        answer["correct_key"] = correct_key
    return QuestionText(stem, None if choices is None else list(choices), answer)


def restored_text(
    question: StoredQuestion,
    stem: str | None,
    choices: Sequence[str] | None,
    *,
    correct_key: str | None,
    correct_keywords: Sequence[str] | None,
) -> QuestionText:
    """The question's text as undoing an edit writes it back: `stem`, `choices` (None: its own)
    and its stored answer_schema with the key and keywords given (None: neither kept)."""
    answer = {
        name: value
        for name, value in question.answer_schema.as_stored.items()
        if name not in {"correct_key", "correct_keywords"}
    }
    if correct_key is not None:
        answer["correct_key"] = correct_key
    if correct_keywords is not None:
        answer["correct_keywords"] = list(correct_keywords)
    kept = list(choices) if choices is not None else (None if question.choices is None else list(question.choices))
    return QuestionText(stem, kept, answer)


# ---------------------------------------------------------------- attempts
def apply_grade(
    attempt: StoredAttempt,
    stamp: Stamp,
    *,
    score: int,
    is_correct: bool,
    counted: int,
    note: str | None = None,
    clear_pending: bool = False,
    first_review: bool = False,
    proposed_at: str | None = None,
) -> dict[str, Any]:
    """The attempt reviewed at `score`: its first grade kept as original_score, the ability now
    counting the reviewed score (`ability_score`), out of the queue; `note`: the learner's
    review_note; `clear_pending`: no longer counted in its ability's pending_review.

    Applied only if the grade the reviewer saw (the attempt's score and is_correct) is still the
    grade and the ability still counts `counted`: two reviews (two accepts included) never both
    apply. `first_review`: only if no review has been applied yet. `proposed_at`: a confirmed
    proposal, applied only if it is still the one pending (and removed with it); without it,
    only if no proposal is pending."""
    previous, was_correct = attempt.score, attempt.is_correct
    values: dict[str, Any] = {
        ":score": score,
        ":correct": is_correct,
        ":previous": previous,
        ":was_correct": was_correct,
        ":true": True,
        ":false": False,
        ":by": stamp.by,
        ":by_name": stamp.by_name,
        ":at": stamp.at,
        ":action": stamp.action,
        ":counted": counted,
    }
    setting = (
        "SET score = :score, is_correct = :correct, original_score = if_not_exists(original_score, :previous), "
        "reviewed = :true, needs_review = :false, reviewed_by = :by, reviewed_by_name = :by_name, "
        "reviewed_at = :at, review_action = :action, ability_score = :score"
    )
    if clear_pending:
        setting += ", ability_pending = :false"
    if note:
        setting += ", review_note = :note"
        values[":note"] = note
    condition = (
        "score = :previous AND is_correct = :was_correct "
        "AND (attribute_not_exists(ability_score) OR ability_score = :counted)"
    )
    if first_review:
        condition += " AND (attribute_not_exists(reviewed) OR reviewed = :false)"
    removing = f"REMOVE {QUEUE_FIELDS}"
    if proposed_at is not None:
        condition += " AND proposal.#at = :proposed_at"
        values[":proposed_at"] = proposed_at
        removing += ", proposal"
    else:
        condition += " AND attribute_not_exists(proposal)"
    names = {"#at": "at"} if proposed_at is not None else None
    return update(ATTEMPTS_TABLE, _attempt_key(attempt), f"{setting} {removing}", condition, values, names=names)


def propose_grade(attempt: StoredAttempt, proposal: AttemptProposal) -> dict[str, Any]:
    """A proposed change to the attempt's final grade kept on it (`proposal`), the attempt back in
    the queue (from when it was proposed) for a second reviewer; only if its grade is as read and
    no proposal is pending."""
    stored = {
        "score": proposal.score,
        "by": proposal.by,
        "by_name": proposal.by_name,
        "at": proposal.at,
        "note": proposal.note,
    }
    return update(
        ATTEMPTS_TABLE,
        _attempt_key(attempt),
        "SET proposal = :proposal, review_state = :open, queued_at = :at",
        "score = :previous AND is_correct = :was_correct AND attribute_not_exists(proposal)",
        {
            ":proposal": stored,
            ":open": OPEN,
            ":at": proposal.at,
            ":previous": attempt.score,
            ":was_correct": attempt.is_correct,
        },
    )


def reject_proposal(attempt: StoredAttempt, proposed_at: str) -> dict[str, Any]:
    """The attempt's proposal dropped and the attempt out of the queue, its grade as it was; only
    if the proposal made at `proposed_at` is still the one pending."""
    return update(
        ATTEMPTS_TABLE,
        _attempt_key(attempt),
        f"REMOVE proposal, {QUEUE_FIELDS}",
        "proposal.#at = :proposed_at",
        {":proposed_at": proposed_at},
        names={"#at": "at"},
    )


def revert_accept(
    attempt: StoredAttempt, accepted_by: str, *, requeue_at: str | None = None, restore_pending: bool = False
) -> dict[str, Any]:
    """A bulk accept of the attempt undone: unreviewed again; `requeue_at`: waiting again (a
    provisional grade) in the queue at that time; `restore_pending`: counted again in its
    ability's pending_review. Only if it is still as the bulk left it: accepted by
    `accepted_by`, at the grade read."""
    values: dict[str, Any] = {":false": False, ":accept": "accept", ":by": accepted_by, ":score": attempt.score}
    reopening = ""
    if requeue_at is not None:
        reopening = ", needs_review = :true, review_state = :open, queued_at = :queued"
        values |= {":true": True, ":open": OPEN, ":queued": requeue_at}
    if restore_pending:
        reopening += ", ability_pending = :true"
        values[":true"] = True
    return update(
        ATTEMPTS_TABLE,
        _attempt_key(attempt),
        f"SET reviewed = :false{reopening} REMOVE reviewed_by, reviewed_by_name, reviewed_at, review_action",
        "review_action = :accept AND reviewed_by = :by AND score = :score",
        values,
    )


@dataclass(frozen=True)
class GradeBefore:
    """An attempt's grade and review fields as a review found them (its audit record's `before`),
    which undoing the review puts back."""

    score: int
    is_correct: bool
    needs_review: bool
    counted: int  # the score its ability counted
    review: Mapping[str, Any]  # REVIEW_FIELDS as they were (None: the attempt had no such field)
    had_original_score: bool = True

    @property
    def reviewed(self) -> bool:
        """The attempt had been reviewed before (its grade was final)."""
        return bool(self.review.get("reviewed"))


def grade_before(record: ReviewRecord) -> GradeBefore:
    """The grade and review fields the review `record` found (its `before`)."""
    before = record.before or {}
    score, needs_review = int(before["score"]), bool(before.get("needs_review"))
    previous = before.get("review") or {}
    # Records written before they kept the counted score: a provisional grade counted 0.
    unreviewed = needs_review and not previous.get("reviewed")
    counted = int(before["counted"]) if "counted" in before else (0 if unreviewed else score)
    return GradeBefore(
        score=score,
        is_correct=bool(before["is_correct"]),
        needs_review=needs_review,
        counted=counted,
        review=previous,
        had_original_score=bool(before.get("had_original_score", True)),
    )


def undo_grade(
    attempt: StoredAttempt,
    undone: ReviewRecord,
    before: GradeBefore,
    *,
    now_counted: int,
    requeue_at: str | None = None,
    restore_pending: bool = False,
) -> dict[str, Any]:
    """The attempt put back as the review `undone` (its audit record) found it: `before`;
    `requeue_at`: a provisional grade again, back in the queue at that time; `restore_pending`:
    counted again in its ability's pending_review. Only if it is still as that review left it:
    no later review, proposal or re-scoring in between (its ability still counts `now_counted`)."""
    values: dict[str, Any] = {
        ":score": before.score,
        ":correct": before.is_correct,
        ":needs": before.needs_review,
        ":counted": before.counted,
        ":reviewed": before.reviewed,
        ":at": undone.at,
        ":action": undone.action,
        ":now_score": attempt.score,
        ":now_counted": now_counted,
    }
    setting = [
        "score = :score",
        "is_correct = :correct",
        "needs_review = :needs",
        "ability_score = :counted",
        "reviewed = :reviewed",
    ]
    removing: list[str] = []
    for field in REVIEW_FIELDS[1:]:
        if before.review.get(field) is not None:
            setting.append(f"{field} = :{field}")
            values[f":{field}"] = before.review[field]
        else:
            removing.append(field)
    if not before.had_original_score:
        removing.append("original_score")
    if requeue_at is not None:
        setting += ["review_state = :open", "queued_at = :queued"]
        values |= {":open": OPEN, ":queued": requeue_at}
    if restore_pending:
        setting.append("ability_pending = :pending")
        values[":pending"] = True
    return update(
        ATTEMPTS_TABLE,
        _attempt_key(attempt),
        f"SET {', '.join(setting)}" + (f" REMOVE {', '.join(removing)}" if removing else ""),
        "reviewed_at = :at AND review_action = :action AND score = :now_score "
        "AND attribute_not_exists(proposal) "
        "AND (attribute_not_exists(ability_score) OR ability_score = :now_counted)",
        values,
    )


def adjust_correct_count(question_id: str, *, now_correct: bool) -> dict[str, Any]:
    """The question's correct_count, one more (an answer now correct) or one fewer."""
    return update(
        QUESTIONS_TABLE,
        {"question_id": question_id},
        "ADD correct_count :change",
        "attribute_exists(question_id)",
        {":change": 1 if now_correct else -1},
    )


# ---------------------------------------------------------------- questions
def resolve_question(
    stored: StoredQuestion,
    stamp: Stamp,
    *,
    refuse_retired: bool = False,
    retire: bool = False,
    into_bank: bool = False,
    unrest: bool = False,
    text: QuestionText | None = None,
) -> dict[str, Any]:
    """The question reviewed (accepted, retired or edited): stamped, out of the queue, its
    reports cleared. `refuse_retired`: only if it is not retired meanwhile; `retire`: retired
    (under its category) and out of the question bank's index; `into_bank`: in the bank's index
    (drawable by later rounds); `unrest`: out of rest; `text`: its new stem, choices (None: a
    question without choices) and answer_schema."""
    values: dict[str, Any] = {":by": stamp.by, ":by_name": stamp.by_name, ":at": stamp.at, ":action": stamp.action}
    names: dict[str, str] = {}
    condition = "attribute_exists(question_id)"
    if refuse_retired or retire:
        names, values[":retired"] = dict(_STATUS), "retired"
    if refuse_retired:
        condition += " AND (attribute_not_exists(#status) OR #status <> :retired)"
    setting = "reviewed_by = :by, reviewed_by_name = :by_name, reviewed_at = :at, review_action = :action"
    removing = "review_reasons"
    if retire:
        setting += ", #status = :retired, retired_at = :at, retired_category = :category"
        removing += ", bank_key"  # no round draws it again
        values[":category"] = stored.category or "general"
    if into_bank:
        setting += ", bank_key = :bank_key"
        values[":bank_key"] = _bank_key_of(stored)
    if unrest:
        removing += ", rested_at, rest_reason"
    if text is not None:
        setting += ", stem = :stem, choices = :choices, answer_schema = :answer, edited_at = :at"
        values |= {":stem": text.stem, ":choices": text.choices, ":answer": dict(text.answer_schema)}
        if text.choices is None:  # a true/false or short-answer question has no choices
            setting = setting.replace(", choices = :choices", "")
            values.pop(":choices")
    return update(
        QUESTIONS_TABLE,
        {"question_id": stored.question_id},
        f"SET {setting} REMOVE {QUEUE_FIELDS}, {removing}",
        condition,
        values,
        names=names,
    )


def retire_with(other: StoredQuestion, at: str, by_question: str) -> dict[str, Any]:
    """The bank item `other` retired with the question `by_question` (its bank item or a twin):
    out of the queue and of the bank's index."""
    return update(
        QUESTIONS_TABLE,
        {"question_id": other.question_id},
        "SET #status = :retired, retired_at = :at, retired_category = :category, retired_with = :by "
        f"REMOVE {QUEUE_FIELDS}, review_reasons, bank_key",
        "attribute_exists(question_id)",
        {":retired": "retired", ":at": at, ":category": other.category or "general", ":by": by_question},
        names=dict(_STATUS),
    )


def edit_bank_item(item_id: str, text: QuestionText, at: str) -> dict[str, Any]:
    """The bank item edited as its copy was: `text`'s stem, answer_schema and choices (None:
    left as they are)."""
    setting = "SET stem = :stem, answer_schema = :answer, edited_at = :at"
    values: dict[str, Any] = {":stem": text.stem, ":answer": dict(text.answer_schema), ":at": at}
    if text.choices is not None:
        setting += ", choices = :choices"
        values[":choices"] = text.choices
    return update(QUESTIONS_TABLE, {"question_id": item_id}, setting, "attribute_exists(question_id)", values)


def _requeue(place: QueuePlace, values: dict[str, Any]) -> str:
    """The SET clauses (and their `values`) that put a question back in the review queue where
    `place` says it waited, with the reasons it waited for."""
    values |= {":open": OPEN, ":queued": place.queued_at}
    if not place.review_reasons:
        return ", review_state = :open, queued_at = :queued"
    values[":reasons"] = set(place.review_reasons)
    return ", review_state = :open, queued_at = :queued, review_reasons = :reasons"


def undo_edit(
    question_id: str,
    text: QuestionText,
    *,
    edited_at: str,
    at: str,
    queue_place: QueuePlace | None = None,
    rest: Rest | None = None,
) -> dict[str, Any]:
    """The question's stem, answer_schema and choices (None: left as they are) put back as
    `text`, if the edit made at `edited_at` is still its latest. `queue_place`: back in the
    review queue where it waited; `rest`: rested again and out of the bank's index."""
    setting = "SET stem = :stem, answer_schema = :answer, edit_undone_at = :now"
    values: dict[str, Any] = {":stem": text.stem, ":answer": dict(text.answer_schema), ":now": at}
    values[":edited"] = edited_at
    if queue_place is not None:
        setting += _requeue(queue_place, values)
    removing = "edited_at"
    if rest is not None:
        setting += ", rested_at = :rested_at" + (", rest_reason = :rest_reason" if rest.rest_reason else "")
        values[":rested_at"] = rest.rested_at
        if rest.rest_reason:
            values[":rest_reason"] = rest.rest_reason
        removing += ", bank_key"
    if text.choices is not None:
        setting += ", choices = :choices"
        values[":choices"] = text.choices
    return update(
        QUESTIONS_TABLE,
        {"question_id": question_id},
        f"{setting} REMOVE {removing}",
        "attribute_exists(question_id) AND edited_at = :edited",
        values,
    )


def unretire(
    question: StoredQuestion, at: str, *, queue_place: QueuePlace | None = None, into_bank: bool = False
) -> dict[str, Any]:
    """The retired question active again; `queue_place`: back in the review queue where it
    waited; `into_bank`: back in the bank's index."""
    setting, values = "SET #status = :active, unretired_at = :at", {":active": "active", ":at": at}
    if queue_place is not None:
        setting += _requeue(queue_place, values)
    if into_bank:
        setting += ", bank_key = :bank_key"
        values[":bank_key"] = _bank_key_of(question)
    return update(
        QUESTIONS_TABLE,
        {"question_id": question.question_id},
        f"{setting} REMOVE retired_at, retired_category, retired_with",
        "attribute_exists(question_id)",
        values,
        names=dict(_STATUS),
    )
