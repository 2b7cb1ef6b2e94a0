"""Grading a short answer: the offline evidence (grading/short_answer_evidence.py) always, and
with a model configured the model's grade checked against it; then the checks against the
session's other items and the category's reference prints (grading/other_items.py,
grading/reference_prints.py), and the item's reviewed answers (exemplars.py). An answer the
grade sends to a reviewer joins a review group of its bank item.

Each step takes values and returns new ones: the item graded is never changed (the explainer
reads `grading.graded_item`), and other learners' answers reach the model grader only on its own
copy of the item. grading.py loads this module with the first short answer: choices and
true/false (most answers) never load it, nor the grading modules it imports.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from slea.constants import DEFAULT_SCORING_LLM_SCORE, HIGH_SCORE_THRESHOLD
from slea.contracts.llm import GradingItem, ShortAnswerGrade
from slea.dal.question_records import StoredQuestion
from slea.grading.answer_groups import Exemplar, Graded
from slea.grading.offline import OfflineGrade
from slea.grading.other_items import FLAG, Reference, other_match
from slea.grading.reference_prints import pasted_from
from slea.grading.short_answer_evidence import as_short_answer_grade, grade_with_evidence, material_for
from slea.grading.verdict import with_second_opinion
from slea.language.scoring_phrases import phrase
from slea.llm import budget
from slea.llm.model_settings import LLMSettings
from slea.llm.provider import LLMError
from slea.llm.provider_choice import get_provider
from slea.logic.answering.exemplars import examples_for, review_group, stored, with_exemplars
from slea.logic.answering.grades import Grade, OtherPrints, ShortAnswerReads, language
from slea.platform.observability import logger


@dataclass(frozen=True)
class _Graded:
    """The grader's grade, the note for the learner when the model was unavailable, and the
    offline evidence's probability of "correct"."""

    grade: ShortAnswerGrade
    note: str | None = None
    probability: float | None = None


def other_references(question_id: str, session: Sequence[StoredQuestion]) -> list[Reference]:
    """The reference answers of the session's other short-answer items (read with the session's
    questions: no call of its own)."""
    return [
        Reference(
            reference=question.answer_schema.reference_answer or "",
            keywords=question.answer_schema.correct_keywords or (),
            stem=question.stem,
        )
        for question in session
        if question.question_id != question_id
        and question.item_type == "short_answer"
        and question.answer_schema.reference_answer
    ]


def _checked_against_others(
    graded: ShortAnswerGrade,
    item: GradingItem,
    evidence: OfflineGrade,
    others: Sequence[Reference],
    prints: OtherPrints | None = None,
) -> ShortAnswerGrade:
    """The grade, not correct if the answer agrees better with another item's reference, and not
    final if another reference is about as close; not correct either if it holds most of the
    reference of another item of the category (its print: grading/reference_prints.py). The flag
    is for reviewers; the learner is told only that the grade is provisional (naming the other
    item would say what its key is like)."""
    if prints is not None and prints.prints:
        pasted = pasted_from(item.user_answer, item.reference_answer or "", prints.prints, prints.own_items)
        if pasted is not None:  # another item's reference, from any session or the bank
            score = min(graded.score, HIGH_SCORE_THRESHOLD - 1)
            flags = graded.flags if FLAG in graded.flags else [*graded.flags, FLAG]
            graded = graded.model_copy(update={"score": score, "flags": flags, "final": False})
    if not others or graded.score <= 0:
        return graded
    match = other_match(material_for(item), evidence.score, others)
    if match is None or not match.undecided:
        return graded
    flags = [*graded.flags, FLAG]
    if match.better_elsewhere:
        score = min(graded.score, HIGH_SCORE_THRESHOLD - 1)
        return graded.model_copy(update={"score": score, "flags": flags, "final": False})
    return graded.model_copy(update={"flags": flags, "final": False})


