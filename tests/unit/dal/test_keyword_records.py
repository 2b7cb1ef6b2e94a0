"""A keywords item read as a typed record (dal/keywords.py `stored_keywords`)."""

from slea.dal.keywords import StoredKeywords, stored_keywords


def test_a_keywords_item_reads_as_a_record_with_its_entries_as_stored():
    item = {"difficulty": 5, "category": "technical", "keywords": ["RAG", "LLM"], "concepts": [{"name": "x"}]}
    assert stored_keywords(item) == StoredKeywords(5, "technical", ("RAG", "LLM"), ({"name": "x"},), ())


def test_a_value_stored_where_a_list_belongs_is_no_list():
    assert stored_keywords({"difficulty": 5, "category": "technical", "keywords": "RAG"}).keywords is None
