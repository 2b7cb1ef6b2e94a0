"""Reviewers only (slea.security.roles): the review queue, accepting or overriding grades,
accepting, retiring or editing questions, the statistics, the audit record and the item analysis.
app.py refuses anyone else before routing; the router's middleware (slea.http.api.reviewers_only)
checks the role again for every route, and a route that needs the reviewer reads them with
`reviewing`. The review logic is loaded by a reviewer's first request, not at every cold start."""

from typing import Annotated, Literal

from aws_lambda_powertools.event_handler.openapi.params import Body, Query
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from slea.constants import Category, Language, QuestionType
from slea.contracts.item_analysis import ItemAnalysis, SortColumn
from slea.contracts.review import (
    AttemptReviewed,
    AttemptReviewRequest,
    AuditRecords,
    BulkAccepted,
    BulkAcceptRequest,
    BulkReverted,
    GroupReverted,
    GroupReviewed,
    GroupReviewRequest,
    QuestionReviewed,
    QuestionReviewRequest,
    QueueSort,
    QueueSource,
    QueueView,
    ReviewGroups,
    ReviewQueue,
    ReviewStats,
    UndoRequest,
)
from slea.http.api import SESSION_ID_PATTERN, review_responses, reviewers_only, reviewing

from . import CURSOR_PATTERN, ItemId

router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]
router.use(middlewares=[reviewers_only])  # every route: the caller has the reviewer role


def _reviewer_name() -> str:
    """The name recorded with the reviewer's action (slea.security.names)."""
    from slea.security.names import display_name  # noqa: PLC0415 - loaded by a reviewer's first request

    return display_name(router.current_event.request_context.authorizer.jwt_claim, reviewing(router))


@router.get(
    "/review/queue",
    summary="Reviewers: the open review entries, filtered and sorted, a page (at most 1 MB) at a time; "
    "a filtered page may hold fewer than `limit` entries (even none) and still have a next cursor",
    responses=review_responses(200, ReviewQueue, "The queue"),
)
def review_queue(
    *,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    cursor: Annotated[str | None, Query(min_length=1, max_length=4096, pattern=CURSOR_PATTERN)] = None,
    source: Annotated[QueueSource | None, Query(description="grade, report or item")] = None,
    item_type: Annotated[QuestionType | None, Query()] = None,
    category: Annotated[Category | None, Query()] = None,
    language: Annotated[Language | None, Query()] = None,
    q: Annotated[
        str | None, Query(min_length=1, max_length=100, pattern=r"\S", description="text in the stem or answer")
    ] = None,
    sort: Annotated[QueueSort, Query(description="confidence: provisional grades only, least sure first")] = (
        "queued_asc"
    ),
) -> ReviewQueue:
    from slea.logic.review import queue  # noqa: PLC0415 - loaded by a reviewer's first request

    view = QueueView(source=source, item_type=item_type, category=category, language=language, q=q, sort=sort)
    return queue.review_queue(limit, cursor, reviewing(router), view)


@router.get(
    "/review/groups",
    summary="Reviewers: the provisional short-answer grades of a page of the queue, by review group "
    "(answers of one bank item graded alike or worded alike), largest first; filters and cursor as the queue's",
    responses=review_responses(200, ReviewGroups, "The groups"),
)
def review_groups(
    *,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    cursor: Annotated[str | None, Query(min_length=1, max_length=4096, pattern=CURSOR_PATTERN)] = None,
    item_type: Annotated[QuestionType | None, Query()] = None,
    category: Annotated[Category | None, Query()] = None,
    language: Annotated[Language | None, Query()] = None,
    q: Annotated[
        str | None, Query(min_length=1, max_length=100, pattern=r"\S", description="text in the stem or answer")
    ] = None,
) -> ReviewGroups:
    from slea.logic.review import groups  # noqa: PLC0415 - loaded by a reviewer's first request

    view = QueueView(source="grade", item_type=item_type, category=category, language=language, q=q)
    return groups.review_groups(limit, cursor, reviewing(router), view)


@router.post(
    "/review/groups/<group_id>",
    summary="Reviewers: one action grades every waiting answer of a review group (each updated and "
    "audited with the group's id); members in `exclude` stay in the queue",
    responses=review_responses(200, GroupReviewed, "Each member's result"),
)
def review_group(group_id: ItemId, request: Annotated[GroupReviewRequest, Body()]) -> GroupReviewed:
    from slea.logic.review import groups  # noqa: PLC0415 - loaded by a reviewer's first request

    return groups.review_group(group_id, reviewing(router), request, _reviewer_name())


@router.post(
    "/review/groups/<group_id>/revert",
    summary="Reviewers: undo the group's latest one-action grade (each member it reviewed back as it was, "
    "unless reviewed since); a reason is required",
    responses=review_responses(200, GroupReverted, "What was reverted and what was kept"),
)
def revert_group(group_id: ItemId, request: Annotated[UndoRequest, Body()]) -> GroupReverted:
    from slea.logic.review import groups  # noqa: PLC0415 - loaded by a reviewer's first request

    return groups.revert_group(group_id, reviewing(router), request, _reviewer_name())


# Before /review/attempts/<attempt_id>: "accept" would otherwise be taken for an attempt id.
@router.post(
    "/review/attempts/accept",
    summary="Reviewers: accept up to 50 automatic grades, each on its own; a repeat changes nothing",
    responses=review_responses(200, BulkAccepted, "Each attempt's result"),
)
def review_bulk_accept(request: Annotated[BulkAcceptRequest, Body()]) -> BulkAccepted:
    from slea.logic.review import bulk as review  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    return review.bulk_accept(request, reviewing(router), _reviewer_name())


