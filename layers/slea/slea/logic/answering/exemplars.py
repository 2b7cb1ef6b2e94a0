"""Grades learned from reviews: a short answer that says what reviewed answers of its bank item
said, and only what answers of one verdict said, is finalised with their verdict
(`slea.grading.answer_groups.propagate`, which says when). Applied after the grader, only to a
grade the grader left provisional; a grade the grader finalised stands, and a model's grade that
failed is never replaced.

What the learner is told names how many reviewed answers vouched for the grade, never their text
or their authors: another learner's answer never leaves the server.
"""

import hashlib
from typing import Any

from slea.constants import HIGH_SCORE_THRESHOLD, Language
from slea.contracts.llm import GradedExample, ShortAnswerGrade
from slea.contracts.scoring import RubricPoints
from slea.dal.exemplars import exemplars_in, face_write, faces_in
from slea.grading.answer_groups import Closeness, Exemplar, Graded, Group, assign, propagate
from slea.grading.features import RubricPoints as Points
from slea.grading.offline import OfflineGrade, scaled_points

# The confidence a propagated verdict reports: with the chosen constants, propagated verdicts
# agreed with human graders 96.7% of the time or more on each training corpus left out of the
# choice (bench/review_amplification.py --fit), but on a held-out tutoring corpus 8 of 9
# (docs/grading.md): a few propagations per corpus move that figure a lot, so 0.9 is claimed.
PROPAGATED_CONFIDENCE = 0.9

EXAMPLES_FOR_A_MODEL = 6  # the reviewed answers nearest the learner's, given to a model grader

PHRASES: dict[Language, str] = {
    "en": " Graded as {count} answer(s) a reviewer graded for this question that say the same thing.",
    "ko": " 이 문항에서 검토자가 채점한 같은 내용의 답안 {count}개와 같게 채점했습니다.",
}


def stored(record: dict[str, Any] | None) -> list[Exemplar]:
    """The exemplars of an exemplar item as the grading compares them."""
    return [
        Exemplar(
            exemplar_id=value.exemplar_id,
            text=value.text,
            correct=value.correct,
            score=value.score,
            probability=value.probability,
        )
        for value in exemplars_in(record)
    ]


def with_exemplars(
    graded: ShortAnswerGrade, evidence: OfflineGrade, answer: str, exemplars: list[Exemplar]
) -> ShortAnswerGrade:
    """`graded`, finalised with the verdict of agreeing exemplars where they decide it."""
    if graded.final or not exemplars:
        return graded
    # Flagged by the evidence or by a check after it (an answer closer to another item's reference).
    flagged = bool(evidence.flags or graded.flags) or (
        evidence.probability_correct is None and not evidence.needs_review
    )
    found = propagate(Graded(answer, evidence.probability_correct, flagged), exemplars)
    if found.correct is None or found.score is None:
        return graded
    # The score stays on the verdict's side of the pass mark, as the grader's does.
    score = max(found.score, HIGH_SCORE_THRESHOLD) if found.correct else min(found.score, HIGH_SCORE_THRESHOLD - 1)
    reasoning = graded.reasoning + PHRASES[evidence.language].format(count=str(len(found.exemplar_ids)))
    points = graded.points
    if points is not None:
        rescaled = scaled_points(Points(points.key_concepts, points.correctness, points.clarity), score)
        points = RubricPoints(
            key_concepts=rescaled.key_concepts, correctness=rescaled.correctness, clarity=rescaled.clarity
        )
    return graded.model_copy(
        update={
            "score": score,
            "points": points,
            "confidence": max(graded.confidence, PROPAGATED_CONFIDENCE),
            "reasoning": reasoning,
            "final": True,
        }
    )


def review_group(
    record: dict[str, Any] | None,
    item_id: str,
    attempt_key: str,
    graded: Graded,
) -> tuple[str, dict[str, Any] | None]:
    """The review group a short answer sent to a reviewer joins (among its item's groups, whose
    faces are on the exemplar item), or a new one: its id and, for a new group, the transaction
    item that writes its face. The item's exemplars, read in the same record, lean the answer and
    each face toward the verdicts of the reviewed answers nearest them."""
    faces = faces_in(record)
    groups = [Group(face.group_id, Graded(face.text, face.probability, face.flagged)) for face in faces]
    index = assign(graded, groups, exemplars=stored(record))
    if index is not None:
        return groups[index].group_id, None
    group_id = "g" + hashlib.sha256(f"{item_id}#{attempt_key}".encode()).hexdigest()[:20]
    face = {"group_id": group_id, "text": graded.text, "probability": graded.probability, "flagged": graded.flagged}
    return group_id, face_write(item_id, face)


def examples_for(answer: str, exemplars: list[Exemplar]) -> list[GradedExample]:
    """The reviewed answers nearest `answer`, with their grades, for a model grader's prompt."""
    if not exemplars:
        return []
    closeness = Closeness([answer, *(e.text for e in exemplars)])
    nearest = sorted(exemplars, key=lambda e: -closeness(answer, e.text))[:EXAMPLES_FOR_A_MODEL]
    return [GradedExample(answer=e.text, score=e.score, correct=e.correct) for e in nearest]
