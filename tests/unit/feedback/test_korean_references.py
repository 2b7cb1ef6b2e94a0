"""Korean learners get reference links as often as English ones: a Korean item with no source of
its own is offered the sources recorded with its English twin (named in English in its stem or
explanation, or by acronym), each labelled 영문 자료 in its title; an item with
sources of its own, and every English item, keeps exactly its own. The catalogue holds only
sources recorded in the seed (references are real or absent)."""

import json
from pathlib import Path

from slea.contracts.scoring import ReferenceLink
from slea.feedback.references import ENGLISH_LABEL, _english_sources, catalogue_key, english_names, for_learner

SEED = Path(__file__).resolve().parents[3] / "data" / "demo_seed.json"
OWN = [ReferenceLink(title="위키백과: 인공지능", url="https://ko.wikipedia.org/wiki/AI")]


def test_a_korean_item_without_sources_gets_its_english_twins_labelled_as_english():
    links = for_learner([], "ko", "대규모 언어 모델(LLM): 방대한 텍스트로 학습한 신경망.", "LLM이란 무엇인가요?")
    assert links, "no English source offered"
    assert all(link.title.startswith(f"{ENGLISH_LABEL}: ") for link in links)
    assert all(link.url.startswith("https://") for link in links)


def test_the_english_name_in_parentheses_or_the_acronym_finds_the_twin():
    assert english_names("퓨샷 프롬프팅(Few-Shot Prompting): 예시 몇 개", "API란?") == ["Few-Shot Prompting", "API"]
    by_name = for_learner([], "ko", "애플리케이션 프로그래밍 인터페이스(Application Programming Interface): 정의", None)
    by_acronym = for_learner([], "ko", None, "API는 무엇을 정의하나요?")
    assert by_name
    assert by_name == by_acronym


def test_own_sources_and_english_items_are_left_as_they_are():
    assert for_learner(OWN, "ko", "대규모 언어 모델(LLM): 정의", None) == OWN
    assert for_learner([], "en", "Large language model (LLM): a neural network", None) == []
    assert (
        for_learner([], "ko", "이해관계자: 프로젝트에 영향을 주는 사람", None) == []
    )  # no English name: nothing guessed


def test_a_comparison_never_gets_the_other_concepts_sources():
    # The stem's only English name is the other side's: its sources are about another concept
    # (and may name another item's key), so none is offered.
    stem = "미세 조정은 검색 증강 생성(RAG)과 어떻게 다른가? 핵심 차이를 설명하시오."
    assert for_learner([], "ko", None, stem) == []
    # The explanation's head names the item's own concept first.
    explanation = "대규모 언어 모델(LLM): 방대한 텍스트로 학습한 신경망. 검색 증강 생성(RAG)과 함께 쓰임."
    assert for_learner([], "ko", explanation, stem) == for_learner([], "ko", "(LLM): x", None)


def test_the_catalogue_holds_only_sources_recorded_with_english_concepts_of_the_seed():
    recorded = {
        (source["title"], source["url"])
        for record in json.loads(SEED.read_text(encoding="utf-8"))["keywords"]
        for concept in record["concepts"]
        if concept.get("language", "en") == "en"
        for source in concept.get("sources") or []
    }
    catalogue = _english_sources()
    assert len(catalogue) > 300
    for links in catalogue.values():
        for link in links:
            assert (link["title"], link["url"]) in recorded
    assert catalogue_key("Few-Shot Prompting") == catalogue_key("few shot prompting")


def test_the_grading_item_of_a_stored_korean_question_carries_the_labelled_sources():
    # Where Tool 6 reads a stored question (logic/answering/grading.py): the learner's explanation
    # and its reference links are built from these sources.
    from slea.contracts.scoring import ScoreAnswerInput
    from slea.dal.question_records import stored_question
    from slea.logic.answering.grading import grading_item

    request = ScoreAnswerInput(
        session_id="s-1",
        user_id="u-1",
        question_id="q-1",
        question_type="multiple_choice",
        user_answer="B",
        correct_answer="B",
        choices=["A) 데이터베이스", "B) 대규모 텍스트로 학습한 신경망", "C) 웹 서버", "D) 프로그래밍 언어"],
    )
    stored = {
        "stem": "다음 중 대규모 언어 모델(LLM)에 대한 설명으로 가장 적절한 것은?",
        "answer_schema": {"explanation": "대규모 언어 모델(LLM): 방대한 텍스트로 학습한 거대한 신경망."},
    }
    item = grading_item(request, stored_question(stored), [])
    assert item.sources
    assert all(link.title.startswith(f"{ENGLISH_LABEL}: ") for link in item.sources)
    english = {**stored, "stem": "Which best describes a large language model (LLM)?", "answer_schema": {}}
    changed = request.model_copy(update={"choices": ["A) x", "B) y"]})
    assert grading_item(changed, stored_question(english), []).sources == []
