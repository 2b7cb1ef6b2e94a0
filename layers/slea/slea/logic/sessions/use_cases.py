"""The HTTP API's and the MCP server's reads and writes of a session that every learner's
request may make (whose the session is, its questions without their keys, a round's status, a
report): loaded with the API's cold start. What only some requests do has a module of its own,
which the route or tool that needs it imports: progress.py (a new session, a round, a skip),
answers.py (the grading path), attempt_list.py (the history), placement_steps.py (the planner)."""

from slea.contracts.profile import is_uuid, normalised_user_id
from slea.contracts.sessions import ReportAccepted, ReportRequest, RoundStatus, SessionQuestions
from slea.dal import questions, sessions
from slea.logic.rounds import lifecycle as round_logic
from slea.platform.clock import utc_now
from slea.platform.errors import Forbidden, NotFound
from slea.platform.observability import tracer


def require_owner(session_id: str, user_id: str) -> None:
    """NotFound for an unknown session, Forbidden for another user's (ids compared normalised, so a session
    stored under "ABC..." before callers were normalised is still its owner's)."""
    check_owner(session_id, user_id, sessions.owner_of(session_id))


def check_owner(session_id: str, user_id: str, owner: str | None) -> None:
    if owner is None:
        raise NotFound("SESSION_NOT_FOUND", f"session {session_id} not found")
    if normalised_user_id(owner) != normalised_user_id(user_id):
        raise Forbidden("FORBIDDEN", f"session {session_id} belongs to another user")


@tracer.capture_method
def list_questions(session_id: str, user_id: str) -> SessionQuestions:
    require_owner(session_id, user_id)
    shown = [item for item in questions.session_questions(session_id) if round_logic.visible(item)]
    return SessionQuestions(session_id=session_id, questions=[round_logic.question_view(item) for item in shown])


@tracer.capture_method
def round_status(session_id: str, user_id: str, round_number: int) -> RoundStatus:
    require_owner(session_id, user_id)
    return round_logic.round_status(session_id, round_number)


@tracer.capture_method
def report_question(session_id: str, user_id: str, question_id: str, report: ReportRequest) -> ReportAccepted:
    """A learner's "there is a problem with this question": the question joins the review queue."""
    require_owner(session_id, user_id)
    # Only a well-formed id is looked up, so only an item a reviewer's route can name is queued.
    stored = questions.get_question(question_id) if is_uuid(question_id) else None
    if stored is None or stored.session_id != session_id or not round_logic.visible(stored):
        raise NotFound("QUESTION_NOT_FOUND", f"question {question_id} not found in session {session_id}")
    # A copy drawn from the bank is reported on its bank item: that is what a reviewer fixes or
    # retires, and a reported item is held out of draws until they have.
    target = stored.item_id or question_id
    questions.report_question(
        target, {"reason": report.reason.strip(), "at": utc_now(), "by": user_id, "question_id": question_id}
    )
    return ReportAccepted(question_id=question_id)
