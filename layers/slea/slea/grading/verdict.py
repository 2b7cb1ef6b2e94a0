"""When a grade is final, and how a model's grade meets the offline evidence.

A grade is finalised automatically only at FINALISE_CONFIDENCE or above and with no form
problem; anything else is provisional and `needs_review`.

With a model, the offline grader is a second opinion: the model may see a paraphrase that text
statistics miss, so its score stands, but the further the two scores are apart the less sure
the verdict is (a confident model that disagrees with all the textual evidence is exactly the
case a human should see). The offline form checks (gaming patterns) apply whoever graded.
"""

from slea.constants import FINALISE_CONFIDENCE
from slea.grading.offline import OfflineGrade
from slea.llm.schemas import ShortAnswerGrade

__all__ = ["FINALISE_CONFIDENCE", "with_second_opinion"]

TOLERATED_DISAGREEMENT = 25  # points between the model and the offline evidence that cost nothing
DISAGREEMENT_PENALTY = 0.01  # confidence lost per point beyond that


def with_second_opinion(model: ShortAnswerGrade, offline: OfflineGrade) -> ShortAnswerGrade:
    gap = abs(model.score - offline.score)
    penalty = max(0, gap - TOLERATED_DISAGREEMENT) * DISAGREEMENT_PENALTY
    confidence = round(max(0.0, model.confidence - penalty), 2)
    reasoning = model.reasoning
    if penalty:
        reasoning += f" (the text evidence suggests {offline.score}: confidence lowered)"
    if offline.flags:
        reasoning += "; needs a human look: " + ", ".join(flag.replace("_", " ") for flag in offline.flags)
    return model.model_copy(update={"confidence": confidence, "reasoning": reasoning, "flags": offline.flags})
