"""Feedback that teaches: one graded answer told in parts (the question, the learner's
answer, the key, why the key is right, why the learner's pick is wrong, next steps that fit the
result), and the prose explanation composed from the same parts with no sentence said twice.

Both providers' explanations pass through here: the parts a provider left empty are the offline
explainer's, so a model's explanation and a cached one are laid out alike. Every fixed phrase is
in the question's language, with no Korean particle attached to a variable (a name is followed by
a colon or by 의, which fits any final consonant)."""

import re

from slea.constants import EXPLANATION_MIN_LENGTH, Language
from slea.contracts.answers import choice_index, truth_value
from slea.contracts.keywords import ChoiceNote
from slea.contracts.llm import Explanation, GradingItem
from slea.contracts.scoring import FeedbackDetails, ReferenceLink, RubricPoints
from slea.feedback.short_answer import key_terms, missed_terms, score_reason, study_terms, used_terms
from slea.language.detect import question_language
from slea.measurement import scale
from slea.measurement.scale import NextRound

URL = re.compile(r"\s*\(?<?https?://[^\s)>]+>?\)?")  # a link written into prose: the references list it
SENTENCE_END = re.compile(r"(?<=[.!?。])\s+|\n+")
PARAGRAPH = re.compile(r"\n\s*\n")
LABEL = re.compile(r"^\s*[A-Ea-e][).:]\s*")
KEY_RESTATED_MIN_LENGTH = 20  # a key this long (a definition, not a name) is not said twice
NAME_MAX_LENGTH = 80
# A model answer and a "why" this alike say the same thing: the "why" is left out (else the
# feedback repeats itself).
SAME_CONTENT_RATIO = 80

