"""The scheduled refit of item difficulties from all answers, with the statistics reviewers read.

Method: marginal maximum a posteriori by EM. E-step: each learner's ability posterior given the
current difficulties (a normal prior, a quadrature grid), summarised as a normal and integrated with
five Gauss-Hermite nodes. M-step: each item's b by a few Newton steps on its expected log-likelihood
plus its label prior. After each round the scale is anchored: all difficulties shift together so
that on average they sit where their labels put them (the Rasch scale has no origin of its own, and
the labels are the origin learners' abilities were reported on).

Then, per item, at the learners' final estimates: facility (mean score), point-biserial
discrimination (correlation of the item score with ability), infit and outfit mean squares (Rasch
fit: near 1 when answers vary with ability as the model says), and flags:
- "misfit": at least MIN_FIT_ANSWERS answers and infit > INFIT_MAX or outfit > OUTFIT_MAX
  (the usual "unproductive for measurement" bounds of Rasch practice), or answers that rise with
  ability clearly less than the model says: a score test of the item's slope, z below SLOPE_Z_MIN
  (a one-in-a-thousand event for an item that fits). Near its target an item's infit barely moves
  when it does not discriminate at all; the slope test sees it. Both the slope test and the reported
  point-biserial use each learner's ability estimated WITHOUT the item (the "rest" ability): with a
  dozen answers per learner, the item's own answer would lend it a correlation it does not have;
- "label_far": the calibrated b is more than LABEL_FAR logits (three label steps) from its label's
  b and known to better than LABEL_FAR_SE: the generator misjudged it.

The scheduled job runs `calibrate_guarded`: the same fit, made hard for a few hostile accounts to
move. Each learner counts once per item (their first answer: a later one may come from a key they
were shown); learners whose answers misfit the model (person fit, slea.measurement.person_fit:
right on hard items and wrong on easy ones, or right where keys went round) are left out of the
refit and reported, never silently re-scored; an account with fewer than ESTABLISHED_ANSWERS
answers weighs in proportion to them; and a flag stands only if it survives leaving out, for
each flagged item, the ROBUST_TO accounts whose answers pull it most towards the flag: a handful
of accounts can move a difficulty, never take a good item out of drawing on their own.
"""

import math
import operator
from collections import defaultdict
from dataclasses import dataclass, field, replace
from functools import lru_cache

from slea.measurement.irt import MIN_PROBABILITY, log_likelihood, p_correct, sigmoid
from slea.measurement.items import ItemDifficulty
from slea.measurement.learner import POPULATION_PRIOR
from slea.measurement.person_fit import Answered, PersonFit, person_fit

ITERATIONS = 12
CONVERGED = 0.005  # logits: stop once no difficulty moves more than this in a round
NEWTON_STEPS = 3
CALIBRATION_GRID = tuple(-5.0 + 0.25 * index for index in range(41))
# Gauss-Hermite (probabilists') nodes and weights for integrating over a normal posterior.
HERMITE_NODES = (-2.856970013872806, -1.355626179974266, 0.0, 1.355626179974266, 2.856970013872806)
HERMITE_WEIGHTS = (0.011257411327721, 0.222075922005613, 0.533333333333333, 0.222075922005613, 0.011257411327721)
MIN_FIT_ANSWERS = 30
INFIT_MAX, OUTFIT_MAX = 1.3, 1.5
SLOPE_Z_MIN = -3.0
LABEL_FAR, LABEL_FAR_SE = 1.5, 0.5
ESTABLISHED_ANSWERS = 10  # answers after which an account weighs fully in the refit
ROBUST_TO = 10  # accounts a flag must survive losing (the most adverse ones, per item)


@dataclass(frozen=True, slots=True)  # slots: a refit holds a few of these per answer
class Response:
    item_id: str
    learner: str
    score: float  # 0..1
    floor: float = 0.0
    weight: float = 1.0  # the answer's share in the fit (calibrate_guarded lowers a new account's)
    exposure: float = 0.0  # the share of accounts the item's key has been shown to (person fit)
    answered: bool = True  # False: a declined answer ("I don't know"): not counted by person fit


