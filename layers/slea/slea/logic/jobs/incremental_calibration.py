"""The stream-fed half of calibration (docs/measurement.md): each new or changed graded answer on
the attempts table's stream is folded into per-item and per-learner sums
(slea.measurement.sufficient), and the items a batch touched get their statistics recomputed from
their sums alone. Reads and writes per run follow the new answers, whatever the history.

Which answers count is the refit's rule (slea.logic.jobs.answer_rules: the score it reads, the
item it names; skipped items left out); in addition an answer is folded only if it was recorded with
the estimates it was expected from (`learner_theta`, `item_b`, `guess_floor`, written by the
answer's own transaction): an answer recorded without its ability update (the learner model could
not be read, or the question has no category) has none, and is left to the full refit.

Idempotent: dal/calibration_sums.py records the one folded answer per learner and item in the
transaction that adds it, so a redelivered record or a retried batch folds nothing more; a
reviewer's correction (a MODIFY with another score) folds the difference, conditioned on the score
recorded.

Compromised items (slea.measurement.compromise): each first answer also advances its item's
CUSUM, written in the same transaction as the sums (conditioned on the item's fold count read
with the state, so two shards folding one item cannot lose a step: the loser reads again). The
states of the items a batch has first answers to are read before it is folded (`prepare`: one
BatchGetItem per 100 items) and kept for the batch's answers. When the recomputed item's CUSUM
is past its threshold and the item is still in the bank's index, the statistics write rests it
(out of the index, `rested_at`, `rest_reason` "compromised"), as the draw rests an over-exposed
item: the next round that would have drawn it generates in its slot. A redelivered answer folds
nothing, so it neither moves the CUSUM nor rests twice.

Flags that take an item out of drawing (`misfit`, `label_far`) stay with the full refit,
which has the robust, established-accounts checks these sums cannot make; the statistics written
here keep the refit's b, se, discrimination and flags as they stand.
"""

from dataclasses import dataclass, field, replace
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from slea.dal import calibration_sums as store
from slea.dal.calibration_records import CalibrationItem, ItemCalibration, StreamedAnswer
from slea.logic.jobs.answer_rules import DECIMALS, answer_floor, answer_score, answered_item
from slea.measurement.compromise import Cusum
from slea.measurement.items import ItemDifficulty
from slea.measurement.sufficient import ItemSums, LearnerSums, item_part, learner_part
from slea.platform.clock import utc_now
from slea.platform.errors import DataAccessError
from slea.platform.observability import logger, metrics

# Another shard folding the same item between the read of its CUSUM and the write: read again.
STALE_RETRIES = 5


@dataclass(frozen=True)
class Answer:
    """A graded answer as the fold reads it."""

    item_id: str
    user_id: str
    category: str
    attempt: str
    score: float
    theta: float
    b: float
    floor: float
    b_se: float = 0.0

    def parts(self) -> tuple[ItemSums, LearnerSums]:
        return (
            item_part(self.theta, self.b, self.floor, self.score),
            learner_part(self.theta, self.b, self.floor, self.score),
        )


def answer_of(attempt: StreamedAnswer | None) -> Answer | None:
    """The answer an attempt record counts as, or None when it counts for nothing here."""
    if attempt is None or attempt.skipped:  # the refit's rule: a skip says nothing of the item
        return None
    item_id, user_id = answered_item(attempt), attempt.user_id
    theta, b = attempt.learner_theta, attempt.item_b
    category = attempt.ability_category
    if not item_id or not user_id or theta is None or b is None or not category:
        return None
    return Answer(
        item_id=item_id,
        user_id=user_id,
        category=category,
        attempt=f"{attempt.session_id}#{attempt.attempt_key}",
        score=answer_score(attempt),
        theta=float(theta),
        b=float(b),
        floor=answer_floor(attempt),
        b_se=float(attempt.item_b_se or 0.0),
    )


def first_fold(new: Answer) -> store.Fold:
    """A learner's answer to an item folded for the first time."""
    item, learner = new.parts()
    return store.Fold(new.item_id, new.user_id, new.category, new.attempt, new.score, None, item, learner)


def fold_of(old: Answer | None, new: Answer | None) -> store.Fold | None:
    """What a change of an attempt from `old` to `new` does to the sums (None: nothing)."""
    if new is not None and old is None:
        return first_fold(new)
    if old is None:
        return None
    if new is not None and (new.item_id, new.user_id, new.attempt) != (old.item_id, old.user_id, old.attempt):
        return None  # an attempt's key fields never change; nothing is folded from such a record
    if new is not None and new.score == old.score:
        return None  # the change touched nothing the fit reads (a review state, a delivery)
    old_item, old_learner = old.parts()
    if new is None:  # the answer is taken out (its attempt deleted, or now skipped)
        return store.Fold(
            old.item_id,
            old.user_id,
            old.category,
            old.attempt,
            None,
            old.score,
            ItemSums() - old_item,
            LearnerSums() - old_learner,
        )
    new_item, new_learner = new.parts()
    return store.Fold(
        new.item_id,
        new.user_id,
        new.category,
        new.attempt,
        new.score,
        old.score,
        new_item - old_item,
        new_learner - old_learner,
    )