PHRASES: dict[Language, dict[str, str]] = {
    "en": {
        "right": "Well done: your answer is correct.",
        "wrong": "Not quite yet, and that is a useful result: it shows exactly what to review next.",
        "provisional": "This grade is provisional: a reviewer will confirm it.",
        "your_answer": "Your answer:",
        "correct_answer": "The correct answer:",
        "model_answer": "A model answer:",
        "covers_terms": "A complete answer covers these terms: {terms}.",
        "why": "Why:",
        "why_wrong": "Why your answer is not right:",
        "why_short": "What your answer is missing:",
        "other_concept_definition": "The option you chose is the definition of a different concept: {concept}.",
        "other_concept_name": "The option you chose is {concept}, which means: {definition}",
        # Why a wrong pick does not fit, said without its name (sayable while the round is open).
        "pick_not_definition": (
            "The option you chose does not define {concept}, the concept the question asks about: it is the"
            " definition of another concept, and it leaves out what makes {concept} what it is."
        ),
        "stem_defines_key": (
            "The description in the question is the definition of {concept}, the correct answer; the option"
            " you chose names a concept with another definition."
        ),
        "pick_does_not_fit": (
            "The option you chose does not fit what the question says about {concept}; the correct answer"
            " does, for the reason given with it."
        ),
        "pick_does_not_fit_any": (
            "The option you chose does not fit what the question describes; the correct answer does, for the"
            " reason given with it."
        ),
        "definition_of": "That is the definition of {concept}.",
        "tf_true": "The statement is true.",
        "tf_false": "The statement is false: it does not agree with the concept's definition.",
        "tf_wrong": "You judged it {answer}; check each part of the statement against the definition.",
        "missed": "Your answer did not mention: {terms}.",
        "used": "It did cover: {terms}.",
        "review_concept": "Review the concept this question is about: {concept}.",
        "review": "Review this question's concept: its definition and key points are above.",
        "reread": "Re-read the first of the references below.",
        "same_level": "Then try another question at the same level.",
        "harder": "Ready for more: try a question one level harder.",
        # The next round as the planner will make it (target.next_round), beside the item just met.
        "next_harder": "Ready for more: your next round is harder, at difficulty {words}.",
        "next_same": "Your next round stays at the same level, difficulty {words}.",
        "next_easier": "Your next round is easier, at difficulty {words}; first make this level your own.",
        "difficulty_words": "{label} of 10: {level}",
        "level.novice": "novice",
        "level.beginner": "beginner",
        "level.intermediate": "intermediate",
        "level.advanced": "advanced",
        "level.expert": "expert",
        "deeper": "To go deeper, read the references below.",
        "next_heading": "Next steps:",
        "study": (
            "How to study this topic: restate the concept in one sentence of your own, then list the two or "
            "three properties that distinguish it from its neighbours, and check each against a concrete "
            "system you know. For multiple-choice and true/false items, test every option against the "
            "definition rather than looking for familiar words; for short answers, name the concept, "
            "explain how it works, and give one example of when you would use it."
        ),
        "check": "Check that you can state the definition of {term}, how it works, and one situation where it applies.",
    },
    "ko": {
        "right": "잘했습니다. 정답입니다.",
        "wrong": "아쉽게도 정답이 아닙니다. 하지만 무엇을 복습해야 할지 정확히 알려 주는 좋은 결과입니다.",
        "provisional": "이 점수는 잠정적입니다. 검토자가 확인할 예정입니다.",
        "your_answer": "제출한 답:",
        "correct_answer": "정답:",
        "model_answer": "모범 답안:",
        "covers_terms": "완성도 높은 답안은 다음 용어를 다룹니다: {terms}.",
        "why": "이유:",
        "why_wrong": "제출한 답이 틀린 이유:",
        "why_short": "답안에 부족한 점:",
        "other_concept_definition": "선택한 보기는 다른 개념의 정의입니다: {concept}.",
        "other_concept_name": "선택한 보기 {concept}의 뜻: {definition}",
        "pick_not_definition": (
            "선택한 보기는 문항이 묻는 개념의 정의가 아닙니다. 다른 개념의 정의이며, 다음 개념을 그 개념답게 만드는"
            " 핵심이 빠져 있습니다: {concept}."
        ),
        "stem_defines_key": ("문항의 설명은 정답 개념의 정의입니다: {concept}. 선택한 보기는 정의가 다른 개념입니다."),
        "pick_does_not_fit": (
            "선택한 보기는 문항이 다음 개념에 대해 말하는 내용과 맞지 않습니다: {concept}. 정답이 맞는 이유는"
            " 정답과 함께 설명되어 있습니다."
        ),
        "pick_does_not_fit_any": (
            "선택한 보기는 문항이 설명하는 내용과 맞지 않습니다. 정답이 맞는 이유는 정답과 함께 설명되어 있습니다."
        ),
        "definition_of": "정답 보기는 다음 개념의 정의입니다: {concept}.",
        "tf_true": "이 진술은 참입니다.",
        "tf_false": "이 진술은 거짓입니다. 개념의 정의와 맞지 않습니다.",
        "tf_wrong": "제출한 답: {answer}. 진술의 각 부분을 정의와 하나씩 대조해 보세요.",
        "missed": "답안에 빠진 용어: {terms}.",
        "used": "답안에서 다룬 용어: {terms}.",
        "review_concept": "이 문항의 개념을 복습하세요: {concept}.",
        "review": "이 문항의 개념을 복습하세요. 위의 정의와 핵심 요소를 다시 읽어 보세요.",
        "reread": "아래 참고 자료의 첫 번째 항목을 다시 읽어 보세요.",
        "same_level": "그다음 같은 난이도의 다른 문제에 도전해 보세요.",
        "harder": "준비가 되었다면 한 단계 더 어려운 문제에 도전해 보세요.",
        "next_harder": "준비가 되었습니다. 다음 라운드는 더 어려운 난이도({words})입니다.",
        "next_same": "다음 라운드도 같은 난이도({words})입니다.",
        "next_easier": "다음 라운드는 더 쉬운 난이도({words})입니다. 먼저 이 수준을 확실히 익혀 보세요.",
        "difficulty_words": "10단계 중 {label}단계: {level}",
        "level.novice": "입문",
        "level.beginner": "초급",
        "level.intermediate": "중급",
        "level.advanced": "고급",
        "level.expert": "전문가",
        "deeper": "더 깊이 알아보려면 아래 참고 자료를 읽어 보세요.",
        "next_heading": "다음 단계:",
        "study": (
            "학습 방법: 먼저 개념을 자신의 말로 한 문장으로 정리하고, "
            "비슷한 개념과 구별되는 특징 두세 가지를 적은 뒤, 알고 있는 실제 시스템에 하나씩 적용해 보세요. "
            "객관식과 참/거짓 문항은 익숙한 단어를 찾기보다 각 보기를 정의와 하나씩 대조하고, "
            "서술형 문항은 개념의 이름, 동작 방식, 사용하는 상황의 예를 순서대로 쓰면 좋습니다. "
            "틀린 보기가 왜 틀렸는지도 설명할 수 있다면 개념을 제대로 이해한 것입니다."
        ),
        "check": "다음 개념의 정의, 동작 방식, 적용 상황을 하나씩 말할 수 있는지 확인하세요: {term}.",
    },
}


