"""A placement test: "what is my level?", one question at a time, from the item bank, stopping as
soon as the answers say enough (measurement/cat.py's loop under its PLACEMENT policy).

POST /sessions/{id}/next is one trip: read the session, its questions and its attempts → the
question still open, if there is one (the same until it is answered), else estimate from the
answers and apply the stopping rule → if the test goes on, choose the most informative eligible
bank item → one transaction saves it as the session's question and counts its exposure.

Why the estimate is rebuilt from the session's own attempts (not read from the learner's ability
record): a placement is a fresh measurement from the survey's prior, so a learner's earlier
practice does not end it before it starts; its answers still update the learner's ability as any
answer does (the answer path is the same one). Each attempt keeps what its response counted with
(the item's b, its uncertainty, the guessing floor and the score the ability used: a grade
awaiting review enters by the pending-grade rule), so the estimate is exactly the one the answers
gave, and a reviewer's later correction reaches the learner's ability, not a finished result.

Eligible items are those practice rounds may draw (bank_draw's rules: not seen by the learner, not
in the session, nothing the session showed answers or gives them away), of any type, with no
interest filter (a placement measures the category). Where the bank lacks an item near the
estimate, a Mode 1 execution writes some for the bank in the background (`fill_bank`: nothing drawn,
nothing marked seen, saved under a session of its own that no learner owns) and the test goes on
with the best item there is; only when nothing at all is left does it wait for that execution
(503 NO_QUESTION_YET), and it ends (`no_items`) only when no fill is running for it.
"""

import json

from botocore.exceptions import BotoCoreError, ClientError

from slea.contracts.profile import normalised_user_id
from slea.contracts.sessions import (
    LevelChance,
    PlacementNext,
    PlacementProgress,
    PlacementResult,
)
from slea.dal import abilities, attempts, bank, executions, questions, sessions, usage
from slea.dal.attempts import StoredAttempt
from slea.dal.bank import BankItem
from slea.dal.question_records import StoredQuestion
from slea.dal.sessions import StoredSession
from slea.logic.answering.ability_update import item_difficulty
from slea.logic.rounds import bank_draw, lifecycle, planning
from slea.measurement import cat, irt, scale
from slea.measurement.learner import POPULATION_PRIOR, Posterior
from slea.platform.clock import utc_now
from slea.platform.errors import Conflict, DataAccessError, Forbidden, NotFound, Unavailable
from slea.platform.observability import logger, metrics
from slea.security import exposure
from slea.security.exposure import SessionContext
from slea.security.ids import keyed_random, keyed_uuid

POLICY = cat.PLACEMENT
ROUND = 1  # a placement's questions are one round (the summary and history read them as such)
# Half-widths (logits) of the window of difficulties read around the most informative b, then a
# wider one if the near window holds nothing eligible (the test goes on with the best item there).
NEAR_WINDOW = (-0.8, 0.6)
WIDE_WINDOW = 3.0
# What a placement reads of a bank item: enough to judge it (its difficulty, exposure, type, and what
# it shows: security/exposure.py) and to copy it into the session (bank.COPIED_FIELDS).
WINDOW_FIELDS = (
    "question_id",
    "item_id",
    "difficulty_b",
    "difficulty_precision",
    "draws",
    *bank.COPIED_FIELDS,
)
# Fewer eligible items than this near the estimate: the bank is thin there and generation fills it.
FILL_BELOW = 3
FILL_COUNT = 8
EXPOSURE_MIN_LEARNERS = bank_draw.EXPOSURE_MIN_LEARNERS
# A short answer's score is, until a reviewer confirms it, the grader's calibrated probability,
# which tells less than a right-or-wrong answer; and typing is effort a quick test should ask
# sparingly. So a short answer counts for 0.8 of its information here: at equal distance a choice
# item comes first. (Counted at half, simulated placements took 21 items at the median instead of
# 14: a choice item tells less about the learner than a short answer at its best.)
SHORT_ANSWER_INFORMATION = 0.8
# What one answer adds to the precision (1/SE^2) on average, for the progress line's "about N
# more": 0.19 over 200 simulated placements (bench/placement_simulation.py's world, the mix of
# types the selection picks, difficulties partly learnt).
INFORMATION_PER_ITEM = 0.19


def _owned_placement(session_id: str, user_id: str) -> StoredSession:
    session = sessions.get_session(session_id)
    if session is None:
        raise NotFound("SESSION_NOT_FOUND", f"session {session_id} not found")
    if normalised_user_id(session.user_id) != normalised_user_id(user_id):
        raise Forbidden("FORBIDDEN", f"session {session_id} belongs to another user")
    if session.purpose != "placement":
        raise Conflict("NOT_A_PLACEMENT", "this session is a practice session: start its rounds instead")
    return session


def _prior(session: StoredSession) -> tuple[float, float]:
    stored = json.loads(session.prior or "null") or list(POPULATION_PRIOR)
    return float(stored[0]), float(stored[1])


