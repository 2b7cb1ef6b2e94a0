"""Mode 1, after validation: keep the valid questions, note why the others were rejected (the
feedback for regeneration), and at the end join the saved results into `PipelineOutput`, with how
many were asked, how many came and, when fewer came, why (logic/rounds/shortfall.py)."""

from pydantic import ValidationError

from slea.constants import KEYWORD_MAX_LENGTH
from slea.contracts.common import to_python_error
from slea.contracts.exposure import ShownItem
from slea.contracts.generation import DraftQuestion, IdentifiedDraft
from slea.contracts.pipeline import GeneratedQuestionOutput, PipelineOutput
from slea.contracts.questions import TOPICS_MAX, SaveQuestionInput, normalised_topic
from slea.contracts.round import AcceptedQuestion, CollectRoundInput, FinishRoundInput, RoundPlan, RoundProgress
from slea.dal import abilities, bank
from slea.logic.rounds.shortfall import shortfall_reason
from slea.platform.errors import DataAccessError
from slea.platform.observability import logger, metrics, tracer
from slea.security import exposure
from slea.security.exposure import SessionContext, drafted_item

# The feedback for a draft whose stem and key a withdrawn bank item holds: the writer is asked for
# another question in its place (Tool 5 would refuse to save it: the round would be one short).
REPEATS_WITHDRAWN_FEEDBACK = "Repeats a question withdrawn from the bank: write a different question"


def _save_request(draft: IdentifiedDraft, score: float, plan: RoundPlan) -> SaveQuestionInput:
    return SaveQuestionInput(
        question_id=draft.question_id,
        item_type=draft.type,
        stem=draft.stem,
        choices=draft.choices or None,
        correct_key=draft.correct_answer if draft.type != "short_answer" else None,
        correct_keywords=draft.correct_keywords if draft.type == "short_answer" else None,
        difficulty=draft.difficulty,
        categories=[plan.category, *[c for c in draft.categories if c != plan.category]],
        round_id=plan.round_id,
        validation_score=score,
        explanation=draft.explanation or None,
        reference_answer=(draft.reference_answer or None) if draft.type == "short_answer" else None,
        language=draft.language or plan.language,
        topics=_topics(draft, plan),
        sources=draft.source.sources if draft.source else None,
        choice_notes=draft.choice_notes or None,
        # Shown to an account farm: its key is the farm's, so it never joins the bank.
        rest_reason="farm" if plan.farm else None,
    )


def _topics(draft: IdentifiedDraft, plan: RoundPlan) -> list[str]:
    """What the item was written for: its concept's domain, else (a model's draft, written for the
    learner's interests at large) the round's interests. The bank offers it to learners who share one."""
    written_for = [draft.source.domain] if draft.source and draft.source.domain else plan.interests
    topics = [normalised_topic(topic) for topic in written_for if topic.strip() and len(topic) <= KEYWORD_MAX_LENGTH]
    return list(dict.fromkeys(topics))[:TOPICS_MAX]


def _withdrawn_repeats(drafts: list[ShownItem]) -> set[str]:
    """The bank fingerprints of `drafts` that a withdrawn bank item holds (dal/bank.py
    `withdrawn_among`). Best effort: if the read fails, Tool 5 still refuses such a repeat."""
    try:
        return bank.withdrawn_among([exposure.bank_fingerprint(draft) for draft in drafts])
    except DataAccessError as error:
        logger.warning("withdrawn bank items not checked", extra={"reason": str(error), "drafts": len(drafts)})
        return set()


