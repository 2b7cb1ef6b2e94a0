"""A reviewer's actions on questions: edit, retire (with the bank item and its same-stem twins,
withdrawing copies already drawn into open rounds), report handling, and their undo (an edit
reverted, an item unretired). Each is recorded in the audit trail in the transaction that applies
it (slea.dal.review, its writes in slea.dal.review_writes); attempts are in slea.logic.review.grades,
.undo and .bulk.

An edit (or its undo) that changes a bank item's stem or key moves the item's claim on its stem and
key (dal/bank.py) in the same transaction, and is refused if another bank item holds the new one.
An edit never reaches a retired bank item: a copy of one is edited alone, and the retired item
keeps its text, its place among the retired stems and its claim (its stem and key never rejoin)."""

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from slea.contracts.exposure import ShownItem
from slea.contracts.questions import SaveQuestionInput
from slea.contracts.review import (
    QuestionReviewed,
    QuestionReviewRequest,
    UndoRequest,
)
from slea.dal import bank, review, review_writes, sessions
from slea.dal.question_records import StoredQuestion
from slea.dal.review import QuestionSnapshot, QueuePlace, ReviewRecord
from slea.dal.review_writes import QuestionText
from slea.logic.review.queue import same_user  # the queue's listing is there
from slea.logic.review.transactions import audit_item, commit_reviewed, short_stem
from slea.platform.clock import utc_now
from slea.platform.errors import Conflict, DataAccessError, Forbidden, Invalid, NotFound
from slea.platform.observability import logger, tracer
from slea.security import exposure

STEM_AND_KEY_IN_BANK = "STEM_AND_KEY_IN_BANK"


# ---------------------------------------------------------------- questions
def _reviewed(
    question_id: str, action: Any, status: str, *, reviewer: str, reviewer_name: str | None, now: str
) -> QuestionReviewed:
    """What every action on a question answers: the action, where the question now stands, by whom."""
    return QuestionReviewed(
        question_id=question_id,
        action=action,
        status=status,
        reviewed_by=reviewer,
        reviewed_by_name=reviewer_name or reviewer,
        reviewed_at=now,
    )


def _refuse_own(stored: StoredQuestion, reviewer: str) -> None:
    """A reviewer who edits (or accepts) an item of their own session could key it to their
    answer; one who wrote an item does not approve it."""
    if same_user(stored.authored_by, reviewer) or (
        stored.session_id and same_user(sessions.owner_of(stored.session_id), reviewer)
    ):
        raise Forbidden(
            "OWN_QUESTION", f"question {stored.question_id} is your own item: another reviewer must review it"
        )


def _question_for(question_id: str, reviewer: str) -> StoredQuestion:
    """The stored question a reviewer may act on (not their own: `_refuse_own`)."""
    stored = review.get_question(question_id)
    if stored is None:
        raise NotFound("QUESTION_NOT_FOUND", f"question {question_id} not found")
    _refuse_own(stored, reviewer)
    return stored


def _field_of(error: ValidationError) -> str:
    problem = error.errors()[0]
    location = ".".join(str(part) for part in problem.get("loc", ()))
    field = location or problem["type"]
    return {"correct_key": "correct_answer"}.get(field, field)


def _listed(texts: Sequence[str] | None) -> list[str] | None:
    return None if texts is None else list(texts)


def _edited(stored: StoredQuestion, request: QuestionReviewRequest) -> QuestionText:
    """The question's new stem, choices and key, validated as Tool 5 validates a question."""
    if request.changes_nothing():
        raise Invalid("VALIDATION_ERROR", "stem: edit needs stem, choices, correct_answer or correct_keywords")
    key = stored.answer_schema
    candidate = {
        "item_type": stored.item_type,
        "stem": request.stem if request.stem is not None else stored.stem,
        "choices": request.choices if request.choices is not None else _listed(stored.choices),
        "correct_key": request.correct_answer if request.correct_answer is not None else key.correct_key,
        "correct_keywords": request.correct_keywords
        if request.correct_keywords is not None
        else _listed(key.correct_keywords),
        "round_id": stored.round_id or stored.question_id,
    }
    try:
        checked = SaveQuestionInput.model_validate(candidate)
    except ValidationError as error:
        field = _field_of(error)
        raise Invalid("VALIDATION_ERROR", f"{field}: {error.errors()[0]['msg']}") from error
    return review_writes.edited_text(
        stored,
        checked.stem,
        checked.choices,
        correct_key=checked.correct_key,
        correct_keywords=checked.correct_keywords,
        short_answer=checked.item_type == "short_answer",
    )