def responses_of(graded: list[StoredAttempt]) -> list[cat.Response]:
    """The session's answers as the estimate counts them (attempts recorded without an ability
    update, e.g. when the learner's data could not be read, count here all the same)."""
    found = []
    for attempt in graded:
        if attempt.item_b is None or attempt.guess_floor is None:
            continue
        score = attempt.ability_score if attempt.ability_score is not None else attempt.score
        found.append(
            cat.Response(
                b=attempt.item_b,
                floor=attempt.guess_floor,
                score=max(0.0, min(1.0, float(score) / 100)),
                b_se=attempt.item_b_se or 0.0,
            )
        )
    return found


def result_of(category: str, posterior: Posterior, given: int, pending: int, reason: cat.StopReason) -> PlacementResult:
    guess = posterior.estimate()
    low, high = cat.interval(posterior)
    said = cat.level_statement(posterior)
    return PlacementResult(
        category=category,
        level=said.level,
        level_chance=round(said.chance, 3),
        other_level=said.runner_up,
        other_level_chance=round(said.runner_up_chance, 3),
        chances=[LevelChance(level=word, chance=round(chance, 3)) for word, chance in said.chances.items()],
        theta=round(guess.theta, 3),
        se=round(guess.se, 3),
        range_low=round(low, 2),
        range_high=round(high, 2),
        items=given,
        pending_review=pending,
        stopped_because=reason,
        statement=statement(said),
    )


def statement(said: cat.LevelStatement) -> str:
    """The level with how sure it is, never one word where the evidence does not settle it."""
    if said.runner_up is None:
        return f"{said.level} (about {round(said.chance * 100)}% sure)"
    return f"{said.level}; 1 chance in {cat.one_chance_in(said.runner_up_chance)} that it is {said.runner_up}"


def _progress(posterior: Posterior, given: int) -> PlacementProgress:
    guess = posterior.estimate()
    return PlacementProgress(
        answered=given,
        more_expected=cat.items_to_stop(posterior, given, POLICY.stop, INFORMATION_PER_ITEM),
        max_questions=POLICY.stop.max_items,
        theta=round(guess.theta, 3),
        se=round(guess.se, 3),
        se_target=POLICY.stop.se_target or 0.0,
    )


def _loop_item(item: BankItem, learners: int) -> cat.Item:
    question = item.question
    known = item_difficulty(question, question.difficulty)
    return cat.Item(
        item_id=question.question_id,
        b=known.b,
        floor=irt.guess_floor(question.item_type, len(question.choices) if question.choices else None),
        b_se=known.se,
        # The share of learners shown it once this learner is: an item at the cap is not drawn past it.
        exposure_rate=(item.draws + 1) / max(learners + 1, EXPOSURE_MIN_LEARNERS),
        information_share=SHORT_ANSWER_INFORMATION if question.item_type == "short_answer" else 1.0,
    )


def _eligible(stored: list[BankItem], context: SessionContext, excluded: set[str]) -> list[BankItem]:
    return [
        item
        for item in stored
        if item.question.item_id == item.question.question_id
        and item.question.question_id not in excluded
        and context.conflict(exposure.shown_question(item.question)) is None
    ]


def _fill_bank(session_id: str, user_id: str, category: str, theta: float) -> bool:
    """Ask Mode 1 to write FILL_COUNT items near `theta` for the bank; whether such a fill for this
    test is now running (the test may wait for it when nothing else is left). One execution per
    test and difficulty (its name), so a thousand requests start at most one per label, and the
    learner spends a round of their daily quota on each: a test costs at most its quota."""
    label = scale.b_to_label(irt.most_informative_difficulty(theta))
    fill_session = keyed_uuid("bank-fill", session_id, label)
    request = {
        "user_id": user_id,
        "session_id": fill_session,
        "round": 1,
        "category": category,
        "count": FILL_COUNT,
        "difficulty": label,
        "purpose": "placement",
        "fill_bank": True,
    }
    day = usage.today()
    name = f"fill-{fill_session}"
    try:
        if not usage.spend_round(user_id, day):
            return False  # the learner's quota is spent: the test goes on with the bank as it is
        executions.start(name, request)
        metrics.add_metric(name="PlacementBankFills", unit="Count", value=1)
        return True
    except executions.ExecutionExists:
        usage.spend_round(user_id, day, give_back=True)  # started for this test before
        return _running(name)
    except ClientError as error:
        usage.spend_round(user_id, day, give_back=True)  # refused: not started at all
        logger.warning("the bank could not be filled", extra={"reason": str(error)})
    except (BotoCoreError, DataAccessError) as error:
        logger.warning("the bank could not be filled", extra={"reason": str(error)})
    return False


def _running(name: str) -> bool:
    """Whether the round-generation execution `name` is still running."""
    try:
        described = executions.describe(executions.execution_arn(name))
    except (ClientError, BotoCoreError) as error:
        logger.warning("a bank fill's status is unknown", extra={"reason": str(error)})
        return False
    return described is not None and described.status == "RUNNING"


