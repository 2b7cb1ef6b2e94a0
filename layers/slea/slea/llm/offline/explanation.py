"""The offline provider's explainer: the verdict in the right tone, the correct answer (for a short
answer, the reference answer), why (the explanation stored with the question), which expected terms
the answer used or missed, and how to study the topic next. Kept apart from the grader so that a
multiple-choice or true/false answer never loads the short-answer grading code."""

from slea.constants import HANGUL
from slea.contracts.answers import choice_index
from slea.llm.references import references_for, topic_terms
from slea.llm.schemas import Explanation, GradingItem

TEXT = {
    "en": {
        "right": "Well done: your answer is correct.",
        "wrong": "Not quite yet, and that is a useful result: it shows exactly what to review next.",
        "answer_mc": "The correct choice is {answer}.",
        "answer_tf": "The statement is {answer}.",
        "answer_sa": "A complete answer covers these terms: {answer}.",
        "model_answer": "A model answer: {answer}",
        "why": "Why: {reason}",
        "used": "Your answer already uses: {terms}.",
        "missed": "Worth adding next time: {terms}.",
        "study": (
            "How to study this topic: restate the concept in one sentence of your own, then list the two or "
            "three properties that distinguish it from its neighbours, and check each against a concrete "
            "system you know. For multiple-choice and true/false items, test every option against the "
            "definition rather than looking for familiar words; for short answers, name the concept, "
            "explain how it works, and give one example of when you would use it."
        ),
        "next": "Next step: read one of the references below and try a question one level harder.",
    },
    "ko": {
        "right": "잘했습니다. 정답입니다.",
        "wrong": "아쉽게도 정답이 아닙니다. 하지만 무엇을 복습해야 할지 정확히 알려 주는 좋은 결과입니다.",
        "answer_mc": "정답은 {answer} 입니다.",
        "answer_tf": "이 진술은 {answer} 입니다.",
        "answer_sa": "완성도 높은 답안은 다음 용어를 다룹니다: {answer}.",
        "model_answer": "모범 답안: {answer}",
        "why": "이유: {reason}",
        "used": "답안에서 이미 다룬 용어: {terms}.",
        "missed": "다음에 추가하면 좋은 용어: {terms}.",
        "study": (
            "학습 방법: 먼저 개념을 자신의 말로 한 문장으로 정리하고, "
            "비슷한 개념과 구별되는 특징 두세 가지를 적은 뒤, 알고 있는 실제 시스템에 하나씩 적용해 보세요. "
            "객관식과 참/거짓 문항은 익숙한 단어를 찾기보다 각 보기를 정의와 하나씩 대조하고, "
            "서술형 문항은 개념의 이름, 동작 방식, 사용하는 상황의 예를 순서대로 쓰면 좋습니다. "
            "틀린 보기가 왜 틀렸는지도 설명할 수 있다면 개념을 제대로 이해한 것입니다."
        ),
        "next": "다음 단계: 아래 참고 자료 중 하나를 읽고, 한 단계 더 어려운 문제에 도전해 보세요.",
    },
}


def _expected_answer(item: GradingItem) -> str:
    if item.question_type == "short_answer":
        return ", ".join(item.correct_keywords)
    if item.question_type == "multiple_choice" and item.correct_answer:
        index = choice_index(item.correct_answer, item.choices)
        return item.choices[index] if index is not None else item.correct_answer
    return item.correct_answer or ""


def explain_offline(item: GradingItem) -> Explanation:
    sources = (item.stem or "", item.reference_answer or "", item.reference_explanation or "")
    language = "ko" if any(HANGUL.search(source) for source in sources) else "en"
    text = TEXT[language]
    kind = {"multiple_choice": "answer_mc", "true_false": "answer_tf", "short_answer": "answer_sa"}[item.question_type]
    parts = [text["right" if item.is_correct else "wrong"], text[kind].format(answer=_expected_answer(item))]
    if item.question_type == "short_answer" and item.reference_answer:
        parts.append(text["model_answer"].format(answer=item.reference_answer))
    if item.reference_explanation:
        parts.append(text["why"].format(reason=item.reference_explanation))
    if item.question_type == "short_answer":
        missed = [keyword for keyword in item.correct_keywords if keyword not in item.keyword_matches]
        if item.keyword_matches:
            parts.append(text["used"].format(terms=", ".join(item.keyword_matches)))
        if missed:
            parts.append(text["missed"].format(terms=", ".join(missed)))
    parts += [text["study"], text["next"]]
    terms = topic_terms(item.correct_keywords, item.reference_explanation, item.stem, item.category)
    return Explanation(explanation="\n\n".join(parts), reference_links=references_for(terms, minimum=3))