@tracer.capture_method
def collect_round(request: CollectRoundInput) -> RoundProgress:
    plan, progress = request.plan, request.plan.progress
    accepted = list(progress.accepted)
    feedback: list[str] = []
    rejected = 0
    to_save = list(progress.to_save)
    wanted = plan.count - len(plan.drawn)  # the bank's items are in the round already
    # Every pass is judged against the session, the round's draws and what earlier passes kept: a
    # repeated question or concept, or an item the session's feedback answers, is refused. (The
    # preference for options no pending feedback may name is the writer's, kept while its record
    # allows: refusing it here would only shorten rounds from a small record.)
    context = SessionContext(progress.exposure)
    kept: list[ShownItem] = []
    judged = [
        (draft, verdict, drafted_item(draft))
        for draft, verdict in zip(request.questions, request.verdicts, strict=False)
    ]
    # A draft repeating a withdrawn bank item's stem and key is written again in its place.
    withdrawn = _withdrawn_repeats([shown for _, verdict, shown in judged if verdict.is_valid])
    for draft, verdict, shown in judged:
        issues = list(verdict.issues)
        if verdict.is_valid and exposure.bank_fingerprint(shown) in withdrawn:
            issues.append(REPEATS_WITHDRAWN_FEEDBACK)
            metrics.add_metric(name="DraftsRepeatingWithdrawn", unit="Count", value=1)
        elif (
            verdict.is_valid
            and len(accepted) < wanted
            and (conflict := context.conflict(shown, strict=False)) is not None
        ):
            issues.append(conflict)
            metrics.add_metric(name="QuestionsRejectedAsSeen", unit="Count", value=1)
        elif verdict.is_valid and len(accepted) < wanted:
            try:
                to_save.append(_save_request(draft, verdict.final_score, plan))
            except ValueError as error:  # passes Tool 4 (e.g. at 0.70) yet Tool 5 cannot store it
                issues.append(f"Not savable: {to_python_error(error) if isinstance(error, ValidationError) else error}")
            else:
                accepted.append(AcceptedQuestion(draft=draft, validation_score=verdict.final_score))
                context.add(shown)
                kept.append(shown)
                continue
        rejected += 1
        feedback.extend(issue for issue in issues if issue not in feedback)
    metrics.add_metric(name="QuestionsRejectedInRound", unit="Count", value=rejected)
    return RoundProgress(
        attempt=progress.attempt + 1,
        missing=wanted - len(accepted),
        accepted=accepted,
        accepted_count=len(accepted),
        to_save=to_save,
        feedback=feedback,
        used_stems=[*progress.used_stems, *(draft.stem for draft in request.questions)],
        exposure=progress.exposure.model_copy(update={"shown": [*progress.exposure.shown, *kept]}),
        total_generated=progress.total_generated + len(request.questions),
        total_rejected=progress.total_rejected + rejected,
        # The writer was asked for `missing` drafts: fewer means its concept records ran out.
        unwritten=max(0, progress.missing - len(request.questions)),
    )


def _answer(draft: DraftQuestion) -> str:
    return ", ".join(draft.correct_keywords) if draft.type == "short_answer" else (draft.correct_answer or "")


def _mark_seen(plan: RoundPlan) -> None:
    """The generated items join the learner's seen items, so the bank never offers them back to
    this learner (the drawn ones were marked when drawn), and the round's items (drawn and
    generated) join the learner's recent fingerprints, which a practice round in a later session
    avoids whatever their ids (security/exposure.py). Best effort: a failure must not lose the
    round, which is ready anyway."""
    generated = [item.draft.question_id for item in plan.progress.accepted]  # saved or queued: its id is fixed
    if not plan.user_id:
        return
    drawn = {question.stem for question in plan.drawn}
    in_round = [
        *(item for item in plan.progress.exposure.shown if item.stem in drawn),
        *(drafted_item(item.draft) for item in plan.progress.accepted),
    ]
    if not generated and not in_round:
        return
    recent = exposure.recent(plan.progress.exposure.recent, in_round)
    try:
        abilities.mark_seen(plan.user_id, plan.category, generated, recent=recent)
    except DataAccessError as error:
        logger.warning("generated items not marked seen", extra={"reason": str(error), "items": len(generated)})


@tracer.capture_method
def finish_round(request: FinishRoundInput) -> PipelineOutput:
    plan, progress = request.plan, request.plan.progress
    questions = list(plan.drawn)  # saved first, by PlanRound
    refused = 0
    for item, saved in zip(progress.accepted, request.saved.results, strict=False):
        # Tool 5 refused it (it repeats a question withdrawn from the bank): not served, and the
        # round is one shorter rather than show the withdrawn item again.
        if not saved.success and not saved.queued_for_retry:
            refused += 1
            continue
        questions.append(
            GeneratedQuestionOutput(
                question_id=saved.question_id,
                stem=item.draft.stem,
                type=item.draft.type,
                choices=item.draft.choices,
                correct_answer=_answer(item.draft),
                difficulty=item.draft.difficulty,
                category=plan.category,
                round_id=plan.round_id,
                validation_score=item.validation_score,
                saved_at=saved.saved_at,
                queued_for_retry=not saved.success,
                language=item.draft.language,
                concept=item.draft.source.name if item.draft.source else None,
                concept_domain=item.draft.source.domain if item.draft.source else None,
            )
        )
    metrics.add_metric(name="RoundQuestionsValid", unit="Count", value=len(questions))
    _mark_seen(plan)
    reason = shortfall_reason(
        plan.count,
        len(questions),
        unwritten=progress.unwritten,
        rejected=progress.total_rejected,
        refused=refused,
    )
    if reason is not None:
        logger.warning(
            "the round is short", extra={"requested": plan.count, "delivered": len(questions), "reason": reason}
        )
        metrics.add_metric(name="RoundsShort", unit="Count", value=1)
    return PipelineOutput(
        questions=questions,
        total_generated=progress.total_generated,
        total_valid=len(questions),
        total_rejected=progress.total_rejected + refused,
        requested=plan.count,
        delivered=len(questions),
        from_neighbours=sum(not q.from_bank and q.difficulty != plan.difficulty for q in questions),
        shortfall_reason=reason,
    )