def _candidates(key: str, theta: float, context: SessionContext, excluded: set[str]) -> tuple[list[BankItem], bool]:
    """Eligible bank items around the most informative b for `theta`, and whether the bank is thin
    there (then a wider window is read too)."""
    centre = irt.most_informative_difficulty(theta, 0.25)
    near_items = bank.window(key, centre + NEAR_WINDOW[0], centre + NEAR_WINDOW[1], WINDOW_FIELDS)
    near = _eligible(near_items, context, excluded)
    if len(near) >= FILL_BELOW:
        return near, False
    wide = _eligible(bank.window(key, centre - WIDE_WINDOW, centre + WIDE_WINDOW, WINDOW_FIELDS), context, excluded)
    return wide, True


def _serve(
    session: StoredSession,
    user_id: str,
    posterior: Posterior,
    *,
    given: int,
    stored: list[StoredQuestion],
    graded: list[StoredAttempt],
) -> tuple[StoredQuestion | None, bool]:
    """Choose, save and return the next question (None: the bank has nothing eligible left), and
    whether generation is filling the bank for this test now."""
    session_id, category = session.session_id, str(session.category)
    language = session.language or "en"
    key = bank.bank_key(category, language)
    question_id = keyed_uuid("placement", session_id, given)
    ability = abilities.get_ability(user_id, category)
    seen = set(ability.seen_items) if ability is not None else set()
    excluded = seen | {q.bank_item_id for q in stored}
    shown = planning.exposure_of(stored, graded, ability, "placement")
    context = SessionContext(shown)
    theta = posterior.estimate().theta
    found, thin = _candidates(key, theta, context, excluded)
    filling = _fill_bank(session_id, user_id, category, theta) if thin else False
    by_id = {item.question.question_id: item for item in found}
    learners = bank.drawn_for(key).learners if found else 0
    pool = [_loop_item(item, learners) for item in found]
    rng = keyed_random("placement", session_id, given)
    for _ in range(2):  # a second pick only if the first left the bank meanwhile
        pick = cat.select(pool, posterior.estimate(), POLICY, rng)
        if pick is None:
            return None, filling
        copy = bank_draw.session_copy(
            by_id[pick.item_id],
            question_id,
            session_id=session_id,
            round_number=ROUND,
            round_id=f"{session_id}_placement",
            at=utc_now(),
        )
        # The session joins the learner's open sessions in the same write: a question shown and left
        # unanswered is counted as wrong once the learner moves on (logic/rounds/skips.py).
        # The item is marked seen in the same write: never shown to this learner again.
        joins = sessions.opened(session_id, user_id, str(copy.question.created_at))
        marks = abilities.seen_write(user_id, category, [pick.item_id])
        originals = {pick.item_id: by_id[pick.item_id]}
        if bank.record_draw(key, [copy], new_learner=not seen, originals=originals, also=(joins, marks)):
            return copy.question, filling
        if (earlier := bank.stored_copy(question_id)) is not None:  # a concurrent `next` saved it first
            return earlier, filling
        pool = [item for item in pool if item.item_id != pick.item_id]
    return None, filling


def _finish(session: StoredSession, result: PlacementResult) -> PlacementNext:
    sessions.finish_placement(session.session_id, result.model_dump_json(), utc_now("milliseconds"))
    metrics.add_metric(name="PlacementsFinished", unit="Count", value=1)
    metrics.add_metric(name="PlacementItems", unit="Count", value=result.items)
    return PlacementNext(done=True, result=result)


def next_question(session_id: str, user_id: str) -> PlacementNext:
    """The placement's open question, else the next one, else its result (see the module)."""
    session = _owned_placement(session_id, user_id)
    if session.placement_result:
        return PlacementNext(done=True, result=PlacementResult.model_validate_json(session.placement_result))
    if session.closed_at:
        raise Conflict("SESSION_CLOSED", "this placement test was closed when you moved on to another session")
    stored = questions.session_questions(session_id)
    graded = attempts.session_attempts(session_id, consistent=True)
    answered = {str(attempt.question_id) for attempt in graded}
    responses = responses_of(graded)
    posterior = cat.estimate(cat.initialise(_prior(session), POLICY.prior_doubt), responses)
    given = len(responses)
    open_questions = [
        question
        for question in stored
        if question.question_id not in answered and not question.answered_at and question.status != "retired"
    ]
    if open_questions:
        return PlacementNext(
            done=False, question=lifecycle.question_view(open_questions[0]), progress=_progress(posterior, given)
        )
    pending = sum(1 for attempt in graded if attempt.needs_review)
    reason = cat.stop(posterior, given, POLICY.stop)
    if reason is not None:
        return _finish(session, result_of(str(session.category), posterior, given, pending, reason))
    learner_id = normalised_user_id(user_id)
    served, filling = _serve(session, learner_id, posterior, given=given, stored=stored, graded=graded)
    if served is None:
        if filling or given == 0:  # generation is writing items near the estimate, or none can be asked yet
            raise Unavailable(
                "NO_QUESTION_YET", "no question is ready for this test yet; try again shortly", retry_after=10
            )
        return _finish(session, result_of(str(session.category), posterior, given, pending, "no_items"))
    return PlacementNext(done=False, question=lifecycle.question_view(served), progress=_progress(posterior, given))
