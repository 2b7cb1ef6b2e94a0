"""Required terms are ideas, never product names unless the question asks for them: one rule
(language/required_terms.py) for the grader's key term set and the feedback's "did not mention"."""

import pytest

from slea.contracts.llm import Explanation, GradingItem
from slea.feedback.details import details_of
from slea.feedback.short_answer import missed_terms
from slea.grading.short_answer_evidence import material_for
from slea.language.required_terms import required_terms

REFERENCE = (
    "A message queue decouples producers from consumers (producer-consumer). Brokers such as RabbitMQ or "
    "Apache Kafka redeliver a failed message; after too many tries it goes to a dead-letter queue, where "
    "Kafka and other brokers keep it for inspection."
)
KEYWORDS = ["producer-consumer", "RabbitMQ", "dead-letter", "Apache Kafka"]
STEM = "How does a message queue deal with messages that keep failing?"


def test_product_names_are_not_required_terms_ideas_and_acronyms_are():
    assert required_terms(KEYWORDS, STEM, [REFERENCE]) == ["producer-consumer", "dead-letter"]
    assert required_terms(["ACID", "DynamoDB", "isolation"], "What does ACID guarantee?", ["ACID ..."]) == [
        "ACID",
        "isolation",
    ]


@pytest.mark.parametrize(
    "stem",
    [
        "Which tool would you pick to queue messages that keep failing?",
        "Which service keeps failed messages for inspection?",
        "실패한 메시지를 보관하는 도구는 무엇입니까?",
    ],
)
def test_a_question_that_asks_for_a_product_keeps_them(stem):
    assert required_terms(KEYWORDS, stem, [REFERENCE]) == KEYWORDS


def test_a_name_the_question_uses_or_the_items_own_concept_is_kept():
    assert "RabbitMQ" in required_terms(KEYWORDS, "How does RabbitMQ deal with failing messages?", [REFERENCE])
    head = "Apache Kafka (Kafka): a distributed event log."
    assert "Apache Kafka" in required_terms(KEYWORDS, STEM, [REFERENCE, head])


def test_a_capitalised_word_written_small_somewhere_or_only_at_a_sentence_start_is_an_idea():
    text = "Idempotency lets a consumer retry safely. Retries need idempotency."
    assert required_terms(["Idempotency", "retry"], "Why retry?", [text]) == ["Idempotency", "retry"]
    assert required_terms(["Backpressure"], "What slows producers?", ["Backpressure slows producers."]) == [
        "Backpressure"
    ]


def test_korean_keywords_are_never_names_and_latin_names_in_korean_text_are():
    text = "메시지 큐는 RabbitMQ나 Kafka 같은 브로커로 구현하며, 실패한 메시지는 데드레터 큐로 보냅니다."
    assert required_terms(["메시지 큐", "RabbitMQ", "Kafka", "데드레터"], "메시지 큐는 무엇입니까?", [text]) == [
        "메시지 큐",
        "데드레터",
    ]


def test_only_names_are_kept_rather_than_nothing():
    assert required_terms(["RabbitMQ", "DynamoDB"], STEM, [REFERENCE]) == ["RabbitMQ", "DynamoDB"]


def item(answer, matches):
    return GradingItem(
        question_type="short_answer",
        user_answer=answer,
        stem=STEM,
        reference_answer=REFERENCE,
        correct_keywords=KEYWORDS,
        keyword_matches=matches,
        is_correct=False,
    )


def test_the_feedback_never_says_a_product_name_was_missing_and_the_grader_does_not_count_it():
    wrong = item("Messages go round.", [])
    assert missed_terms(wrong) == ["producer-consumer", "dead-letter"]
    details = details_of(wrong, Explanation(), [], needs_review=False, score=30)
    assert "RabbitMQ" not in (details.why_yours_is_wrong or "")
    assert "Kafka" not in (details.why_yours_is_wrong or "")
    assert "producer-consumer" in (details.why_yours_is_wrong or "")
    assert material_for(wrong).keywords == ["producer-consumer", "dead-letter"]  # the grader's set: the same rule


def test_an_answer_with_the_ideas_and_another_broker_misses_nothing():
    from slea.grading.short_answer_evidence import grade_with_evidence

    answer = (
        "Producers and consumers are decoupled (producer-consumer); a message that keeps failing is moved to "
        "a dead-letter queue after its retries, for example in Amazon SQS."
    )
    graded = grade_with_evidence(item(answer, []))
    assert sorted(graded.keyword_matches) == ["dead-letter", "producer-consumer"]
    assert missed_terms(item(answer, graded.keyword_matches)) == []