# Distinct study tips, added one by one while the prose is shorter than the spec's minimum.
STUDY_TIPS: dict[Language, tuple[str, ...]] = {
    "en": (
        "A good test of understanding: explain why each wrong option is wrong, in one sentence each.",
        "Write down one example from your own work where this concept mattered, and one where it did not.",
        "Come back to this question tomorrow and answer it before reading the explanation again.",
        "Explain the concept aloud to a colleague in two minutes; where you hesitate is what to re-read.",
        "Compare the concept with the one it is most often confused with, and name the difference that matters.",
    ),
    "ko": (
        "이해했는지 확인하는 좋은 방법: 각 오답이 왜 틀렸는지 한 문장씩 설명해 보세요.",
        "이 개념이 중요했던 실무 사례 하나와 그렇지 않았던 사례 하나를 적어 보세요.",
        "내일 이 문항을 다시 풀어 보고, 해설을 읽기 전에 먼저 답해 보세요.",
        "동료에게 이 개념을 2분 안에 설명해 보세요. 설명하다 막히는 부분이 다시 읽어야 할 부분입니다.",
        "이 개념과 가장 자주 혼동되는 개념을 골라, 실무에서 중요한 차이를 한 가지 적어 보세요.",
        "처음 이 문항을 읽었을 때 헷갈린 단어가 있었다면, 그 단어의 뜻부터 정확히 찾아 정리해 보세요.",
    ),
}


def language_of(item: GradingItem) -> Language:
    """The question's language (a Korean question's feedback is Korean)."""
    return question_language(item.stem, item.choices, item.reference_answer, item.reference_explanation)


def option_text(choice: str) -> str:
    """A choice without its "A) " label."""
    return LABEL.sub("", choice, count=1).strip()


def picked_option(item: GradingItem) -> int | None:
    """The index of the option the learner chose, if the answer names one."""
    return choice_index(item.user_answer, item.choices) if item.choices else None


def _keyed_option(item: GradingItem) -> int | None:
    return choice_index(item.correct_answer, item.choices) if item.choices and item.correct_answer else None


def _note_for(item: GradingItem, index: int | None) -> ChoiceNote | None:
    """The note of the option at `index`, matched by its text (an option edited since has none)."""
    if index is None:
        return None
    text = option_text(item.choices[index])
    return next((note for note in item.choice_notes if note.option.strip() == text), None)


def concept_of(item: GradingItem) -> str | None:
    """The concept the question is about: the key option's note, else the name that opens the
    stored explanation ("Name (ACR): definition ...")."""
    note = _note_for(item, _keyed_option(item))
    if note is not None:
        return note.concept
    head = (item.reference_explanation or "").split(":", 1)[0].strip()
    if item.reference_explanation and ":" in item.reference_explanation and 0 < len(head) <= 80:
        return head
    return None