@dataclass(frozen=True)
class ItemStatistics:
    b: float
    se: float
    answers: int
    facility: float
    discrimination: float | None
    infit: float | None
    outfit: float | None
    flags: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class GuardedCalibration:
    items: dict[str, ItemStatistics]
    person_fit: dict[str, PersonFit]  # learners with enough answers for the statistic
    excluded: frozenset[str]  # learners left out of the refit: their answers misfit the model


def calibrate_guarded(
    responses: list[Response],
    priors: dict[str, ItemDifficulty],
    learner_priors: dict[str, tuple[float, float]] | None = None,
) -> GuardedCalibration:
    """calibrate(), made hard for a few hostile accounts to move (see the module's docstring)."""
    first: dict[tuple[str, str], Response] = {}
    for response in responses:
        first.setdefault((response.item_id, response.learner), response)
    once = list(first.values())
    del first  # a key and an entry per answer: memory the fits below can use
    if not once:
        return GuardedCalibration({}, {}, frozenset())
    b, abilities = _fit(_Indexed(once), priors, learner_priors or {}, ITERATIONS)
    by_learner: dict[str, list[Response]] = defaultdict(list)
    for response in once:
        by_learner[response.learner].append(response)
    fits = {
        learner: fit
        for learner, answers in by_learner.items()
        if (
            fit := person_fit(
                abilities[learner][0],
                [Answered(b[a.item_id], a.floor, a.score, a.exposure, a.answered) for a in answers],
            )
        )
    }
    excluded = frozenset(learner for learner, fit in fits.items() if fit.flagged)
    kept = [
        Response(r.item_id, r.learner, r.score, r.floor, min(1.0, len(by_learner[r.learner]) / ESTABLISHED_ANSWERS))
        for r in once
        if r.learner not in excluded
    ]
    weighted, kept_abilities = _calibrate(kept, priors, learner_priors or {}, ITERATIONS)
    flagged = {item for item, statistics in weighted.items() if statistics.flags}
    if not flagged:
        return GuardedCalibration(weighted, fits, excluded)
    adverse = _most_adverse(kept, flagged, weighted, kept_abilities)
    confirming = calibrate([r for r in kept if (r.item_id, r.learner) not in adverse], priors, learner_priors)
    items = {
        item: replace(statistics, flags=[f for f in statistics.flags if f in confirming.get(item, statistics).flags])
        if item in flagged
        else statistics
        for item, statistics in weighted.items()
    }
    return GuardedCalibration(items, fits, excluded)


def _most_adverse(
    responses: list[Response],
    flagged: set[str],
    fitted: dict[str, ItemStatistics],
    abilities: dict[str, tuple[float, float]],
) -> set[tuple[str, str]]:
    """For each flagged item, the ROBUST_TO answers with the largest standardised residuals: the
    answers most surprising at the fitted difficulty, which both a misfit and a difficulty far
    from the label are made of."""
    chosen: set[tuple[str, str]] = set()
    by_item: dict[str, list[Response]] = defaultdict(list)
    for response in responses:
        if response.item_id in flagged:
            by_item[response.item_id].append(response)
    for item, answers in by_item.items():
        b = fitted[item].b

        def pull(answer: Response, b: float = b) -> float:
            p = min(max(p_correct(abilities[answer.learner][0], b, answer.floor), MIN_PROBABILITY), 1 - MIN_PROBABILITY)
            return (answer.score - p) / math.sqrt(p * (1.0 - p))

        ranked = sorted(answers, key=lambda answer: abs(pull(answer)), reverse=True)
        chosen |= {(answer.item_id, answer.learner) for answer in ranked[:ROBUST_TO]}
    return chosen


