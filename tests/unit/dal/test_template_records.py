"""A stored template read as a typed record (dal/templates.py `stored_template`)."""

from slea.dal.templates import stored_template


def test_a_template_item_reads_as_the_fields_the_search_filters_on():
    item = {"id": "t1", "category": "technical", "domain": "RAG", "avg_difficulty_score": 5, "usage_count": 3}
    record = stored_template(item)
    assert (record.category, record.domain, record.avg_difficulty_score, record.usage_count) == (
        "technical",
        "RAG",
        5.0,
        3,
    )
    assert record.is_active  # absent: active
    assert record.as_stored == item


def test_what_a_template_lacks_or_holds_wrongly_reads_as_no_candidate():
    record = stored_template({"id": "t1", "avg_difficulty_score": "high", "is_active": "yes"})
    assert (record.category, record.domain, record.avg_difficulty_score, record.usage_count) == (None, "", None, 0)
    assert not record.is_active  # anything but true
