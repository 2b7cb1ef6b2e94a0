"""The review trail as reviewers read it: agreement counters, the latest actions, and one
target's history (slea.dal.review)."""

from slea.contracts.review import (
    AuditRecord,
    AuditRecords,
    ReviewStats,
)
from slea.dal import review
from slea.platform.observability import tracer


# ---------------------------------------------------------------- the record
@tracer.capture_method
def review_stats() -> ReviewStats:
    counted = review.counters()
    accepted, overridden = counted.accepted, counted.overridden
    reviewed = accepted + overridden
    return ReviewStats(
        reviewed=reviewed,
        accepted=accepted,
        overridden=overridden,
        agreement=round(accepted / reviewed, 4) if reviewed else None,
        questions_retired=counted.questions_retired,
        questions_edited=counted.questions_edited,
        questions_accepted=counted.questions_accepted,
        open=review.count_open(),
        proposals=max(counted.proposals, 0),
    )


def _record(stored: review.ReviewRecord) -> AuditRecord:
    """The record as stored (the trail shows every field it kept), under its key."""
    return AuditRecord.model_validate({**stored.as_stored, "audit_id": stored.audit_key})


@tracer.capture_method
def recent_audit(limit: int) -> AuditRecords:
    """Every reviewer's latest actions, newest first."""
    return AuditRecords(records=[_record(stored) for stored in review.recent_review_records(limit)])


@tracer.capture_method
def audit(target_id: str) -> AuditRecords:
    return AuditRecords(records=[_record(stored) for stored in review.review_records(target_id)])