def calibrate(
    responses: list[Response],
    priors: dict[str, ItemDifficulty],
    learner_priors: dict[str, tuple[float, float]] | None = None,
    iterations: int = ITERATIONS,
) -> dict[str, ItemStatistics]:
    """Calibrated statistics for every item with at least one response. `priors` should hold the
    label priors (ItemDifficulty.from_label): they regularise new items and anchor the scale; an
    item without one gets the prior of a middle label."""
    return _calibrate(responses, priors, learner_priors or {}, iterations)[0]


def _calibrate(
    responses: list[Response],
    priors: dict[str, ItemDifficulty],
    learner_priors: dict[str, tuple[float, float]],
    iterations: int,
) -> tuple[dict[str, ItemStatistics], dict[str, tuple[float, float]]]:
    """calibrate(), and the learners' ability posteriors it ended with."""
    if not responses:
        return {}, {}
    answers = _Indexed(responses)
    b, abilities = _fit(answers, priors, learner_priors, iterations)
    prior_of = {item: priors.get(item) or ItemDifficulty.from_label(5.5) for item in answers.by_item}
    rest = _rest_abilities(answers, b, learner_priors)
    statistics = {
        item: _item_statistics(
            [responses[n] for n in found], abilities, [rest[n] for n in found], b[item], prior_of[item]
        )
        for item, found in answers.by_item.items()
    }
    return statistics, abilities


class _Indexed:
    """The responses as the EM passes over them, grouped once: by item, by learner, and by kind,
    a distinct (item, floor, score). Every answer of one kind has the same log-likelihood at each
    grid point, so a pass computes those once per kind (a few hundred) instead of once per answer,
    and each learner's log-posterior is a sum of the rows of their answers' kinds."""

    def __init__(self, responses: list[Response]) -> None:
        self.responses = responses
        self.by_item: dict[str, list[int]] = defaultdict(list)
        self.by_learner: dict[str, list[int]] = defaultdict(list)
        kind_numbers: dict[tuple[str, float, float], int] = {}
        self.kind: list[int] = []
        for number, response in enumerate(responses):
            self.by_item[response.item_id].append(number)
            self.by_learner[response.learner].append(number)
            key = (response.item_id, response.floor, response.score)
            self.kind.append(kind_numbers.setdefault(key, len(kind_numbers)))
        self.kinds = list(kind_numbers)

    def grid_log_likelihoods(self, b: dict[str, float]) -> list[tuple[float, ...]]:
        """Each kind's log-likelihood at every grid point, at the difficulties b."""
        return [
            tuple(log_likelihood(q, b[item], floor, score) for q in CALIBRATION_GRID)
            for item, floor, score in self.kinds
        ]


def _fit(
    answers: _Indexed,
    priors: dict[str, ItemDifficulty],
    learner_priors: dict[str, tuple[float, float]],
    iterations: int,
) -> tuple[dict[str, float], dict[str, tuple[float, float]]]:
    """EM: the items' difficulties and the learners' ability posteriors (mean, sd)."""
    prior_of = {item: priors.get(item) or ItemDifficulty.from_label(5.5) for item in answers.by_item}
    b = {item: prior_of[item].b for item in answers.by_item}
    abilities: dict[str, tuple[float, float]] = {}
    kinds_of = {learner: [answers.kind[n] for n in found] for learner, found in answers.by_learner.items()}
    for _ in range(iterations):
        table = answers.grid_log_likelihoods(b)
        abilities = {
            learner: _moments(_log_posterior(kinds, table, learner_priors.get(learner, POPULATION_PRIOR)))
            for learner, kinds in kinds_of.items()
        }
        at_nodes = _abilities_at_nodes(abilities)
        moved = {
            item: _map_difficulty(_Nodes([answers.responses[n] for n in found], at_nodes), b[item], prior_of[item])
            for item, found in answers.by_item.items()
        }
        shift = sum(moved[item] - prior_of[item].b for item in moved) / len(moved)
        moved = {item: value - shift for item, value in moved.items()}
        largest_move = max(abs(moved[item] - b[item]) for item in b)
        b = moved
        if largest_move < CONVERGED:
            break
    return b, abilities


