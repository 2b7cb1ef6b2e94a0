"""The review trail as reviewers read it: agreement counters, the latest actions, and one
target's history (slea.dal.review)."""

from typing import Any

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
    accepted, overridden = counted.get("accepted", 0), counted.get("overridden", 0)
    reviewed = accepted + overridden
    return ReviewStats(
        reviewed=reviewed,
        accepted=accepted,
        overridden=overridden,
        agreement=round(accepted / reviewed, 4) if reviewed else None,
        questions_retired=counted.get("questions_retired", 0),
        questions_edited=counted.get("questions_edited", 0),
        questions_accepted=counted.get("questions_accepted", 0),
        open=review.count_open(),
        proposals=max(counted.get("proposals", 0), 0),
    )


def _record(stored: dict[str, Any]) -> AuditRecord:
    return AuditRecord.model_validate({**stored, "audit_id": stored["audit_key"]})


@tracer.capture_method
def recent_audit(limit: int) -> AuditRecords:
    """Every reviewer's latest actions, newest first."""
    return AuditRecords(records=[_record(stored) for stored in review.recent_audit_records(limit)])


@tracer.capture_method
def audit(target_id: str) -> AuditRecords:
    return AuditRecords(records=[_record(stored) for stored in review.audit_records(target_id)])