def _snapshot(stored: StoredQuestion) -> dict[str, Any]:
    """The question as an action found it, kept in its audit record (an undo puts it back)."""
    key = stored.answer_schema
    return {
        "status": stored.status or "active",
        "stem": stored.stem,
        "choices": _listed(stored.choices),
        "correct_answer": key.correct_key,
        "correct_keywords": _listed(key.correct_keywords),
        "review_reasons": set(stored.review_reasons) or [],
    }


# Why an item was rested (dal/bank.py, dal/calibration_sums.py), in the words a refusal gives.
_REST_WORDS = {
    "farm": "an account farm held its key",
    "compromised": "its answers showed its key had leaked",
}


def _retirement(stored: StoredQuestion, now: str) -> tuple[list[dict[str, Any]], list[str], dict[str, Any]]:
    """What retiring `stored` writes beyond the question itself (its templates deactivated, its
    bank item and twins retired with it), the ids of those bank items, and what its audit record
    keeps of that for an undo."""
    question_id = stored.question_id
    templates = review.templates_with_stem(stored.stem)
    extra = [review.deactivate_template(tid, question_id) for tid in templates]
    # A transaction holds 100 items: the review's own three, the templates, then the twins.
    with_it = _bank_items_of(stored)[: 97 - len(extra)]
    extra += [review_writes.retire_with(other, now, question_id) for other in with_it]
    retired_with = [other.question_id for other in with_it]
    return (
        extra,
        retired_with,
        {
            "status": "retired",
            "templates_deactivated": len(templates),
            "template_ids": templates,
            "retired_with": retired_with,
            # The twins' places in the queue, which the retirement takes them out of (an undo restores them).
            "retired_with_queued": {o.question_id: _queued(o) for o in with_it if _queued(o)},
        },
    )


def _rested(stored: StoredQuestion, request: QuestionReviewRequest) -> dict[str, Any]:
    """If the reviewer's accept (or edit) of the bank item `stored` draws a rested item again
    (its key shown too widely, held by an account farm, or compromised), what its audit record
    keeps of the rest (else nothing): a change to what learners can be given, so it takes a
    reason (Invalid without one) and is audited as a change."""
    if stored.rested_at is None:
        return {}
    if not request.note:
        why = _REST_WORDS.get(str(stored.rest_reason), "its key was shown too widely")
        raise Invalid(
            "VALIDATION_ERROR",
            f"note: a reason is required to {request.action} this item: it was rested ({why}), "
            "and this returns it to the question bank",
        )
    return {"drawable": False, "rested_at": stored.rested_at, "rest_reason": stored.rest_reason}


def _queued(stored: StoredQuestion) -> dict[str, Any]:
    """Where a question waits in the review queue (when and why), if it does: kept with an action
    that takes it out, so that undoing the action puts it back as it was."""
    if stored.review_state != review.OPEN:
        return {}
    return {"queued_at": stored.queued_at, "review_reasons": sorted(stored.review_reasons)}


def _question_audit(
    stored: StoredQuestion,
    stamp: review_writes.Stamp,
    before: dict[str, Any],
    after: dict[str, Any],
    note: str | None,
    **fields: Any,
) -> dict[str, Any]:
    """The audit record of the action on the question `stored` that `stamp` names (by whom,
    when), with `fields` (changed, session_id ...), as a transaction item."""
    question_id = stored.question_id
    shown = {"stem": short_stem(stored.stem), "question_id": question_id}
    return audit_item((question_id, "question"), stamp, (before, after), note, fields=fields, shown=shown)


