"""The offline short-answer grader: the spec's 40/40/20 rubric from text statistics, with a
confidence, and abstention where text statistics cannot decide.

Method (the measures are defined in `evidence.py`):
1. Coverage. `meaning = 0.8 * bounded_recall + 0.2 * order` is how much of the reference's
   meaning the answer carries: its informative terms (stems; character bigrams for Korean; rare
   terms weigh more; terms the question already states weigh less; a long reference that lists
   several acceptable points needs only about eight terms' worth), and its phrases in order. A
   complete answer in ordinary words does not repeat the whole reference, so coverage
   saturates: `coverage = min(1, meaning / FULL_COVERAGE)`.
2. Points. Key terms (40): `40 * (KEYWORD_SHARE * keyword_coverage + (1 - KEYWORD_SHARE) *
   coverage)`, i.e. the expected keywords or the reference's key concepts. Correctness and
   relevance (40): `40 * coverage * topicality`, where topicality falls when most of the answer
   is about something else. Clarity and completeness (20): 20 for sentences (12 for fragments),
   scaled by how complete the answer is (`0.5 + 0.5 * coverage`).
3. Structure. Gaming patterns (see `evidence.py`) cap the score below the pass mark, and the
   answer goes to a human: they are never finalised as correct.
4. Confidence and abstention. A pass is finalised when nothing is odd about its form, most of
   the answer is about the question, it covers a real share of the whole reference (not a few
   terms of a long one that lists several points: whether those are all the question asks for
   is a human's call), and, where it uses many of the reference's terms, it keeps most of them
   in the reference's order (the same words with the roles swapped are a classic wrong answer).
   A non-answer ("I don't know", nothing but function words) is finalised as incorrect; a
   one-word answer is not a non-answer. So is an answer about something else entirely, when its
   words and its meaning (word vectors) agree on it (`relatedness.py`). Every other answer below
   the pass mark is provisional and `needs_review`: text statistics cannot tell a wrong answer
   from a correct one in other words (even one that shares no word with the reference), so the
   grader abstains instead of failing it. With no reference text to judge meaning (keywords
   alone), nothing is finalised.

The constants are general: chosen on two human-graded corpora of different shapes (short
one-sentence references with short answers, and long multi-point references with paragraph
answers) and the constructed attack, paraphrase and Korean cases, then left alone; see
bench/grading_agreement.py. None is fitted to one question set.
"""

from dataclasses import dataclass

from slea.constants import FINALISE_CONFIDENCE, HIGH_SCORE_THRESHOLD
from slea.grading.evidence import Evidence, Material

FULL_COVERAGE = 0.32  # `meaning` at which an answer covers the reference's ideas
KEYWORD_SHARE = 0.35
GAMING_SCORE_CAP = 60
NON_ANSWER_SCORE_CAP = 10
# Confidence: a pass whose coverage is at least PASS_MARGIN beyond what the pass mark needs is
# finalised (FINALISE_CONFIDENCE, in slea.constants); see `_confidence`.
THIN_REFERENCE_CONFIDENCE = 0.4
FINALISE_MIN_ON_TOPIC = 0.4
FINALISE_MIN_RECALL = 0.35  # share of the whole reference's weight a finalised pass covers
FINALISE_MIN_ALIGNMENT = 0.65  # share of its reference terms a finalised pass keeps in order,
ALIGNMENT_MIN_TERMS = 6  # among this many or more (with fewer, order says little)


@dataclass(frozen=True)
class RubricPoints:
    key_concepts: int  # of 40
    correctness: int  # of 40
    clarity: int  # of 20

    @property
    def total(self) -> int:
        return self.key_concepts + self.correctness + self.clarity


@dataclass(frozen=True)
class OfflineGrade:
    score: int
    points: RubricPoints
    confidence: float
    needs_review: bool
    keyword_matches: list[str]
    flags: list[str]
    reasoning: str