@dataclass
class Folding:
    """One batch of stream records: fold each (`fold_record`, called per record by the batch
    processor, so a failure is that record's alone), then recompute what was touched."""

    touched: dict[str, str] = field(default_factory=dict)  # item id -> category
    cusums: dict[str, tuple[Cusum, int]] = field(default_factory=dict)  # item id -> (CUSUM, folds) as written
    folded: int = 0
    rested: int = 0
    already_folded: int = 0
    ignored: int = 0

    def prepare(self, records: list[tuple[str, dict[str, Any] | None, dict[str, Any] | None]]) -> None:
        """Read the CUSUMs of the items the batch's records have first answers to, in one go; a
        failure leaves them to be read one item at a time as their answers are folded."""
        first = {
            new.item_id
            for event_name, old_image, new_image in records
            if (new := self._answers(event_name, old_image, new_image)[1]) is not None
        }
        try:
            self.cusums |= store.item_cusums(first)
        except DataAccessError as error:
            logger.warning("item CUSUMs not read ahead", extra={"items": len(first), "reason": str(error)})

    @staticmethod
    def _answers(
        event_name: str, old_image: dict[str, Any] | None, new_image: dict[str, Any] | None
    ) -> tuple[Answer | None, Answer | None]:
        old = answer_of(store.streamed_answer(old_image) if old_image else None)
        new = answer_of(store.streamed_answer(new_image) if new_image and event_name != "REMOVE" else None)
        return old, new

    def fold_record(self, event_name: str, old_image: dict[str, Any] | None, new_image: dict[str, Any] | None) -> None:
        old, new = self._answers(event_name, old_image, new_image)
        change = fold_of(old, new)
        if change is None:
            self.ignored += 1
            return
        outcome = self._apply(change, new)
        if outcome == "not_recorded" and new is not None:
            # A correction of an answer that was never folded (its first record was given up on
            # after the retries): the answer as it now stands is folded as a first one.
            change = first_fold(new)
            outcome = self._apply(change, new)
        if outcome != "folded":
            self.already_folded += 1
            return
        self.folded += 1
        self.touched[change.item_id] = change.category

    def _apply(self, change: store.Fold, new: Answer | None) -> store.FoldOutcome:
        """Apply a change; a first answer carries its item's CUSUM after it, computed from the
        state last written (read again when another writer moved the item meanwhile)."""
        for _ in range(STALE_RETRIES):
            if change.expected_score is not None or new is None:  # not a first answer
                return store.apply(change, utc_now())
            if change.item_id not in self.cusums:
                self.cusums |= store.item_cusums([change.item_id])
            state, folds = self.cusums[change.item_id]
            after = state.after(new.theta, new.b, new.b_se, new.floor, new.score)
            outcome = store.apply(replace(change, cusum=after, cusum_folds=folds), utc_now())
            if outcome == "stale":
                del self.cusums[change.item_id]
                continue
            if outcome == "folded":
                self.cusums[change.item_id] = (after, folds + 1)
            return outcome
        raise DataAccessError("calibration sums transaction failed: the item's sums kept changing")

    def recompute(self) -> int:
        """Write the touched items' statistics from their sums: a failure is logged and counted,
        not raised (the sums are right; the item's next answer writes its statistics again)."""
        written = 0
        try:
            now = utc_now()
            for item_id, touched in store.touched_items(self.touched).items():
                if touched.question is None or touched.sums.answers <= 0:
                    continue
                rest = touched.cusum.compromised and bool(touched.question.bank_key)
                if store.write_statistics(item_id, statistics(touched, now), touched.folds, now if rest else None):
                    written += 1
                    self.rested += rest
                    if rest:
                        logger.warning("item rested as compromised", extra={"item_id": item_id})
        except DataAccessError as error:
            logger.error("item statistics not written", extra={"items": len(self.touched), "reason": str(error)})
            metrics.add_metric(name="IncrementalStatisticsNotWritten", unit=MetricUnit.Count, value=len(self.touched))
        metrics.add_metric(name="AnswersFolded", unit=MetricUnit.Count, value=self.folded)
        metrics.add_metric(name="AnswersAlreadyFolded", unit=MetricUnit.Count, value=self.already_folded)
        metrics.add_metric(name="ItemsRecomputed", unit=MetricUnit.Count, value=written)
        metrics.add_metric(name="ItemsRestedAsCompromised", unit=MetricUnit.Count, value=self.rested)
        logger.info(
            "answers folded",
            extra={
                "folded": self.folded,
                "already_folded": self.already_folded,
                "ignored": self.ignored,
                "items_written": written,
                "items_rested": self.rested,
            },
        )
        return written


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, DECIMALS)


def statistics(touched: store.TouchedItem, now: str) -> ItemCalibration:
    """The item's calibration (the refit's statistics) with the statistics read from the sums;
    b, se, discrimination and flags as the refit left them (before any refit: the online
    difficulty, no discrimination, no flags)."""
    question, sums = touched.question or CalibrationItem(question_id=""), touched.sums
    stored = question.calibration or ItemCalibration()
    if stored.b is None:
        prior = ItemDifficulty.from_label(float(question.difficulty or 5.5))
        b = prior.b if question.difficulty_b is None else float(question.difficulty_b)
        precision = float(question.difficulty_precision or prior.precision)
        stored = replace(stored, b=_rounded(b), se=_rounded(precision**-0.5), discrimination=None, flags=())
    return replace(
        stored,
        answers=round(sums.answers),
        facility=_rounded(sums.facility),
        infit=_rounded(sums.infit),
        outfit=_rounded(sums.outfit),
        exposure=_rounded(sums.answers / max(touched.category_learners, 1)),
        calibrated_at=now,
    )


def learner_lz(user_id: str) -> float | None:
    """The learner's person-fit lz from their folded answers (None below person fit's minimum
    number of answers, or before any answer of theirs was folded)."""
    sums = store.learner_sums(user_id)
    return None if sums is None else sums.lz
