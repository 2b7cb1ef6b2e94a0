"""The generation step of Mode 1: exactly `count` draft questions from one LLM call, using the
profile, the few-shot templates and the keyword record. If the model fails or returns too few
usable questions, the offline generator fills the gap; what the keyword record cannot support
(the session has tested its concepts) the offline generator writes from the records of the
neighbouring difficulties the plan allows (`fill_difficulties`, logic/rounds/shortfall.py), each
such draft keeping its record's difficulty. Fewer than `count` leave only when those run out too.

Each draft leaves this step with the id it will be saved under (random, fixed here once, before
anything is written) and, for multiple choice, its choices in an order drawn under the
deployment's secret: models put the key in a favourite position, and a learner must not be able
to predict it either way. A model's draft also leaves with its Korean particles resolved ("은(는)"
after "PyTorch" -> "는", however the prompt asked) and its keywords bare ("PyTorch가" -> "PyTorch")."""

import re
import uuid

from slea.contracts.answers import shuffle_choices
from slea.contracts.generation import DraftQuestion, GenerateQuestionsInput, GenerateQuestionsOutput, IdentifiedDraft
from slea.language.korean_particles import bare_term, resolve_particles
from slea.llm.offline import OfflineProvider
from slea.llm.provider import LLMError
from slea.llm.provider_choice import get_provider
from slea.logic.generation.keywords import stored_keywords
from slea.platform.clock import utc_now
from slea.platform.observability import logger, metrics, tracer
from slea.security.exposure import drafted_item
from slea.security.ids import keyed_random

WORD = re.compile(r"[\w\-']+")


def _usable(draft: DraftQuestion, seen: set[str]) -> bool:
    key = draft.stem.strip().casefold()
    if key in seen:
        return False
    if draft.type == "short_answer":
        return bool(draft.correct_keywords)
    return bool((draft.correct_answer or "").strip())


def _particles_resolved(draft: DraftQuestion) -> DraftQuestion:
    """What a model wrote, as a learner should read it: each alternation ("은(는)", "와(과)",
    "(으)로") replaced by the form its word takes; each keyword without a trailing particle (a
    Hangul one only when the bare word is a word of the draft's own text, see bare_term)."""
    known = set(WORD.findall(" ".join([draft.stem, draft.reference_answer, draft.explanation])))
    return draft.model_copy(
        update={
            "stem": resolve_particles(draft.stem),
            "choices": [resolve_particles(choice) for choice in draft.choices],
            "correct_answer": resolve_particles(draft.correct_answer) if draft.correct_answer else draft.correct_answer,
            "correct_keywords": [bare_term(keyword.strip(), known - {keyword}) for keyword in draft.correct_keywords],
            "reference_answer": resolve_particles(draft.reference_answer),
            "explanation": resolve_particles(draft.explanation),
        }
    )


def _identified(draft: DraftQuestion, request: GenerateQuestionsInput) -> IdentifiedDraft:
    """The draft under a new random id; a multiple-choice draft with its choices reordered by a
    generator keyed on the round and the stem (a retried step draws the same order)."""
    fields = {**draft.model_dump(), "question_id": str(uuid.uuid4())}
    if draft.type == "multiple_choice" and draft.correct_answer:
        rng = keyed_random("choice-order", request.session_id, request.round, request.attempt, draft.stem)
        fields["choices"], fields["correct_answer"] = shuffle_choices(draft.choices, draft.correct_answer, rng)
    return IdentifiedDraft.model_validate(fields)


def _from_neighbours(request: GenerateQuestionsInput, written: list[DraftQuestion]) -> list[DraftQuestion]:
    """Drafts for what is still missing, written offline from the neighbouring difficulties'
    records in the plan's order, each judged against the session and everything written so far."""
    drafts: list[DraftQuestion] = []
    for difficulty in request.fill_difficulties:
        missing = request.count - len(written) - len(drafts)
        if missing <= 0:
            break
        record = stored_keywords(difficulty, request.category)
        if record is None:
            continue
        so_far = [*written, *drafts]
        neighbour = request.model_copy(
            update={
                "keywords": record,
                "difficulty": difficulty,
                "avoid_stems": [*request.avoid_stems, *(draft.stem for draft in so_far)],
                "exposure": request.exposure.model_copy(
                    update={"shown": [*request.exposure.shown, *(drafted_item(draft) for draft in so_far)]}
                ),
            }
        )
        drafts += [
            draft.model_copy(update={"difficulty": difficulty})
            for draft in OfflineProvider().generate_questions(neighbour, missing).questions[:missing]
        ]
    if drafts:
        metrics.add_metric(name="GeneratedFromNeighbours", unit="Count", value=len(drafts))
    return drafts


@tracer.capture_method
def generate_questions(request: GenerateQuestionsInput) -> GenerateQuestionsOutput:
    provider = get_provider()
    try:
        drafts = provider.generate_questions(request, request.count).questions
    except LLMError as error:
        logger.warning("question generation failed, using the offline generator", extra={"reason": str(error)})
        drafts = []
    seen = {stem.strip().casefold() for stem in request.avoid_stems}
    questions: list[DraftQuestion] = []
    if provider.name != "offline":  # the offline generator resolves them where it composes a stem
        drafts = [_particles_resolved(draft) for draft in drafts]
    for draft in drafts:
        if len(questions) < request.count and _usable(draft, seen):
            seen.add(draft.stem.strip().casefold())
            update: dict[str, object] = {"difficulty": request.difficulty}
            if provider.name != "offline":  # a model's draft has no concept record behind it, whatever it wrote
                update["source"] = None
                update["choice_notes"] = []
            questions.append(draft.model_copy(update=update))
    missing = request.count - len(questions)
    if missing and provider.name != "offline":
        topped_up = request.model_copy(update={"avoid_stems": [*request.avoid_stems, *(q.stem for q in questions)]})
        questions += OfflineProvider().generate_questions(topped_up, missing).questions
        metrics.add_metric(name="GeneratedOffline", unit="Count", value=missing)
    if len(questions) < request.count and request.fill_difficulties:
        questions += _from_neighbours(request, questions)
    metrics.add_metric(name="QuestionsGenerated", unit="Count", value=len(questions))
    return GenerateQuestionsOutput(
        questions=[_identified(question, request) for question in questions],
        round_id=f"{request.session_id}_{request.round}_{utc_now()}",
        provider=provider.name,
        template_stems=[template.stem for template in request.templates],
    )