def _points(evidence: Evidence, coverage: float, has_keywords: bool) -> RubricPoints:
    key_share = KEYWORD_SHARE if has_keywords else 0.0
    key_concepts = 40 * (key_share * evidence.keyword_coverage + (1 - key_share) * coverage)
    if not evidence.answer.content_terms:
        topicality = 0.0
    elif evidence.reference_is_thin:  # too little reference to tell what is off topic
        topicality = 1.0
    else:
        topicality = min(1.0, 0.4 + evidence.on_topic)
    correctness = 40 * coverage * topicality
    clarity = (20 if evidence.prose else 12) * (0.5 + 0.5 * coverage)
    return RubricPoints(round(key_concepts), round(correctness), round(clarity))


def _doubt_about_a_pass(evidence: Evidence) -> float | None:
    """The confidence of a pass that word statistics cannot vouch for, else None."""
    if evidence.on_topic < FINALISE_MIN_ON_TOPIC:
        return 0.5  # enough of the reference's terms, but most of the answer is about other things
    if evidence.recall < FINALISE_MIN_RECALL:
        # Enough terms for a pass, but a small part of a long reference: whether that part is
        # all the question asks for ("name four of ...") is a human's call.
        return 0.55
    if len(evidence.matched) >= ALIGNMENT_MIN_TERMS and evidence.alignment < FINALISE_MIN_ALIGNMENT:
        # The reference's terms in another arrangement: "a stack is FIFO and a queue LIFO" uses
        # the right words with the roles swapped, which word statistics cannot rule out.
        return 0.6
    return None


def _confidence(evidence: Evidence, score: int, coverage: float, meaning: float) -> float:
    """How sure the grader is of its verdict (0-1); below FINALISE_CONFIDENCE it abstains."""
    if evidence.flags:
        return 0.2
    if evidence.non_answer or evidence.unrelated:
        return 0.9
    if evidence.reference_is_thin:
        return THIN_REFERENCE_CONFIDENCE
    if score < HIGH_SCORE_THRESHOLD:
        # Text statistics cannot tell a wrong answer from a right one in other words: abstain.
        return round(0.3 + 0.2 * coverage, 2)
    doubt = _doubt_about_a_pass(evidence)
    if doubt is not None:
        return doubt
    # Sure from the pass mark on, more so with the coverage beyond it; a fragment is less sure
    # where the reference itself is written in sentences.
    margin = min(1.0, max(0.0, meaning / FULL_COVERAGE - 1.0) / 0.8)
    fragment = not evidence.prose and evidence.reference_is_prose
    return round((FINALISE_CONFIDENCE + 0.25 * margin) * (0.8 if fragment else 1.0), 2)


def grade(material: Material) -> OfflineGrade:
    evidence = Evidence(material)
    meaning = 0.8 * evidence.bounded_recall + 0.2 * evidence.order
    coverage = min(1.0, meaning / FULL_COVERAGE)
    points = _points(evidence, coverage, bool(material.keywords))
    score = points.total
    if evidence.non_answer or evidence.unrelated:
        score = min(score, NON_ANSWER_SCORE_CAP)
    if evidence.flags:
        score = min(score, GAMING_SCORE_CAP)
    confidence = _confidence(evidence, score, coverage, meaning)
    reasoning = (
        f"key concepts {points.key_concepts}/40 (keywords {len(evidence.keyword_matches)} of "
        f"{len(material.keywords)}), correctness {points.correctness}/40, clarity {points.clarity}/20; "
        f"reference coverage {evidence.recall:.2f}, phrase order {evidence.order:.2f}, "
        f"on topic {evidence.on_topic:.2f}"
    )
    if evidence.non_answer:
        reasoning += "; not an answer"
    elif evidence.unrelated:
        reasoning += "; about something else (shares no term or meaning with the question)"
    if evidence.flags:
        reasoning += "; needs a human look: " + ", ".join(flag.replace("_", " ") for flag in evidence.flags)
    return OfflineGrade(
        score=max(0, min(100, score)),
        points=points,
        confidence=confidence,
        needs_review=confidence < FINALISE_CONFIDENCE,
        keyword_matches=evidence.keyword_matches,
        flags=evidence.flags,
        reasoning=reasoning,
    )
