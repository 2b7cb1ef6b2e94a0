"""The offline short-answer grader: the spec's 40/40/20 rubric and a verdict from the evidence
of the text, with a calibrated confidence, and abstention where the evidence cannot decide.

Method (the measures are defined in `evidence.py`, the model's inputs in `features.py`):
1. Rules first. A declined answer ("I don't know") and an answer about something else entirely
   (`relatedness.py`: lexical and semantic evidence agree) are finalised as incorrect. Gaming
   and contradiction patterns (`Evidence.flags`) cap the score below the pass mark and send the
   answer to a human: they are never finalised as correct. With no reference text to judge
   meaning (keywords alone), the rubric scores it and a human decides.
2. Otherwise the fitted model (`model.py`, fitted on human-graded corpora by
   bench/fit_grader.py) gives the probability that human graders would call the answer correct
   and the score they would give. The verdict is "correct" from the model's verdict cut on (the
   probability whose verdicts agreed with the graders most often on corpora left out of the fit),
   and the score is kept on the verdict's side of the pass mark; the confidence is the
   probability that the verdict is right. The verdict is final when that confidence reaches the
   side's cut, chosen leave-one-corpus-out so that finalised verdicts agreed with the humans at
   least 90% of the time on every corpus the model had not seen; below it the grade is
   provisional and `needs_review`. An answer that shares no term with the reference is never
   failed by the model (it may be a paraphrase in other words).
3. The rubric points are the evidence behind the score: key concepts (40) from the keywords and
   the reference's key terms, correctness (40) from how much of the reference's meaning the
   answer carries and how much of it is on topic, clarity (20) from sentences and completeness;
   they are scaled to add up to the score.
"""

from dataclasses import dataclass

from slea.constants import HIGH_SCORE_THRESHOLD, Language
from slea.grading.evidence import Evidence, Material
from slea.grading.features import RubricPoints, features, rubric_points
from slea.grading.model import fitted_model
from slea.language.detect import language_of
from slea.language.grading_phrases import flags_in_words, phrase

GAMING_SCORE_CAP = 60
NON_ANSWER_SCORE_CAP = 10
RULED_CONFIDENCE = 0.9  # a non-answer or an unrelated answer: finalised as incorrect
FLAGGED_CONFIDENCE = 0.2
THIN_REFERENCE_CONFIDENCE = 0.4
RUBRIC_MAXIMA = (40, 40, 20)


@dataclass(frozen=True)
class OfflineGrade:
    score: int
    points: RubricPoints
    confidence: float
    needs_review: bool
    keyword_matches: list[str]
    flags: list[str]
    reasoning: str
    probability_correct: float | None = None  # the fitted model's, where it decided
    one_sided_comparison: bool = False  # a comparison answered about one side only: never correct
    language: Language = "en"  # the question's: the reasoning's, and the notes a model's grade gets
    non_answer: str | None = None  # `non_answers.py`'s kind: no answer at all, finalised as incorrect


@dataclass(frozen=True)
class AnswerEvidence:
    """What the grader knows about one answer before deciding: the measures, the model's inputs,
    and whether a rule already decides it."""

    evidence: Evidence
    features: dict[str, float]

    @property
    def ruled_incorrect(self) -> bool:
        """Finalised as incorrect by a rule: the learner declined to answer, or the answer is about
        something else entirely (`relatedness.py`). An answer of function words alone is not ruled
        out: "It will work." is a right answer to some questions; the model scores it and, as it
        shares no term with the reference, a human decides."""
        return self.evidence.declined or self.evidence.unrelated

    @property
    def may_be_failed(self) -> bool:
        """Whether the model may finalise this answer as incorrect: only where it uses some of the
        reference's terms and still falls short. An answer that shares no term with the reference
        may be a correct paraphrase in other words, which text evidence cannot rule out (one that
        is about something else altogether is the `unrelated` rule's, not the model's)."""
        return bool(self.evidence.matched)

    @property
    def out_of_order(self) -> bool:
        """Mostly the reference's words with their order broken (`word_order.py`): never
        finalised as correct, however much of the reference's vocabulary it holds."""
        return self.evidence.reordered


def answer_evidence(material: Material) -> AnswerEvidence:
    from slea.grading import semantic  # noqa: PLC0415 - word vectors: loaded on the first short answer

    evidence = Evidence(material)
    similarity = semantic.similarity(material.answer, material.reference)
    question_similarity = semantic.similarity(material.answer, material.stem) if material.stem else None
    return AnswerEvidence(evidence, features(evidence, similarity, question_similarity))