@tracer.capture_method
def review_question(
    question_id: str, reviewer: str, request: QuestionReviewRequest, reviewer_name: str | None = None
) -> QuestionReviewed:
    """Accept (it stays as it is), retire (hidden from learners who have not answered it, its
    templates deactivated, its stem avoided by later rounds) or edit it; it leaves the queue."""
    stored = _question_for(question_id, reviewer)
    retired = stored.status == "retired"
    if retired and request.action != "accept":
        raise Conflict("QUESTION_RETIRED", f"question {question_id} is retired")
    stamp = review_writes.Stamp(reviewer, reviewer_name or reviewer, utc_now(), request.action)
    before = _snapshot(stored) | _queued(stored)  # what an undo puts back, its place in the queue included
    after = _snapshot(stored) | {"review_reasons": []}
    extra: list[dict[str, Any]] = []
    retired_with: list[str] | None = None  # a retirement: the bank items retired with it
    if request.action == "retire":
        extra, retired_with, retiring = _retirement(stored, stamp.at)
        after |= retiring
    # A bank item a reviewer has approved (a revise-band or an author's item, or one queued for
    # its statistics) may be drawn by later rounds; copies keep to the session they serve.
    into_bank = request.action != "retire" and not retired and stored.item_id == question_id
    rested = _rested(stored, request) if into_bank else {}
    if rested:  # out of rest: drawn again
        before |= rested
        after |= {"drawable": True}
    edited = _edited(stored, request) if request.action == "edit" else None
    claims: list[dict[str, Any]] = []
    if edited is not None:
        after |= {
            "stem": edited.stem,
            "choices": edited.choices,
            "correct_answer": edited.correct_key,
            "correct_keywords": edited.correct_keywords,
        }
        bank_writes, claims, edited_with = _edit_reaches(stored, edited, stamp.at)
        extra += bank_writes + claims
        after |= edited_with
    session_id = stored.session_id if stored.session_id is not None and "#" not in stored.session_id else None
    changed = request.action != "accept" or bool(rested)
    items = [
        review_writes.resolve_question(
            stored,
            stamp,
            refuse_retired=request.action != "accept",
            retire=request.action == "retire",
            into_bank=into_bank,
            unrest=bool(rested),
            text=edited,
        ),
        *extra,
        _question_audit(stored, stamp, before, after, request.note, changed=changed, session_id=session_id),
        review.count(
            {"accept": "questions_accepted", "retire": "questions_retired", "edit": "questions_edited"}[request.action]
        ),
    ]
    _commit(items, claims, question_id, reviewer)
    _withdraw_copies(retired_with, stored, stamp.at)  # a retirement: its copies in open rounds
    logger.info("question reviewed", extra={"question_id": question_id, "action": request.action})
    return _reviewed(
        question_id,
        request.action,
        "retired" if retired or request.action == "retire" else "active",
        reviewer=reviewer,
        reviewer_name=reviewer_name,
        now=stamp.at,
    )


def _bank_items_of(stored: StoredQuestion) -> list[StoredQuestion]:
    """What retiring `stored` retires with it: the bank item it was drawn from (if it is a copy)
    and the drawable bank items of its bank key with the same stem (its twins)."""
    question_id = stored.question_id
    found: dict[str, StoredQuestion] = {}
    item_id = stored.bank_item_id
    if item_id != question_id:
        item = review.get_question(item_id)
        if item is not None and item.status != "retired":
            found[item_id] = item
    twins = review.bank_twins(stored.category or "general", stored.language or "en", stored.stem)
    for twin in twins:
        if twin.question_id != question_id:
            found.setdefault(twin.question_id, twin)
    return list(found.values())[: review.MAX_TEMPLATES_DEACTIVATED - 1]


