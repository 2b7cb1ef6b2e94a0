"""When a model's grade is final: the same calibration that decides the offline grader's
finalisation decides the model's.

With a model (Gemini), the offline evidence is computed too. The model may see a paraphrase that
text statistics miss, so its score and verdict stand; but a model's own confidence is not
calibrated against human graders, and the fitted evidence model is. So the model's verdict is
final only when the calibrated evidence backs that same verdict at the finalisation cut (or a
rule of the evidence, a non-answer or an unrelated answer, finalises it as incorrect and the
model agrees) and the model itself is sure; otherwise a human decides. The further the two
scores are apart, the lower the reported confidence. The offline form checks (gaming and
contradiction patterns) apply whoever graded.
"""

from slea.constants import HIGH_SCORE_THRESHOLD
from slea.contracts.llm import ShortAnswerGrade
from slea.grading.model import fitted_model
from slea.grading.offline import OfflineGrade
from slea.language.grading_phrases import flags_in_words, phrase

TOLERATED_DISAGREEMENT = 25  # points between the model and the offline evidence that cost nothing
DISAGREEMENT_PENALTY = 0.01  # confidence lost per point beyond that
MODEL_SURE = 0.7  # the model's own confidence below which its verdict is never final


def _evidence_backs(model_passed: bool, offline: OfflineGrade) -> tuple[bool, float]:
    """Whether the calibrated evidence backs the model's verdict at the cut, and how surely."""
    if offline.probability_correct is None:
        ruled_incorrect = not offline.needs_review and not offline.flags
        return (ruled_incorrect and not model_passed), (offline.confidence if ruled_incorrect else 0.0)
    backing = offline.probability_correct if model_passed else 1.0 - offline.probability_correct
    return fitted_model().is_final(model_passed, backing), backing


def with_second_opinion(model: ShortAnswerGrade, offline: OfflineGrade) -> ShortAnswerGrade:
    passed = model.score >= HIGH_SCORE_THRESHOLD
    backed, backing = _evidence_backs(passed, offline)
    gap = abs(model.score - offline.score)
    penalty = max(0, gap - TOLERATED_DISAGREEMENT) * DISAGREEMENT_PENALTY
    confidence = round(max(0.0, min(model.confidence, max(backing, 0.5)) - penalty), 2)
    final = backed and model.confidence >= MODEL_SURE and not offline.flags
    reasoning, language = model.reasoning, offline.language
    score = model.score
    if offline.one_sided_comparison and passed:
        # A comparison answered about one side: not correct whoever graded (comparison.py).
        score, final = HIGH_SCORE_THRESHOLD - 1, False
        reasoning += phrase(language, "one_sided_comparison")
    if penalty:
        reasoning += phrase(language, "disagreement", score=str(offline.score))
    if not backed:
        reasoning += phrase(language, "not_backed")
    if offline.flags:
        reasoning += phrase(language, "flags", flags=flags_in_words(language, offline.flags))
    return model.model_copy(
        update={
            "score": score,
            "confidence": confidence,
            "reasoning": reasoning,
            "flags": offline.flags,
            "final": final,
        }
    )