@lru_cache(maxsize=1024)
def _prior_terms(prior: tuple[float, float]) -> tuple[float, ...]:
    mean, sd = prior
    return tuple(-0.5 * ((q - mean) / sd) ** 2 for q in CALIBRATION_GRID)


def _log_posterior(kinds: list[int], table: list[tuple[float, ...]], prior: tuple[float, float]) -> list[float]:
    """The log-posterior at each grid point of a learner whose answers are of these kinds: the
    prior's term plus the answers' log-likelihoods, summed in the answers' order."""
    likelihoods = map(sum, zip(*(table[kind] for kind in kinds), strict=True))
    return [term + value for term, value in zip(_prior_terms(prior), likelihoods, strict=True)]


def _rest_abilities(
    answers: _Indexed, b: dict[str, float], learner_priors: dict[str, tuple[float, float]]
) -> list[float]:
    """Each answer's learner ability without that answer: the posterior divided by its likelihood."""
    table = answers.grid_log_likelihoods(b)
    rest = [0.0] * len(answers.responses)
    for learner, found in answers.by_learner.items():
        logs = _log_posterior([answers.kind[n] for n in found], table, learner_priors.get(learner, POPULATION_PRIOR))
        for n in found:
            rest[n] = _mean(list(map(operator.sub, logs, table[answers.kind[n]])))[2]
    return rest


def _moments(logs: list[float]) -> tuple[float, float]:
    weights, total, theta = _mean(logs)
    variance = sum([w * (q - theta) ** 2 for w, q in zip(weights, CALIBRATION_GRID, strict=True)]) / total
    return theta, math.sqrt(variance)


def _mean(logs: list[float]) -> tuple[list[float], float, float]:
    """The grid's weights of a log-posterior (scaled to 1 at its top), their sum and its mean."""
    top = max(logs)
    weights = [math.exp(value - top) for value in logs]
    total = sum(weights)
    return weights, total, sum(map(operator.mul, weights, CALIBRATION_GRID)) / total


class _Nodes:
    """An item's answers spread over the Gauss-Hermite nodes of their learners' ability
    posteriors: one row per answer and node (ability at the node, the node's weight times the
    answer's, floor, score). The rows do not change while the item's Newton steps move b."""

    def __init__(self, answers: list[Response], at_nodes: dict[str, tuple[float, ...]]) -> None:
        self.thetas = [theta for answer in answers for theta in at_nodes[answer.learner]]
        self.weights = [weight for answer in answers for weight in _node_weights(answer.weight)]
        self.floors = [answer.floor for answer in answers for _ in HERMITE_NODES]
        self.scores = [answer.score for answer in answers for _ in HERMITE_NODES]

    def expected(self, b: float) -> tuple[float, float]:
        """(d/db expected log-likelihood, expected Fisher information) at b. The sigmoid and the
        clamp are irt's (sigmoid, MIN_PROBABILITY), written out: this loop is most of the fit's time."""
        gradient = information = 0.0
        exp, low, high = math.exp, MIN_PROBABILITY, 1.0 - MIN_PROBABILITY
        for theta, weight, floor, score in zip(self.thetas, self.weights, self.floors, self.scores, strict=True):
            x = theta - b
            if x >= 0:
                s = 1.0 / (1.0 + exp(-x))
            else:
                z = exp(x)
                s = z / (1.0 + z)
            p = floor + (1.0 - floor) * s
            p = low if p < low else high if p > high else p
            slope = (1.0 - floor) * s * (1.0 - s)
            gradient += weight * (-(score / p - (1.0 - score) / (1.0 - p)) * slope)
            information += weight * (slope * slope / (p * (1.0 - p)))
        return gradient, information


def _abilities_at_nodes(abilities: dict[str, tuple[float, float]]) -> dict[str, tuple[float, ...]]:
    """Each learner's ability at the Gauss-Hermite nodes of their posterior."""
    return {learner: tuple(theta + sd * node for node in HERMITE_NODES) for learner, (theta, sd) in abilities.items()}


