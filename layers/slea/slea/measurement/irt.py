"""The Rasch model with a guessing floor.

P(correct | theta, b) = c + (1 - c) * sigmoid(theta - b), where the floor c is what a blind guess
scores: 1/k for a choice among k options, 1/2 for true/false, 0 for a short answer. Without the
floor, lucky guesses would inflate the ability of weak learners. Discrimination is fixed at 1
(Rasch): discriminations need many answers per item to estimate, which new items never have.

An item's difficulty is itself only known to within an error (a new item's is its label's guess,
off by about 0.7 logits; an item many learners answered is known closely). A learner's answer is
evidence about their ability only as far as b is known, so the probability the learner model uses
is the expectation over b ~ N(b, b_se^2). The logistic-normal integral has no closed form; the
probit approximation (MacKay 1992: E[sigmoid(x)] for x ~ N(m, s^2) is about
sigmoid(m / sqrt(1 + pi s^2 / 8)), within 0.02 everywhere) makes it a flatter curve: an item whose
difficulty is uncertain moves the ability less and leaves a wider, honest posterior.
"""

import math

MIN_PROBABILITY = 1e-9  # keeps logarithms finite at the ends of the grid


def sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def guess_floor(item_type: str, choice_count: int | None = None) -> float:
    if item_type == "multiple_choice":
        return 1.0 / choice_count if choice_count and choice_count > 1 else 0.25
    if item_type == "true_false":
        return 0.5
    return 0.0


def uncertainty_slope(b_se: float) -> float:
    """How much an uncertain difficulty flattens the success curve: E over b ~ N(b, b_se^2) of
    sigmoid(theta - b) is about sigmoid((theta - b) * uncertainty_slope(b_se)) (probit approximation)."""
    return 1.0 / math.sqrt(1.0 + math.pi * b_se * b_se / 8.0)


def p_correct(theta: float, b: float, floor: float = 0.0, b_se: float = 0.0) -> float:
    """P(correct); with `b_se` > 0 averaged over the difficulty's own uncertainty."""
    slope = uncertainty_slope(b_se) if b_se > 0.0 else 1.0
    return floor + (1.0 - floor) * sigmoid((theta - b) * slope)


def information(theta: float, b: float, floor: float = 0.0) -> float:
    """Fisher information of the item at theta: P'^2 / (P (1 - P)); P(1-P) when there is no floor."""
    s = sigmoid(theta - b)
    p = floor + (1.0 - floor) * s
    slope = (1.0 - floor) * s * (1.0 - s)
    return slope * slope / max(p * (1.0 - p), MIN_PROBABILITY)


def log_likelihood(theta: float, b: float, floor: float, score: float, b_se: float = 0.0) -> float:
    """log of P^r (1-P)^(1-r): a graded score r in [0, 1] counts as partial credit (as the Duolingo
    English Test feeds graded scores into its Rasch likelihood). P is averaged over b's uncertainty
    `b_se` (0: b taken as known, as calibration's own refit does)."""
    p = min(max(p_correct(theta, b, floor, b_se), MIN_PROBABILITY), 1.0 - MIN_PROBABILITY)
    return score * math.log(p) + (1.0 - score) * math.log(1.0 - p)


def most_informative_difficulty(theta: float, floor: float = 0.0) -> float:
    """The b whose item tells most about a learner of ability theta. Setting the derivative of the
    information P'^2 / (P (1 - P)) to zero with P = c + (1 - c) s, s = sigmoid(theta - b), gives
    2 s^2 - s - c = 0 (s = 1/2 without a floor), so s = (1 + sqrt(1 + 8c)) / 4 and b lies below
    theta by ln((1 + sqrt(1 + 8c)) / 2) (Lord 1980's formula for the three-parameter model):
    0.31 logits for four options, 0.48 for true/false, where a learner then succeeds 68% and 81%
    of the time. A guess makes an item informative only where the learner mostly knows it."""
    return theta - math.log((1.0 + math.sqrt(1.0 + 8.0 * floor)) / 2.0)


def aimed_difficulty(theta: float, success_rate: float, floor: float = 0.0) -> float:
    """The b a round aims an item at: the success-rate target, but never harder than the most
    informative difficulty. Past that point a harder item costs on both counts, the learner
    succeeds less often and the answer says less about them (a true/false item a learner should
    get right 70% of the time sits 0.89 logits above the informative b and carries 24% less
    information); below it the deployment's success rate trades information for success as set."""
    return min(target_difficulty(theta, success_rate, floor), most_informative_difficulty(theta, floor))


def target_difficulty(theta: float, success_rate: float, floor: float = 0.0) -> float:
    """The b at which a learner of ability theta succeeds with probability `success_rate`.
    A rate at or below the guessing floor cannot be targeted; it is raised just above it."""
    share = (success_rate - floor) / (1.0 - floor)
    share = min(max(share, 0.05), 0.95)
    return theta - math.log(share / (1.0 - share))


# Gauss-Hermite nodes and weights (probabilists', 7 points: exact for polynomials to degree 13),
# for averaging over a normal posterior of the ability.
HERMITE_NODES = (-3.7504397177, -2.3667594107, -1.1544053948, 0.0, 1.1544053948, 2.3667594107, 3.7504397177)
HERMITE_WEIGHTS = (0.0005482689, 0.0307571240, 0.2401231786, 0.4571428571, 0.2401231786, 0.0307571240, 0.0005482689)


def aimed_information(success_rate: float, floor: float = 0.0, theta_se: float = 0.0) -> float:
    """What one item of guessing floor `floor`, written at the difficulty a round aims it at
    (aimed_difficulty for the estimate), tells about the learner: its Fisher information averaged
    over the learner's ability as the posterior knows it, N(estimate, theta_se^2) (with theta_se 0,
    at the estimate). Aimed at the estimate, it does not depend on the estimate itself."""
    b = aimed_difficulty(0.0, success_rate, floor)
    if theta_se <= 0.0:
        return information(0.0, b, floor)
    return sum(
        weight * information(node * theta_se, b, floor)
        for node, weight in zip(HERMITE_NODES, HERMITE_WEIGHTS, strict=True)
    )
