"""GET /sessions: the caller's sessions with each round's progress, so a page can resume the
current round at its next unanswered question on any device (the server is the source of truth).

What a page of `limit` (at most 20) sessions reads, whatever the history behind it: one Query of
the caller's sessions, one BatchGetItem of their rounds' records and their own (each one's purpose:
practice or a placement test), one Query of each listed
session's questions, the caller's latest survey (the page's language), and DescribeExecution only
for a round still marked RUNNING (its outcome is written back, so it is asked once)."""

import base64
import binascii
import json
from dataclasses import asdict
from typing import cast

from slea.contracts.sessions import RoundProgressView, RoundState, SessionList, SessionOverview
from slea.dal import profiles, questions, rounds, sessions
from slea.dal.question_records import StoredQuestion
from slea.dal.rounds import StoredRound
from slea.dal.sessions import SessionPage
from slea.logic.rounds.lifecycle import ROUNDS, SUCCEEDED, refreshed, visible
from slea.platform.errors import Invalid
from slea.platform.observability import tracer

CURSOR_KEYS = {"session_id", "user_id", "created_at"}


def _encoded(position: SessionPage) -> str:
    return base64.urlsafe_b64encode(json.dumps(asdict(position), sort_keys=True).encode()).decode().rstrip("=")


def _decoded(cursor: str, user_id: str) -> SessionPage:
    """A previous page's end; only one of the caller's own (a cursor is not a way to read others')."""
    try:
        position = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError) as error:
        raise Invalid("VALIDATION_ERROR", "cursor: not a cursor of GET /sessions") from error
    valid = isinstance(position, dict) and set(position) == CURSOR_KEYS
    if not valid or not all(isinstance(v, str) for v in position.values()):
        raise Invalid("VALIDATION_ERROR", "cursor: not a cursor of GET /sessions")
    start = SessionPage(**position)
    if start.user_id != user_id:
        raise Invalid("VALIDATION_ERROR", "cursor: not a cursor of GET /sessions")
    return start


def _round(number: int, record: StoredRound | None, shown: list[StoredQuestion]) -> RoundProgressView:
    answered = sum(bool(question.answered_at) for question in shown)
    status = record.round_status if record else (SUCCEEDED if shown else None)
    return RoundProgressView(
        round=number,
        status=cast(RoundState | None, status),  # the contract validates it
        questions=len(shown),
        answered=answered,
        finished=status == SUCCEEDED and answered >= len(shown),
    )


def session_overview(
    session_id: str, created_at: str, records: dict[int, StoredRound], purpose: str | None = None
) -> SessionOverview:
    """One session's progress; `records`: its rounds' records by number, as read for the page."""
    shown = [question for question in questions.session_questions(session_id) if visible(question)]
    progress = []
    for number in ROUNDS:
        record = refreshed(records[number]) if number in records else None
        in_round = [question for question in shown if question.round == number]
        if record is not None or in_round:
            progress.append(_round(number, record, in_round))
    return SessionOverview(
        session_id=session_id,
        created_at=created_at,
        rounds=progress,
        purpose="placement" if purpose == "placement" else "practice",
    )


def _language(user_id: str) -> str | None:
    survey = profiles.latest_survey_record(user_id)
    language = survey.language if survey else None
    return language if language in ("en", "ko") else None


@tracer.capture_method
def list_sessions(user_id: str, limit: int, cursor: str | None = None) -> SessionList:
    found, last = sessions.user_sessions(user_id, limit, _decoded(cursor, user_id) if cursor else None)
    own, records = rounds.sessions_and_rounds([listed.session_id for listed in found], ROUNDS)
    return SessionList(
        sessions=[
            session_overview(
                listed.session_id,
                listed.created_at,
                {number: records[key] for number in ROUNDS if (key := (listed.session_id, number)) in records},
                session.purpose if (session := own.get(listed.session_id)) else None,
            )
            for listed in found
        ],
        next_cursor=_encoded(last) if last else None,
        language=_language(user_id),
    )