def _your_answer(item: GradingItem) -> str:
    picked = picked_option(item)
    return option_text(item.choices[picked]) if picked is not None else item.user_answer


def _correct_answer(item: GradingItem, text: dict[str, str]) -> str | None:
    if item.question_type == "short_answer":
        if item.reference_answer:
            return item.reference_answer
        terms = key_terms(item)
        return text["covers_terms"].format(terms=", ".join(terms)) if terms else None
    keyed = _keyed_option(item)
    if item.question_type == "multiple_choice" and keyed is not None:
        return option_text(item.choices[keyed])
    return item.correct_answer


def _key_not_restated(why: str | None, answer: str | None, text: dict[str, str]) -> str | None:
    """A "why" of the form "Name: <the key's text> rest" (the generator's explanation frame) said
    without repeating the key shown just above it: "That is the definition of Name. rest"."""
    if not why or not answer or len(answer) < KEY_RESTATED_MIN_LENGTH or answer not in why:
        return why
    head, _, rest = why.partition(answer)
    name = head.strip()
    if not name.endswith(":") or not 0 < len(name) - 1 <= NAME_MAX_LENGTH:
        return why
    return " ".join(filter(None, [text["definition_of"].format(concept=name[:-1].strip()), rest.strip()]))


def picked_concept(item: GradingItem) -> str | None:
    """The concept a wrong pick of a choice item comes from, as its own choice note names it."""
    if item.question_type != "multiple_choice" or item.is_correct:
        return None
    note = _note_for(item, picked_option(item))
    return note.concept if note is not None and note.concept != concept_of(item) else None


def quoted_from_page(item: GradingItem) -> frozenset[str]:
    """The prose's paragraphs that only quote what the page showed before the answer (a choice
    item's "Your answer: <the option picked>"), spacing aside: the key-leak guard passes them as
    they are, since holding the learner's own pick back would tell them it states another key."""
    if item.question_type == "short_answer":
        return frozenset()
    quoted = without_repeats([(PHRASES[language_of(item)]["your_answer"], _your_answer(item))])
    return frozenset(" ".join(paragraph.split()) for paragraph in quoted)


def _wrong_pick(item: GradingItem, text: dict[str, str]) -> str:
    """Why a wrong pick is wrong, from the item's own records: first why it does not fit the
    stem, against the key's record and without naming the pick (the key-leak guard holds back
    every sentence naming a wrong pick's concept while the round is open, KeyGuard.naming, so this
    is what the learner reads then), then what the option picked means, its concept and
    definition from its choice note (shown once the round is answered). Never only "a different
    concept": the key's own record says why the key fits (why_correct)."""
    concept = concept_of(item)
    key_note = _note_for(item, _keyed_option(item))
    if key_note is not None and concept:
        defined = key_note.option.strip() == key_note.definition.strip()  # the options are definitions
        said = [text["pick_not_definition" if defined else "stem_defines_key"].format(concept=concept)]
    else:
        said = [text["pick_does_not_fit"].format(concept=concept) if concept else text["pick_does_not_fit_any"]]
    note = _note_for(item, picked_option(item))
    if note is not None and note.concept != concept:
        if note.option.strip() == note.definition.strip():
            said.append(text["other_concept_definition"].format(concept=note.concept))
        else:
            said.append(text["other_concept_name"].format(concept=note.concept, definition=note.definition))
    return " ".join(said)