def _graded(
    item: GradingItem,
    evidence: OfflineGrade,
    others: Sequence[Reference],
    exemplars: Sequence[Exemplar],
    prints: OtherPrints | None,
) -> _Graded:
    """The grade and, when the model was unavailable, a note for the learner. The offline
    evidence is always computed: it gives the keyword matches and the form checks, and with a
    model it is the second opinion whose disagreement lowers the model's confidence."""
    if evidence.non_answer is not None:
        # No answer at all ("I don't know", the question copied back): final and incorrect at once,
        # whatever a model, another item's reference or a reviewed answer would add.
        return _Graded(as_short_answer_grade(evidence))
    provider = get_provider()
    if provider.name != "offline" and not budget.call_fits(LLMSettings.from_environment()):
        logger.warning("no time left for the model's grading, using the offline grader")
        fallback = as_short_answer_grade(evidence)
        fallback = fallback.model_copy(update={"confidence": min(fallback.confidence, 0.5), "final": False})
        return _Graded(_checked_against_others(fallback, item, evidence, others, prints))
    # The grader's own copy of the item: other learners' answers go no further than the grader.
    update = {"keyword_matches": list(evidence.keyword_matches), "non_answer": False}
    if provider.name != "offline":  # a model grades consistently with the item's reviewed answers
        update["graded_examples"] = examples_for(item.user_answer, list(exemplars))
    try:
        graded = provider.grade_short_answer(item.model_copy(update=update))
    except LLMError as error:
        logger.warning("short-answer grading failed, using the default score", extra={"reason": str(error)})
        note = phrase(language(item), "grading_unavailable", reason=str(error))
        return _Graded(ShortAnswerGrade(score=DEFAULT_SCORING_LLM_SCORE, reasoning=note, confidence=0.0), note)
    if provider.name != "offline":
        graded = with_second_opinion(graded, evidence)
    graded = _checked_against_others(graded, item, evidence, others, prints)
    # What reviewers graded of this item decides a grade the evidence left provisional.
    return _Graded(
        with_exemplars(graded, evidence, item.user_answer, list(exemplars)), probability=evidence.probability_correct
    )


def grade(
    item: GradingItem,
    others: Sequence[Reference] = (),
    exemplars: Sequence[Exemplar] = (),
    prints: OtherPrints | None = None,
) -> Grade:
    """Grade the short answer in `item`; `others`: the references of the session's other
    short-answer items; the answer is also compared with its item's reviewed answers
    (`exemplars`) and the reference prints of its category's items (`prints`)."""
    evidence = grade_with_evidence(item)
    graded = _graded(item, evidence, others, exemplars, prints)
    short_answer, note = graded.grade, graded.note
    return Grade(
        score=short_answer.score,
        is_correct=short_answer.score >= HIGH_SCORE_THRESHOLD and note is None,
        needs_review=note is not None or bool(short_answer.flags) or not short_answer.final,
        confidence=short_answer.confidence,
        note=note,
        short_answer=short_answer,
        probability=graded.probability,
        keyword_matches=tuple(evidence.keyword_matches),
        non_answer=evidence.non_answer is not None,
    )


def grade_read(item: GradingItem, reads: ShortAnswerReads) -> Grade:
    """`grade` against what was read with the answer; an answer sent to a reviewer joins a review
    group of its bank item (the groups' faces were read with the exemplars), so one reviewer
    action can grade the answers saying one thing."""
    others = other_references(reads.question_id, reads.session)
    exemplars = stored(reads.exemplars) if reads.exemplars is not None else []
    graded = grade(item, others, exemplars, reads.prints)
    if not graded.needs_review or reads.group is None:
        return graded
    item_id, attempt_key = reads.group
    joined = Graded(item.user_answer, graded.probability, graded.flagged)
    group, face = review_group(reads.exemplars, item_id, attempt_key, joined)
    return graded._replace(review_group=group, group_face=face)