def scaled_points(points: RubricPoints, score: int) -> RubricPoints:
    """The rubric's points in proportion, adding up to `score` (each within its maximum)."""
    parts = [points.key_concepts, points.correctness, points.clarity]
    total = sum(parts)
    shares = [part / total for part in parts] if total else [maximum / 100 for maximum in RUBRIC_MAXIMA]
    scaled = [min(maximum, round(score * share)) for share, maximum in zip(shares, RUBRIC_MAXIMA, strict=True)]
    for index in sorted(range(3), key=lambda i: -shares[i]):  # rounding remainder to the largest parts
        room = RUBRIC_MAXIMA[index] - scaled[index]
        change = max(-scaled[index], min(room, score - sum(scaled)))
        scaled[index] += change
    return RubricPoints(*scaled)


@dataclass(frozen=True)
class _Decision:
    score: int
    confidence: float
    final: bool
    probability: float | None = None


def _decide(found: AnswerEvidence, rubric_score: int) -> _Decision:
    evidence = found.evidence
    if found.ruled_incorrect:
        return _Decision(min(rubric_score, NON_ANSWER_SCORE_CAP), RULED_CONFIDENCE, final=True)
    if evidence.flags:
        return _Decision(min(rubric_score, GAMING_SCORE_CAP), FLAGGED_CONFIDENCE, final=False)
    if evidence.reference_is_thin:
        return _Decision(rubric_score, THIN_REFERENCE_CONFIDENCE, final=False)
    model = fitted_model()
    probability = model.probability_correct(found.features)
    passed = model.passes(probability)
    score = round(100 * model.expected_score(found.features))
    # The score stays on the verdict's side of the pass mark: "correct" and a score below it
    # (or the reverse) would contradict each other.
    score = max(score, HIGH_SCORE_THRESHOLD) if passed else min(score, HIGH_SCORE_THRESHOLD - 1)
    confidence = probability if passed else 1.0 - probability
    final = model.is_final(passed, confidence) and (found.may_be_failed if not passed else not found.out_of_order)
    if passed and found.out_of_order:
        # Mostly the reference's words, their order broken: never correct before a reviewer reads
        # it (a shuffled reference says nothing in that order; an honest answer this close to the
        # reference's words keeps most of their order).
        return _Decision(HIGH_SCORE_THRESHOLD - 1, round(1.0 - probability, 3), False, probability)
    if passed and evidence.one_sided_comparison:
        # Both sides of a comparison are the answer: one side alone is not correct, and how much
        # credit it earns is a reviewer's call.
        return _Decision(HIGH_SCORE_THRESHOLD - 1, round(1.0 - probability, 3), False, probability)
    return _Decision(score, round(confidence, 3), final, probability)


def grade(material: Material) -> OfflineGrade:
    found = answer_evidence(material)
    evidence = found.evidence
    rubric = rubric_points(evidence)
    decision = _decide(found, rubric.total)
    score = max(0, min(100, decision.score))
    language = language_of(material.stem, material.reference, *material.keywords)
    reasoning = phrase(
        language,
        "rubric",
        key_concepts=str(rubric.key_concepts),
        found=str(len(evidence.keyword_matches)),
        expected=str(len(material.keywords)),
        correctness=str(rubric.correctness),
        clarity=str(rubric.clarity),
        recall=f"{evidence.recall:.2f}",
        order=f"{evidence.order:.2f}",
        on_topic=f"{evidence.on_topic:.2f}",
    )
    if decision.probability is not None:
        reasoning += phrase(language, "probability", probability=f"{decision.probability:.2f}")
    if evidence.declined:
        reasoning += phrase(language, "declined")
    elif evidence.unrelated:
        reasoning += phrase(language, "unrelated")
    if evidence.flags:
        reasoning += phrase(language, "flags", flags=flags_in_words(language, evidence.flags))
    if evidence.one_sided_comparison:
        reasoning += phrase(language, "one_sided_comparison")
    return OfflineGrade(
        score=score,
        points=scaled_points(rubric, score),
        confidence=decision.confidence,
        needs_review=not decision.final,
        keyword_matches=evidence.keyword_matches,
        flags=evidence.flags,
        reasoning=reasoning,
        probability_correct=decision.probability,
        one_sided_comparison=evidence.one_sided_comparison,
        language=language,
        non_answer=evidence.non_answer_kind,
    )