def offline_parts(item: GradingItem) -> tuple[str | None, str | None]:
    """(why the key is right, why the learner's answer is wrong) from the item's own records: the
    explanation stored with it, the concept each option was taken from, the terms an answer missed."""
    text = PHRASES[language_of(item)]
    why = item.reference_explanation or None
    wrong: str | None = None
    if item.question_type == "true_false":
        truth = truth_value(item.correct_answer or "")
        if truth is not None:
            why = " ".join(filter(None, [text["tf_true" if truth else "tf_false"], why]))
        if not item.is_correct:
            wrong = text["tf_wrong"].format(answer=item.user_answer.strip())
    elif item.question_type == "multiple_choice" and not item.is_correct:
        wrong = _wrong_pick(item, text)
    elif item.question_type == "short_answer":
        # Here, not at import: a multiple-choice or true/false answer never needs it (cold start).
        from rapidfuzz import fuzz  # noqa: PLC0415

        if why and item.reference_answer and fuzz.token_set_ratio(why, item.reference_answer) >= SAME_CONTENT_RATIO:
            why = None  # the model answer already says it
        if not item.is_correct:
            # Whole terms of the reference, never the bare stems the keyword matcher keeps.
            missed, used = missed_terms(item), used_terms(item)
            said = [text["missed"].format(terms=", ".join(missed))] if missed else []
            if missed and used:
                said.append(text["used"].format(terms=", ".join(used)))
            wrong = " ".join(said) or None
    return why, wrong


def difficulty_words(label: int, language: Language) -> str:
    """A difficulty on its scale with its level: "4 of 10: beginner" (scale.label_level's bands)."""
    text = PHRASES[language]
    return text["difficulty_words"].format(label=label, level=text[f"level.{scale.label_level(label)}"])


def _next_round_step(next_round: NextRound, language: Language) -> str:
    text = PHRASES[language]
    return text[f"next_{next_round.direction}"].format(words=difficulty_words(next_round.label, language))


def next_steps(
    item: GradingItem,
    links: list[ReferenceLink],
    needs_review: bool,
    language: Language,
    next_round: NextRound | None = None,
) -> list[str]:
    """What to do next, fitted to the result: a wrong answer is sent back to the concept, a right
    one may read further. Where to go next is the next round itself (`next_round`, the planner's
    rule given the learner's estimate once this answer counts): harder, the same or easier than
    this item, with its difficulty on its scale, so the advice never says one thing and the next
    round does another. Without it (an answer that moves no ability), the result alone: a wrong
    answer to a question at the same level, a right one to a harder one. That a provisional
    grade will be confirmed by a reviewer is no step: the page says it once beside the score
    (`needs_review`), the prose once (`compose`). A step that sends the learner to read points at
    the references shown with the feedback and names none: a title under the next steps and again
    under the references is the same link twice."""
    text = PHRASES[language]
    steps: list[str] = []
    if item.is_correct:
        steps.append(_next_round_step(next_round, language) if next_round else text["harder"])
        steps += [text["deeper"] for _ in links[:1]]
        return steps
    concept = concept_of(item)
    steps.append(text["review_concept"].format(concept=concept) if concept else text["review"])
    steps += [text["reread"] for _ in links[:1]]
    steps.append(_next_round_step(next_round, language) if next_round else text["same_level"])
    return steps


def details_of(
    item: GradingItem,
    explanation: Explanation,
    links: list[ReferenceLink],
    needs_review: bool,
    *,
    score: int | None = None,
    points: RubricPoints | None = None,
    next_round: NextRound | None = None,
) -> FeedbackDetails:
    """The feedback in parts; a part the explainer left empty is taken from the item's records.
    What it says of a wrong pick depends on this item alone (its own choice notes), never on the
    session's other items: wording chosen by another item's key would tell the learner that the
    option keys an item still to come (the rounds are chosen so that none does:
    security/exposure.py). `score` and `points` (a short answer's grade): the reason for the
    score, in one sentence; `next_round`: where the advice sends the learner (next_steps)."""
    language = language_of(item)
    text = PHRASES[language]
    why, wrong = offline_parts(item)
    correct_answer = _correct_answer(item, text)
    why_correct = (explanation.why_correct or "").strip() or why
    if item.question_type == "multiple_choice":
        why_correct = _key_not_restated(why_correct, correct_answer, text)
    return FeedbackDetails(
        language=language,
        question=item.stem,
        your_answer=_your_answer(item),
        correct_answer=correct_answer,
        why_correct=why_correct,
        why_yours_is_wrong=None if item.is_correct else ((explanation.why_yours_is_wrong or "").strip() or wrong),
        next_steps=next_steps(item, links, needs_review, language, next_round),
        score_reason=score_reason(item, score, points, language) if score is not None else None,
    )