def _withdraw_copies(retired_with: list[str] | None, stored: StoredQuestion, now: str) -> int:
    """After `stored` was retired with the bank items `retired_with` (None: it was not retired),
    withdraw the copies of those items that learners were given and have not answered: each
    marked retired, so it is hidden from their round, refused if answered and not counted as
    skipped (logic/rounds). A copy answered meanwhile keeps its answer. After the retirement's
    own transaction (copies may be many, past a transaction's 100 items); a copy this misses is
    still refused when answered, the answer reading its bank item's status."""
    if retired_with is None:
        return 0
    question_id, withdrawn = stored.question_id, 0
    try:
        for item_id in sorted({stored.bank_item_id, *retired_with}):
            for copy_id in review.open_copies(item_id):
                if copy_id != question_id and review.withdraw_copy(copy_id, question_id, now):
                    withdrawn += 1
    except DataAccessError as error:
        # The retirement stands (committed): the copies left are refused when answered.
        logger.error("drawn copies not all withdrawn", extra={"question_id": question_id, "reason": str(error)})
    if withdrawn:
        logger.info("drawn copies withdrawn", extra={"question_id": question_id, "copies": withdrawn})
    return withdrawn


def _edit_reaches(
    stored: StoredQuestion, edited: QuestionText, now: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """What an edit of `stored` writes beyond the question itself: the bank item it was drawn
    from, edited the same (the copy's choice order and key together, so later draws serve the
    corrected item) unless it is retired; the moves of the claim on the bank item's stem and key;
    and what the audit record keeps of the bank item."""
    item_id = stored.bank_item_id
    if item_id == stored.question_id:
        return [], _move_claim(stored, edited, now), {}
    bank_item = review.get_question(item_id)
    if bank_item is not None and bank_item.status == "retired":
        return [], [], {}
    claims = _move_claim(bank_item, edited, now) if bank_item else []
    return [review_writes.edit_bank_item(item_id, edited, now)], claims, _edited_with(item_id, bank_item)


def _edited_with(item_id: str, bank_item: StoredQuestion | None) -> dict[str, Any]:
    """What an edit's audit record keeps of the bank item it edits too: its id, and its text as
    it was (`bank_item`, read once; edits are rare), so that undoing the edit restores it."""
    return {"edited_with": [item_id]} | ({"edited_with_before": {item_id: _snapshot(bank_item)}} if bank_item else {})


def _fingerprint(question: StoredQuestion, text: QuestionText | None = None) -> str:
    """The bank fingerprint of `question`, or of it with `text` (its new stem, choices and key)."""
    stem = question.stem if text is None else str(text.stem or "")
    choices = question.choices if text is None else text.choices
    key, keywords = (
        (question.answer_schema.correct_key, question.answer_schema.correct_keywords)
        if text is None
        else (text.correct_key, text.correct_keywords)
    )
    shown = ShownItem(
        type=question.item_type or "multiple_choice",
        stem=stem,
        choices=[str(choice) for choice in choices or []],
        correct_answer=key,
        correct_keywords=[str(keyword) for keyword in keywords or []],
    )
    return exposure.bank_fingerprint(shown)


def _move_claim(item: StoredQuestion, text: QuestionText, at: str) -> list[dict[str, Any]]:
    """The writes that move the bank item `item`'s claim on its stem and key to those of `text`
    (its new stem, choices and answer_schema): the new claim, conditional on no other item
    holding it, first; then the old one released if this item holds it (an item saved before
    claims existed, or one whose stem and key another item claimed first, holds none). Nothing
    if the stem and key are unchanged (new distractors, the keyed option moved) or the item is
    retired (its claim stays: see the module's docstring)."""
    if item.status == "retired":
        return []
    item_id = item.question_id
    before, after = _fingerprint(item), _fingerprint(item, text)
    if before == after:
        return []
    writes = [bank.claim_write(after, item_id, at)]
    if bank.holder(before, review.TOOL) == item_id:
        writes.append(bank.release(before, item_id))
    return writes


def _commit(
    items: list[dict[str, Any]], claims: list[dict[str, Any]], question_id: str, reviewer: str, undo: bool = False
) -> None:
    """Commit an edit's (or its undo's) transaction; refused if its claim on the new stem and key
    failed: another bank item has them. The refusal names neither that item nor the key (the
    reviewer typed it), but it does tell the reviewer that this stem and key are in the bank:
    each refusal is logged with who asked, so a reviewer probing keys that way leaves a trace."""
    text = "the stem and correct answer this undo would restore" if undo else "this stem and correct answer"
    refusal = Conflict(
        STEM_AND_KEY_IN_BANK,
        f"another item in the question bank already has {text}: edit or retire that item instead; nothing was changed",
    )
    try:
        commit_reviewed(items, f"question {question_id}", {items.index(w): refusal for w in claims if "Put" in w})
    except Conflict as error:
        if error.code == STEM_AND_KEY_IN_BANK:
            logger.warning(
                "edit refused: another bank item has its stem and key",
                extra={"question_id": question_id, "reviewer": reviewer, "undo": undo},
            )
        raise


def _restored(question: StoredQuestion, snapshot: QuestionSnapshot) -> QuestionText:
    """A question's stem, choices and answer_schema as `snapshot` (an audit record's) has them;
    choices it does not name stay as they are."""
    return review_writes.restored_text(
        question,
        snapshot.stem,
        snapshot.choices,
        correct_key=snapshot.correct_answer,
        correct_keywords=snapshot.correct_keywords,
    )


def _restore_text(
    question: StoredQuestion, snapshot: QuestionSnapshot, edited_at: str, now: str, *, requeue: bool = False
) -> dict[str, Any]:
    """The transaction item that puts a question's stem, choices and key back as `snapshot`
    (an audit record's), if the edit made at `edited_at` is still its latest. `requeue`: and
    back in the review queue where the snapshot says it waited (the edit took it out), and
    rested again if the edit returned a rested item to the bank."""
    text = _restored(question, snapshot)
    return review_writes.undo_edit(
        question.question_id,
        replace(text, choices=_listed(snapshot.choices)),  # choices the snapshot does not name stay as they are
        edited_at=edited_at,
        at=now,
        queue_place=snapshot.queue_place if requeue else None,
        rest=snapshot.rest if requeue else None,
    )


@tracer.capture_method
def revert_edit(
    question_id: str, reviewer: str, request: UndoRequest, reviewer_name: str | None = None
) -> QuestionReviewed:
    """Undo the question's latest edit: its stem, choices and key as the edit found them (kept in
    the edit's audit record), and so for the bank item the edit reached, if that record kept its
    earlier text. Refused if the question was edited again or retired since."""
    stored = _question_for(question_id, reviewer)
    if stored.status == "retired":
        raise Conflict("QUESTION_RETIRED", f"question {question_id} is retired")
    records = review.review_records(question_id)
    edit = next((r for r in reversed(records) if r.action in ("edit", "revert_edit")), None)
    if edit is None or edit.action != "edit":
        raise Conflict("NOTHING_TO_UNDO", f"question {question_id} has no edit to undo")
    if stored.edited_at != edit.at:
        raise Conflict("QUESTION_CHANGED", f"question {question_id} was edited again since: undo that first")
    now, found = utc_now(), edit.question_before
    # Back in the queue if the edit took it out of it (and nothing queued it again since).
    requeue = stored.review_state != review.OPEN
    items = [_restore_text(stored, found, edit.at, now, requeue=requeue)]
    claims: list[dict[str, Any]] = []
    if stored.bank_item_id == question_id:  # its claim goes back with its text
        claims = _move_claim(stored, _restored(stored, found), now)
    restored_with: list[str] = []
    for item_id, snapshot in edit.edited_with_before.items():
        bank_item = review.get_question(item_id)
        # Not edited since, nor retired since (a retired item keeps its text and its claim).
        if bank_item is None or bank_item.status == "retired":
            continue
        if bank_item.edited_at == edit.at:
            items.append(_restore_text(bank_item, snapshot, edit.at, now))
            claims += _move_claim(bank_item, _restored(bank_item, snapshot), now)
            restored_with.append(item_id)
    items += claims
    after = {
        **(edit.before or {}),  # the question as the edit found it, as its record kept it
        "restored_with": restored_with,
        "undid_at": edit.at,
        "requeued": requeue and found.queue_place is not None,
    }
    stamp = review_writes.Stamp(reviewer, reviewer_name or reviewer, now, "revert_edit")
    items += [
        _question_audit(stored, stamp, _snapshot(stored), after, request.note),
        review.count("questions_edited", by=-1),
    ]
    _commit(items, claims, question_id, reviewer, undo=True)
    return _reviewed(question_id, "revert_edit", "active", reviewer=reviewer, reviewer_name=reviewer_name, now=now)


def _round_still_open(copy_id: str) -> bool:
    """Whether the round a withdrawn copy was drawn into is still its learner's open round (the
    session open, not closed, its latest round started no later than the copy was drawn): only
    then is it given back. A round the learner has left stays as it ended, so the copy is never
    counted as a skip they had no chance to answer."""
    copy = review.get_question(copy_id)
    session = sessions.get_session(copy.session_id) if copy is not None and copy.session_id else None
    if copy is None or session is None or not session.open_for or session.closed_at:
        return False
    return (copy.created_at or "") >= (session.round_started_at or "~")


def _restore_copies(restored: list[StoredQuestion], question_id: str) -> int:
    """After an unretirement's own transaction: the copies of the restored bank items that the
    retirement withdrew from rounds still open, active again (as `_withdraw_copies`, best effort:
    a copy this misses stays withdrawn, as a retirement left it)."""
    given_back = 0
    try:
        for item_id in sorted({question.bank_item_id for question in restored}):
            for copy_id in review.withdrawn_copies(item_id):
                if copy_id != question_id and _round_still_open(copy_id) and review.restore_copy(copy_id, question_id):
                    given_back += 1
    except DataAccessError as error:
        logger.error("withdrawn copies not all restored", extra={"question_id": question_id, "reason": str(error)})
    if given_back:
        logger.info("withdrawn copies restored", extra={"question_id": question_id, "copies": given_back})
    return given_back


@tracer.capture_method
def unretire_question(
    question_id: str, reviewer: str, request: UndoRequest, reviewer_name: str | None = None
) -> QuestionReviewed:
    """Undo a retirement: the question, and what its retirement retired with it (its bank item,
    its twins, the templates it deactivated), active again; each back in the review queue where
    it waited (its learners' reports with it), and the copies the retirement withdrew from
    learners' open rounds given back (unless answered or skipped since); audited like the
    retirement."""
    stored = review.get_question(question_id)
    if stored is None:
        raise NotFound("QUESTION_NOT_FOUND", f"question {question_id} not found")
    if stored.status != "retired":
        raise Conflict("QUESTION_NOT_RETIRED", f"question {question_id} is not retired")
    _refuse_own(stored, reviewer)
    retirement = next((r for r in reversed(review.review_records(question_id)) if r.action == "retire"), None)
    # No record of its retirement: nothing kept of what it took with it, so the question alone comes back.
    done = retirement or ReviewRecord(target_id=question_id, action="retire", at="")
    now = utc_now()
    restored = [stored] + [q for q in map(review.get_question, done.retired_with) if q is not None]
    # Where each waited in the queue before the retirement (a record written before it kept that: not queued).
    queued: dict[str, QueuePlace | None] = {question_id: done.question_before.queue_place}
    queued |= done.retired_with_queued
    items: list[dict[str, Any]] = []
    requeued: list[str] = []
    for question in restored:
        place = queued.get(question.question_id)
        requeue = place is not None and question.review_state != review.OPEN
        if requeue:
            requeued.append(question.question_id)
        items.append(
            review_writes.unretire(
                question,
                now,
                queue_place=place if requeue else None,  # back in the queue
                into_bank=question.bank_item_id == question.question_id,  # back in the bank
            )
        )
    templates = [t for t in map(review.template, done.template_ids) if t is not None]
    items += [review.reactivate_template(t, question_id) for t in templates if t.deactivated_by == question_id]
    after = {
        "status": "active",
        "restored_with": [q.question_id for q in restored[1:]],
        "templates_reactivated": len(items) - len(restored),
        "requeued": requeued,
    }
    stamp = review_writes.Stamp(reviewer, reviewer_name or reviewer, now, "unretire")
    items += [
        _question_audit(stored, stamp, {"status": "retired"}, after, request.note),
        review.count("questions_retired", by=-1),
    ]
    commit_reviewed(items, f"question {question_id}")
    _restore_copies(restored, question_id)
    return _reviewed(question_id, "unretire", "active", reviewer=reviewer, reviewer_name=reviewer_name, now=now)
