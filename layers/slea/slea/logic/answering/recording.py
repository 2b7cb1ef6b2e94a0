"""Recording a graded answer: one transaction (dal/attempts.py) holds the attempt, the question's
counters, statistics flag and answered marker, the learner's ability with its history point, the
bank item's difficulty step and a new explanation cache entry, so a grade and everything it
changes are written all or nothing.

Another answer of the same learner may update their ability first (the ability is conditioned on
the version read): it is then read again and the update redone on top of it, a few times; past
that, the grade is recorded alone. A learner model that could not be read is skipped the same way:
the grade is what must never be lost.
"""

from dataclasses import replace
from typing import Any

from slea.contracts.scoring import ScoreAnswerOutput
from slea.dal import answer_reads, attempts
from slea.dal.answer_reads import AnswerReads
from slea.dal.attempts import StatsFlagChange
from slea.dal.question_records import StoredQuestion
from slea.llm.prompts import PROMPT_VERSION
from slea.logic.answering import ability_update
from slea.logic.answering.context import AnswerContext
from slea.logic.answering.grades import Grade
from slea.logic.answering.stats_flags import stats_flag
from slea.platform.errors import DataAccessError
from slea.platform.observability import logger, metrics

RUBRIC_VERSION = "tool6-40/40/20-v2"


def _flag_change(stored: StoredQuestion, is_correct: bool, at: str) -> StatsFlagChange | None:
    """The flag the question's counters will call for once this answer is counted (derived from
    the counts as read: a race between two answers is settled by the next one)."""
    flag = stats_flag(stored.usage_count + 1, stored.correct_count + int(is_correct), stored.difficulty)
    return StatsFlagChange(flag, at) if flag != stored.stats_flag else None


def attempt_item(output: ScoreAnswerOutput, context: AnswerContext, grade: Grade) -> dict[str, Any]:
    """The whole grading (so a retry can return it as it was) plus what a regrade or a reviewer
    needs: the answer key, the reference answer, the rubric and prompt versions."""
    request, stored = context.request, context.stored
    return {
        **output.model_dump(mode="json"),
        "attempt_key": context.attempt_key,
        "round": stored.round if stored else 1,
        "difficulty": request.difficulty or (stored.difficulty if stored else None),
        "question_type": request.question_type,
        # The learner's history shows the question and, for a choice, the option picked.
        "question_stem": stored.stem if stored else None,
        "question_choices": (list(stored.choices or ()) or None) if stored else None,
        "user_answer": request.user_answer,
        "answer_key": {
            "correct_answer": request.correct_answer,
            "correct_keywords": request.correct_keywords,
            "reference_answer": request.reference_answer or (stored.answer_schema.reference_answer if stored else None),
        },
        "rubric_version": RUBRIC_VERSION,
        "prompt_version": PROMPT_VERSION,
        # The bank item whose exemplars a review of this short answer adds to (dal/exemplars.py).
        **({"exemplar_item": context.exemplar_item_id} if context.exemplar_item_id else {}),
        **({"grader_probability": grade.probability} if grade.probability is not None else {}),
        # Its review group (the attempts table's sparse GSI review-groups, with queued_at).
        **({"review_group": grade.review_group} if grade.review_group and output.needs_review else {}),
        # A provisional grade waits in the review queue (the attempts table's sparse GSI).
        **(attempts.queue_fields(output.graded_at) if output.needs_review else {}),
    }


def _reread(context: AnswerContext, evidence: ability_update.Evidence) -> AnswerContext:
    """The context with the learner's ability (and the bank item) read again, after another answer
    changed them."""
    records = answer_reads.read(
        AnswerReads(ability=(evidence.user_id, evidence.category), bank_item_id=context.bank_item_id)
    )
    if records.unanswered:
        raise DataAccessError(f"answer reads unprocessed: {', '.join(sorted(records.unanswered))}")
    return replace(context, records=replace(context.records, ability=records.ability, bank_item=records.bank_item))


def record(
    context: AnswerContext,
    output: ScoreAnswerOutput,
    grade: Grade,
    *,
    claim_question: bool,
    explanation: tuple[str, dict[str, Any]] | None,
    withheld: dict[str, Any] | None = None,
    prior: tuple[float, float] | None = None,
) -> attempts.RecordOutcome:
    """Record the grading with what it teaches the learner model, in one transaction. Raises
    DataAccessError when it could not be written (nothing was). `grade`: the grading behind
    `output` (the evidence's probability, the grader's flags, a review group joined); `withheld`:
    what the key-leak guard held back (the unchecked output and the items it waits for), kept on
    the attempt so the history can deliver it later (logic/sessions/history.py) with no write of
    its own; `prior`: the learner's prior if the feedback's advice read it already."""
    attempt = {**attempt_item(output, context, grade), **(withheld or {})}
    stored = context.stored
    counted = stored is not None
    flag = _flag_change(stored, output.is_correct, output.graded_at) if stored is not None else None
    # A provisional grade counts by the pending rule until reviewed (ability_update.counted_score).
    counted_score = ability_update.counted_score(
        output.score, output.needs_review, grade.probability, flagged=grade.flagged
    )
    evidence = ability_update.evidence_of(
        context.request, stored, counted_score, provisional=output.needs_review, cap=output.score
    )
    label = context.request.difficulty or (stored.difficulty if stored else None)
    if evidence is not None and context.ability_unreadable:
        evidence, attempt = None, {**attempt, **ability_update.skipped("unreadable").attempt_fields}
    if evidence is None or ability_update.has_posterior(context.records.ability):
        prior = None
    else:  # a first answer in the category (read once: the feedback's advice may have read it)
        prior = prior or ability_update.profile_prior(evidence.user_id)
    for _ in range(ability_update.CONFLICT_ATTEMPTS):
        writes = ability_update.writes_for_answer(
            evidence,
            label,
            output.graded_at,
            context.attempt_key,
            ability=context.records.ability,
            bank_item=context.bank_item,
            prior=prior,
        )
        outcome = attempts.record_graded_answer(
            {**attempt, **writes.attempt_fields},
            count_on_question=counted,
            claim_question=claim_question,
            learner=writes.learner_items,
            difficulty=writes.difficulty,
            stats_flag=flag,
            explanation=explanation,
            extra=_group_face(grade),
        )
        if outcome != "ability_changed" or evidence is None:
            return outcome
        metrics.add_metric(name="AbilityUpdateConflicts", unit="Count", value=1)
        try:
            context = _reread(context, evidence)
        except DataAccessError as error:
            logger.error("learner model unreadable, the grade is recorded without it", extra={"reason": str(error)})
            context = replace(context, ability_unreadable=True)
            break
    else:
        logger.error(
            "the ability kept changing, the grade is recorded without it", extra={"attempt_key": context.attempt_key}
        )
    reason = "conflict" if not context.ability_unreadable else "unreadable"
    return attempts.record_graded_answer(
        {**attempt, **ability_update.skipped(reason).attempt_fields},
        count_on_question=counted,
        claim_question=claim_question,
        stats_flag=flag,
        explanation=explanation,
        extra=_group_face(grade),
    )


def _group_face(grade: Grade) -> list[dict[str, Any]]:
    """A new review group's face, written with the attempt that opens the group."""
    return [grade.group_face] if grade.group_face else []
