"""After a calibration run: the learners person fit flagged are marked for review, never re-scored.

The refit already leaves a flagged learner's answers out (slea.measurement.calibration); here the
learner's ability records get a `review` mark saying why in plain words, and the reviewers' list
(dal/person_review.py) is replaced by this run's flags. The ability itself (theta, its error, the
history) is not touched: a statistic at a 1% false-alarm rate is a reason for a person to look,
not a verdict, and a silent change would punish the honest learners it flags by chance.

The learner is not told. "Under review" beside a level would tell an account answering from
harvested keys that the detector has fired, after how many answers and on which pattern: an
oracle to tune the cheating against (answer a few harvested items wrong, stay under the cut). An
honest learner loses nothing by not knowing: their level and their next rounds are what they
were. What a reviewer decides is what the learner will see.
"""

from dataclasses import replace

from slea.contracts.item_analysis import LearnerPattern
from slea.dal import person_review as store
from slea.dal.person_review import LearnerMark
from slea.measurement.person_fit import EXPOSURE_Z_FLAG, LZ_FLAG, PersonFit
from slea.platform.errors import DataAccessError
from slea.platform.observability import logger, metrics

DECIMALS = 2


def reason(fit: PersonFit) -> str:
    """Why the learner was flagged, in words a reviewer reads without the statistics: what was seen
    in the answers and what to do, the statistic and its cut last (for whoever checks the numbers)."""
    parts = []
    if fit.lz < LZ_FLAG:
        parts.append(
            "Right on hard items and wrong on easy ones far more often than their level explains "
            f'({fit.answers} answers; questions left unanswered or answered "I don\'t know" are not counted).'
        )
    if fit.exposure_z is not None and fit.exposure_z > EXPOSURE_Z_FLAG:
        parts.append(
            "Right mostly on items whose answers had already been shown to many other accounts, beyond "
            f"what their level explains ({fit.answers} answers)."
        )
    if parts:
        parts.append(
            "It can mean answers taken from shared keys, or guessing: read their recent answers before "
            "acting; their level has not been changed."
        )
    statistics = []
    if fit.lz < LZ_FLAG:
        statistics.append(f"lz {fit.lz:.2f}, below {LZ_FLAG} is flagged")
    if fit.exposure_z is not None and fit.exposure_z > EXPOSURE_Z_FLAG:
        statistics.append(f"z {fit.exposure_z:.2f}, above {EXPOSURE_Z_FLAG} is flagged")
    if statistics:
        parts.append(f"({'; '.join(statistics)})")
    return " ".join(parts)


def seen_in(lz: float, exposure_z: float | None) -> list[LearnerPattern]:
    """What a flag's statistics saw in the answers, as the page names it (in the reader's language)."""
    seen: list[LearnerPattern] = []
    if lz < LZ_FLAG:
        seen.append("hard_right_easy_wrong")
    if exposure_z is not None and exposure_z > EXPOSURE_Z_FLAG:
        seen.append("right_where_keys_shown")
    return seen


def _aberrance(fit: PersonFit) -> float:
    """Larger is more aberrant, on either statistic's scale (both are standard normal deviates)."""
    return max(-fit.lz, fit.exposure_z or 0.0)


def marks(fits: dict[str, PersonFit], categories: dict[str, set[str]], at: str) -> dict[str, LearnerMark]:
    """The review mark of each flagged learner, the most aberrant LISTED_MAX of them."""
    flagged = sorted((learner for learner, fit in fits.items() if fit.flagged), key=lambda n: -_aberrance(fits[n]))
    return {
        learner: LearnerMark(
            reason=reason(fits[learner]),
            lz=round(fits[learner].lz, DECIMALS),
            exposure_z=_rounded(fits[learner].exposure_z),
            answers=fits[learner].answers,
            categories=tuple(sorted(categories.get(learner, ()))),
            flagged_at=at,
        )
        for learner in flagged[: store.LISTED_MAX]
    }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, DECIMALS)


def _same(before: LearnerMark | None, after: LearnerMark) -> bool:
    """The same flag for the same evidence (when it was raised aside)."""
    return before is not None and replace(after, flagged_at=before.flagged_at) == before


def mark_for_review(fits: dict[str, PersonFit], categories: dict[str, set[str]], at: str) -> int:
    """Mark this run's flagged learners, clear those a run no longer flags, replace the list.
    Returns how many learners carry a mark. A storage failure is logged, not raised: the item
    calibration goes on, and the next run marks them."""
    try:
        previous = store.flagged_learners()
        current = marks(fits, categories, at)
        for learner, mark in current.items():
            if _same(previous.get(learner), mark):
                current[learner] = previous[learner]  # flagged earlier: keeps when
                continue
            for category in mark.categories:
                store.mark_ability(learner, category, mark)
        for learner in set(previous) - set(current):
            for category in previous[learner].categories:
                store.clear_ability(learner, category)
        if current != previous:
            store.write_flagged_learners(current, at)
    except DataAccessError as error:
        logger.warning("flagged learners not marked for review", extra={"reason": str(error)})
        metrics.add_metric(name="PersonFitMarksFailed", unit="Count", value=1)
        return 0
    metrics.add_metric(name="LearnersMarkedForReview", unit="Count", value=len(current))
    return len(current)