def _sentences(text: str) -> list[str]:
    return [sentence.strip() for sentence in SENTENCE_END.split(text) if sentence.strip()]


def _normalised(sentence: str) -> str:
    return " ".join(sentence.casefold().split()).rstrip(".!?。")


def without_repeats(paragraphs: list[str | tuple[str, str]]) -> list[str]:
    """The paragraphs with every sentence already said (case and spacing aside) left out, and the
    paragraphs left empty dropped. A paragraph may be (heading, body): sentences are compared
    without the heading ("Why: X" repeats "X"), which opens what is left of the body."""
    said: set[str] = set()
    kept = []
    for paragraph in paragraphs:
        heading, body = paragraph if isinstance(paragraph, tuple) else ("", paragraph)
        fresh = []
        for sentence in _sentences(body):
            if _normalised(sentence) not in said:
                said.add(_normalised(sentence))
                fresh.append(sentence)
        if fresh:
            kept.append(" ".join([heading, *fresh]) if heading else " ".join(fresh))
    return kept


def compose(
    details: FeedbackDetails,
    item: GradingItem,
    explanation: Explanation,
    terms: list[str],
    *,
    needs_review: bool = False,
) -> str:
    """The prose explanation: the verdict (and, once, that a reviewer will confirm a provisional
    grade), the reason for a short answer's score, the learner's answer and the key, why, why
    not, the explainer's own notes, how to study and what next; no sentence twice; at least the
    spec's length, padded with study checks on the question's terms and then with distinct study
    tips."""
    text = PHRASES[details.language]
    is_choice = item.question_type != "short_answer"
    headed = {
        "your_answer": details.your_answer if is_choice else None,
        "correct_answer" if is_choice else "model_answer": details.correct_answer,
        "why": details.why_correct,
        "why_wrong" if is_choice else "why_short": details.why_yours_is_wrong,
    }
    verdict = [text["right" if item.is_correct else "wrong"], text["provisional"] if needs_review else None]
    paragraphs: list[str | tuple[str, str]] = [" ".join(filter(None, [*verdict, details.score_reason]))]
    for phrase, body in headed.items():
        if body:
            paragraphs.append((text[phrase], body))
    # A link the explainer wrote into its prose is left out: the references list it, once.
    free = URL.sub("", explanation.explanation or "")
    paragraphs += [free, text["study"], " ".join([text["next_heading"], *details.next_steps])]
    kept = without_repeats([paragraph for paragraph in paragraphs if paragraph])
    return padded("\n\n".join(kept), details.language, terms)


def padded(text: str, language: Language, terms: list[str]) -> str:
    """`text` brought to the spec's minimum length with study checks on the question's terms,
    then distinct study tips, each only if not said already."""
    kept = PARAGRAPH.split(text) if text else []
    text_of = PHRASES[language]
    padding = [
        *(text_of["check"].format(term=term) for term in terms),
        text_of["study"],  # already there, unless the check held it back
        *STUDY_TIPS[language],
    ]
    while len("\n\n".join(kept)) < EXPLANATION_MIN_LENGTH and padding:
        kept = without_repeats([*kept, padding.pop(0)])
    return "\n\n".join(kept)


def prose(item: GradingItem, explanation: Explanation, needs_review: bool = False) -> str:
    """The prose explanation of an unchecked explanation (for benchmarks: Tool 6 checks each part
    against the session's unanswered keys before composing it)."""
    links = list(item.sources)
    details = details_of(item, explanation, links, needs_review)
    terms = [term for term in (study_terms(item) or [concept_of(item) or ""]) if term]
    return compose(details, item, explanation, terms, needs_review=needs_review)