@lru_cache(maxsize=1024)
def _node_weights(weight: float) -> tuple[float, ...]:
    return tuple(weight * node_weight for node_weight in HERMITE_WEIGHTS)


def _map_difficulty(nodes: _Nodes, b: float, prior: ItemDifficulty) -> float:
    for _ in range(NEWTON_STEPS):
        gradient, information = nodes.expected(b)
        gradient -= prior.precision * (b - prior.b)
        b += max(-1.0, min(1.0, gradient / (information + prior.precision)))
    return b


def _statistics(
    answers: list[Response],
    abilities: dict[str, tuple[float, float]],
    rest: dict[Response, float],
    b: float,
    prior: ItemDifficulty,
) -> ItemStatistics:
    """An item's statistics at the learners' abilities and each answer's rest ability."""
    return _item_statistics(answers, abilities, [rest[answer] for answer in answers], b, prior)


def _item_statistics(
    answers: list[Response],
    abilities: dict[str, tuple[float, float]],
    rest_thetas: list[float],
    b: float,
    prior: ItemDifficulty,
) -> ItemStatistics:
    at_nodes = _abilities_at_nodes({answer.learner: abilities[answer.learner] for answer in answers})
    _, information = _Nodes(answers, at_nodes).expected(b)
    se = 1.0 / math.sqrt(information + prior.precision)
    scores = [answer.score for answer in answers]
    thetas = [abilities[answer.learner][0] for answer in answers]
    expected = [p_correct(theta, b, answer.floor) for theta, answer in zip(thetas, answers, strict=True)]
    weights = [answer.weight for answer in answers]
    variances = [max(p * (1.0 - p), MIN_PROBABILITY) for p in expected]
    squared = [(score - p) ** 2 for score, p in zip(scores, expected, strict=True)]
    infit = sum(w * r for w, r in zip(weights, squared, strict=True)) / sum(
        w * v for w, v in zip(weights, variances, strict=True)
    )
    outfit = sum(w * r / v for w, r, v in zip(weights, squared, variances, strict=True)) / sum(weights)
    unproductive = infit > INFIT_MAX or outfit > OUTFIT_MAX or _slope_z(answers, rest_thetas, b) < SLOPE_Z_MIN
    flags = []
    if sum(weights) >= MIN_FIT_ANSWERS and unproductive:
        flags.append("misfit")
    if abs(b - prior.b) > LABEL_FAR and se < LABEL_FAR_SE:
        flags.append("label_far")
    return ItemStatistics(
        b=b,
        se=se,
        answers=len(answers),
        facility=sum(scores) / len(scores),
        discrimination=_correlation(scores, rest_thetas),
        infit=infit,
        outfit=outfit,
        flags=flags,
    )


def _slope_z(answers: list[Response], thetas: list[float], b: float) -> float:
    """Score test of the Rasch slope (1) against a flatter or steeper one: the residuals'
    covariance with ability, in standard errors. Negative: the item separates learners less than
    the model expects; near zero: it fits."""
    score = variance = 0.0
    for answer, theta in zip(answers, thetas, strict=True):
        p = p_correct(theta, b, answer.floor)
        slope = (1.0 - answer.floor) * sigmoid(theta - b) * (1.0 - sigmoid(theta - b))
        weight = slope / max(p * (1.0 - p), MIN_PROBABILITY) * (theta - b)  # d log L / d(slope) per residual
        score += answer.weight * weight * (answer.score - p)
        variance += answer.weight * weight * weight * p * (1.0 - p)
    return score / math.sqrt(variance) if variance > 0 else 0.0


def _correlation(xs: list[float], ys: list[float]) -> float | None:
    """Pearson's r (the point-biserial for 0/1 scores); None when either side does not vary."""
    if len(xs) < 3:
        return None
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    covariance = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    spread = math.sqrt(sum((x - mean_x) ** 2 for x in xs) * sum((y - mean_y) ** 2 for y in ys))
    return covariance / spread if spread > 0 else None
