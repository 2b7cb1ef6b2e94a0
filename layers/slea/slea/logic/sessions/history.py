"""A learner's answers as their history shows them: a session's (GET /sessions/{id}/attempts) or
all of theirs, newest first, a page at a time (GET /learners/me/attempts, optionally one session).

What the key-leak guard held back when an answer was graded (security/key_leaks.py) is kept with
the attempt: the unchecked output and the ids of the items it was held back for
(logic/answering/explaining.py). The history shows it once none of those items can still be
answered (answered, retired, their round is over or their session closed:
logic/answering/rules.py), provided the
whole text gives away no other item still open (the guard is run again on it against those) and
the option picked names no open item's key. Until then the attempt shows what was shown at answer
time, with its note.
"""

import base64
import binascii
import json
from collections.abc import Iterable
from dataclasses import asdict

from slea.contracts.profile import normalised_user_id
from slea.contracts.scoring import AttemptHistory, AttemptView, FeedbackDetails, ReferenceLink
from slea.dal import attempts, questions, sessions
from slea.dal.attempts import AttemptFeedback, AttemptPage, StoredAttempt
from slea.dal.question_records import StoredQuestion
from slea.dal.sessions import StoredSession
from slea.logic.answering.rules import closed
from slea.platform.errors import Forbidden, Invalid, NotFound
from slea.platform.observability import tracer
from slea.security.key_leaks import KeyedItem, KeyGuard

CURSOR_ERROR = "cursor: not a cursor of GET /learners/me/attempts"


def _normalised(text: str) -> str:
    return " ".join(text.casefold().split())


def _open_items(session: list[StoredQuestion], answered: str, session_closed: bool) -> list[KeyedItem]:
    """The session's items other than `answered` that can still be answered."""
    return [
        KeyedItem.from_stored(question)
        for question in session
        if question.question_id != answered and not closed(question, session, session_closed)
    ]


def _whole(attempt: StoredAttempt, session: list[StoredQuestion], session_closed: bool) -> AttemptFeedback | None:
    """The attempt's unchecked output, if it can be shown now (None: not yet)."""
    unguarded = attempt.unguarded
    if unguarded is None:
        return None
    open_items = _open_items(session, str(attempt.question_id), session_closed)
    if set(attempt.withheld_for) & {item.item_id for item in open_items}:
        return None
    own = next((q for q in session if q.question_id == attempt.question_id), None)
    guard = KeyGuard(KeyedItem.from_stored(own) if own else KeyedItem(question_type="", stem=""), open_items)
    details = FeedbackDetails.model_validate(unguarded.details) if unguarded.details else None
    texts = [unguarded.explanation or "", unguarded.feedback or ""]
    if details is not None:
        texts += [details.why_correct or "", details.why_yours_is_wrong or "", *details.next_steps]
    for text in texts:
        guard.text(text)
    guard.links([ReferenceLink.model_validate(link) for link in unguarded.reference_links])
    keys = {_normalised(item.key_text) for item in open_items if item.question_type == "multiple_choice"}
    picked = _normalised(details.your_answer if details is not None else "")
    if guard.withheld.sentences or guard.withheld.links or (picked and picked in keys):
        return None
    return unguarded


def delivered(attempt: StoredAttempt, session: list[StoredQuestion], session_closed: bool = False) -> AttemptView:
    """`attempt` as the learner may read it now (`session`: its session's stored questions;
    `session_closed`: the learner has left the session)."""
    whole = _whole(attempt, session, session_closed)
    shown = whole if whole is not None else attempt.shown
    return AttemptView(
        attempt_id=attempt.attempt_id,
        session_id=attempt.session_id,
        question_id=attempt.question_id,
        round=attempt.round,
        is_correct=attempt.is_correct,
        score=attempt.score,
        user_answer=attempt.user_answer,
        feedback=shown.feedback,
        needs_review=bool(attempt.needs_review),
        confidence=attempt.confidence,
        graded_at=attempt.graded_at,
        reviewed=bool(attempt.reviewed),
        original_score=attempt.original_score,
        skipped=bool(attempt.skipped),
        review_note=attempt.review_note,
        question_stem=attempt.question_stem,
        question_type=attempt.question_type,
        question_choices=list(attempt.question_choices) if attempt.question_choices is not None else None,
        explanation=shown.explanation,
        reference_links=[ReferenceLink.model_validate(link) for link in shown.reference_links],
        details=FeedbackDetails.model_validate(shown.details) if shown.details is not None else None,
        held_back_note=shown.held_back_note,
    )