@router.post(
    "/review/attempts/<attempt_id>",
    summary="Reviewers: accept or override a provisional grade (a reason is required to override); an override "
    "of a final grade is a proposal that a second reviewer confirms or rejects",
    responses=review_responses(200, AttemptReviewed, "The attempt as reviewed"),
)
def review_attempt(attempt_id: ItemId, request: Annotated[AttemptReviewRequest, Body()]) -> AttemptReviewed:
    from slea.logic.review import grades as review  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    return review.review_attempt(attempt_id, reviewing(router), request, _reviewer_name())


@router.post(
    "/review/attempts/<attempt_id>/undo",
    summary="Reviewers: undo the attempt's latest accept, override or confirmed change (its grade and state as "
    "before, refused if it was reviewed since); a reason is required",
    responses=review_responses(200, AttemptReviewed, "The attempt as restored"),
)
def undo_attempt_review(attempt_id: ItemId, request: Annotated[UndoRequest, Body()]) -> AttemptReviewed:
    from slea.logic.review import undo as review  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    return review.undo_attempt_review(attempt_id, reviewing(router), request, _reviewer_name())


@router.post(
    "/review/questions/<question_id>",
    summary="Reviewers: accept, retire or edit a question (a reason is required to retire or edit); retiring "
    "or editing a copy drawn from the bank acts on its bank item too",
    responses=review_responses(200, QuestionReviewed, "The question as reviewed"),
)
def review_question(question_id: ItemId, request: Annotated[QuestionReviewRequest, Body()]) -> QuestionReviewed:
    from slea.logic.review import question_actions as review  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    return review.review_question(question_id, reviewing(router), request, _reviewer_name())


@router.post(
    "/review/questions/<question_id>/unretire",
    summary="Reviewers: undo a retirement (the question, the bank items retired with it and the templates it "
    "deactivated are active again); a reason is required",
    responses=review_responses(200, QuestionReviewed, "The question, active again"),
)
def unretire_question(question_id: ItemId, request: Annotated[UndoRequest, Body()]) -> QuestionReviewed:
    from slea.logic.review import question_actions as review  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    return review.unretire_question(question_id, reviewing(router), request, _reviewer_name())


@router.post(
    "/review/questions/<question_id>/revert-edit",
    summary="Reviewers: undo the question's latest edit (its text and key, and its bank item's, as "
    "before; refused if edited again since); a reason is required",
    responses=review_responses(200, QuestionReviewed, "The question as restored"),
)
def revert_edit(question_id: ItemId, request: Annotated[UndoRequest, Body()]) -> QuestionReviewed:
    from slea.logic.review import question_actions as review  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    return review.revert_edit(question_id, reviewing(router), request, _reviewer_name())


@router.post(
    "/review/bulk/<bulk_id>/revert",
    summary="Reviewers: undo a bulk accept (its attempts go back to the queue, unless reviewed since); "
    "a reason is required",
    responses=review_responses(200, BulkReverted, "What was reverted and what was kept"),
)
def revert_bulk(bulk_id: ItemId, request: Annotated[UndoRequest, Body()]) -> BulkReverted:
    from slea.logic.review import bulk as review  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    return review.revert_bulk(bulk_id, reviewing(router), request, _reviewer_name())


@router.get(
    "/review/stats",
    summary="Reviewers: how often reviewers agreed with the automatic grades, and the queue's size",
    responses=review_responses(200, ReviewStats, "The statistics"),
)
def review_stats() -> ReviewStats:
    from slea.logic.review import trail as review  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    return review.review_stats()


@router.get(
    "/review/audit",
    summary="Reviewers: the review record of an attempt or question",
    responses=review_responses(200, AuditRecords, "The records, oldest first"),
)
def review_audit(
    target_id: Annotated[str, Query(min_length=1, max_length=128, pattern=SESSION_ID_PATTERN)],
) -> AuditRecords:
    from slea.logic.review import trail as review  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    return review.audit(target_id)


@router.get(
    "/review/audit/recent",
    summary="Reviewers: every reviewer's latest actions, newest first",
    responses=review_responses(200, AuditRecords, "The records, newest first"),
)
def review_recent_audit(limit: Annotated[int, Query(ge=1, le=100)] = 50) -> AuditRecords:
    from slea.logic.review import trail as review  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    return review.recent_audit(limit)


@router.get(
    "/review/items",
    summary="Reviewers: item analysis - calibrated difficulty, its uncertainty, answers, facility, "
    "discrimination, fit and exposure; flagged items first",
    responses=review_responses(200, ItemAnalysis, "A page of items"),
)
def review_items(
    *,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(min_length=1, max_length=512, pattern=CURSOR_PATTERN)] = None,
    category: Annotated[Category | None, Query()] = None,
    flagged: Annotated[bool, Query(description="only items with a flag")] = False,
    item_type: Annotated[QuestionType | None, Query()] = None,
    sort: Annotated[SortColumn, Query(description="the column to sort by, after flagged items first")] = "b",
    order: Annotated[Literal["asc", "desc"], Query()] = "asc",
) -> ItemAnalysis:
    from slea.logic.review import item_analysis  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    return item_analysis.item_analysis(
        limit=limit, cursor=cursor, category=category, flagged=flagged, item_type=item_type, sort=sort, order=order
    )
