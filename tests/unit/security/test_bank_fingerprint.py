"""The bank's identity of an item (security/exposure.py `bank_fingerprint`): its stem and key, with
its type, compared as exposure.py compares items; never its id, its choice order or distractors."""

from slea.security.exposure import bank_fingerprint, stored_item


def stored(**changes):
    return {
        "question_id": "q1",
        "item_type": "multiple_choice",
        "stem": "What is RAG?",
        "choices": ["A) Retrieval", "B) Generation", "C) Retrieval and generation", "D) Neither"],
        "answer_schema": {"correct_key": "C"},
        **changes,
    }


def fingerprint(**changes):
    return bank_fingerprint(stored_item(stored(**changes)))


def test_the_same_stem_and_key_is_one_fingerprint_whatever_the_id_order_or_spelling():
    same = [
        fingerprint(question_id="q2"),
        fingerprint(stem="what is  RAG"),
        fingerprint(
            choices=["A) Retrieval and generation", "B) Neither", "C) Generation", "D) Retrieval"],
            answer_schema={"correct_key": "A"},
        ),
        fingerprint(choices=["A) Caching", "B) Indexing", "C) RETRIEVAL AND GENERATION.", "D) Sharding"]),
    ]
    assert set(same) == {fingerprint()}


def test_another_stem_key_or_type_is_another_fingerprint():
    others = {
        fingerprint(stem="What is retrieval-augmented generation?"),
        fingerprint(answer_schema={"correct_key": "B"}),
        fingerprint(item_type="true_false", choices=["True", "False"], answer_schema={"correct_key": "True"}),
    }
    assert len(others) == 3
    assert fingerprint() not in others


def test_a_short_answer_is_keyed_by_its_terms_in_any_order():
    def short(*terms):
        return fingerprint(item_type="short_answer", choices=None, answer_schema={"correct_keywords": list(terms)})

    assert short("retrieval", "Generation") == short("generation", "retrieval")
    assert short("retrieval") != short("retrieval", "generation")