def views(found: Iterable[StoredAttempt], records: dict[str, StoredSession | None] | None = None) -> list[AttemptView]:
    """The attempts as AttemptViews, each with what was held back delivered where it may be: a
    session's questions (one Query) and record (one GetItem, unless in `records`) are read only
    for an attempt that has something held back."""
    known = dict(records or {})
    read: dict[str, list[StoredQuestion]] = {}
    shown = []
    for attempt in found:
        session_id = attempt.session_id
        if attempt.unguarded is not None and session_id not in read:
            read[session_id] = questions.session_questions(session_id)
            if session_id not in known:
                known[session_id] = sessions.get_session(session_id)
        left = (session := known.get(session_id)) is not None and bool(session.closed_at)
        shown.append(delivered(attempt, read.get(session_id, []), left))
    return shown


# ---------------------------------------------------------------- the learner's history
def _encoded(position: AttemptPage) -> str:
    return base64.urlsafe_b64encode(json.dumps(asdict(position), sort_keys=True).encode()).decode().rstrip("=")


def _decoded(cursor: str, user_id: str) -> AttemptPage:
    """A previous page's end; only one of the caller's own (a cursor is not a way to read others')."""
    try:
        position = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError) as error:
        raise Invalid("VALIDATION_ERROR", CURSOR_ERROR) from error
    valid = isinstance(position, dict) and set(position) == set(attempts.PAGE_KEYS)
    if not valid or not all(isinstance(v, str) for v in position.values()):
        raise Invalid("VALIDATION_ERROR", CURSOR_ERROR)
    start = AttemptPage(**position)
    if start.user_id != user_id:
        raise Invalid("VALIDATION_ERROR", CURSOR_ERROR)
    return start


def _order(attempt: StoredAttempt) -> tuple[str, str]:
    return attempt.graded_at, attempt.attempt_key


def _session_page(
    user_id: str, session_id: str, limit: int, start: AttemptPage | None
) -> tuple[list[StoredAttempt], AttemptPage | None]:
    """One session's attempts, newest first, after `start` (a session holds a few dozen at most:
    one Query, paged here)."""
    owner = sessions.owner_of(session_id)
    if owner is None:
        raise NotFound("SESSION_NOT_FOUND", f"session {session_id} not found")
    if normalised_user_id(owner) != user_id:
        raise Forbidden("FORBIDDEN", f"session {session_id} belongs to another user")
    if start is not None and start.session_id != session_id:
        raise Invalid("VALIDATION_ERROR", CURSOR_ERROR)
    found = sorted(attempts.session_attempts(session_id), key=_order, reverse=True)
    if start is not None:
        found = [attempt for attempt in found if _order(attempt) < (start.graded_at, start.attempt_key)]
    page = found[:limit]
    if len(found) <= limit:
        return page, None
    return page, AttemptPage(
        session_id=session_id, attempt_key=page[-1].attempt_key, user_id=user_id, graded_at=page[-1].graded_at
    )


@tracer.capture_method
def learner_attempts(
    user_id: str, limit: int, cursor: str | None = None, session_id: str | None = None
) -> AttemptHistory:
    """The caller's answers, newest first, `limit` a page; with `session_id`, that session's only."""
    start = _decoded(cursor, user_id) if cursor else None
    if session_id:
        found, last = _session_page(user_id, session_id, limit, start)
    else:
        found, last = attempts.user_attempts(user_id, limit, start)
    return AttemptHistory(attempts=views(found), next_cursor=_encoded(last) if last else None)
