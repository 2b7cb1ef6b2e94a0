"""The measurement core (slea.measurement): scale, Rasch model, EAP posterior, online item step,
selection and calibration, checked against hand computations and simulated data."""

import math
import random

import pytest

from slea.measurement import calibration, irt, items, learner, scale, selection


def test_label_mapping_is_half_a_logit_per_step_and_round_trips() -> None:
    assert scale.label_to_b(5.5) == 0.0
    assert scale.label_to_b(10) - scale.label_to_b(9) == pytest.approx(0.5)
    assert [scale.b_to_label(scale.label_to_b(label)) for label in range(1, 11)] == list(range(1, 11))
    assert scale.b_to_label(-9) == 1
    assert scale.b_to_label(9) == 10


@pytest.mark.parametrize(
    ("theta", "word"), [(-3, "novice"), (-1.0, "beginner"), (0.0, "intermediate"), (1.0, "advanced"), (2, "expert")]
)
def test_level_words(theta: float, word: str) -> None:
    assert scale.level_of(theta) == word


def test_answers_to_precision_adds_information_per_answer() -> None:
    assert scale.answers_to_precision(0.25) == 0
    # 1/0.3^2 - 1/0.5^2 = 11.11 - 4 = 7.11 of information at 0.2 per answer: 36 answers
    assert scale.answers_to_precision(0.5) == 36


def test_guessing_floor_and_target_difficulty() -> None:
    assert irt.guess_floor("multiple_choice", 5) == pytest.approx(0.2)
    assert irt.guess_floor("true_false") == 0.5
    assert irt.guess_floor("short_answer") == 0.0
    for floor in (0.0, 0.25, 0.5):
        b = irt.target_difficulty(0.4, 0.7, floor)
        assert irt.p_correct(0.4, b, floor) == pytest.approx(0.7)
    assert irt.p_correct(-10, 0, 0.25) == pytest.approx(0.25, abs=1e-4)


def test_information_peaks_at_b_without_a_floor_and_is_lower_with_one() -> None:
    assert irt.information(1.0, 1.0) == pytest.approx(0.25)
    assert irt.information(1.0, 1.0) > irt.information(2.0, 1.0)
    assert irt.information(1.0, 1.0, 0.25) < irt.information(1.0, 1.0)


def _hand_eap(answers: list[tuple[float, float, float]], mean: float, sd: float) -> tuple[float, float]:
    weights = []
    for q in learner.GRID:
        w = math.exp(-0.5 * ((q - mean) / sd) ** 2)
        for b, floor, score in answers:
            p = floor + (1 - floor) / (1 + math.exp(-(q - b)))
            w *= p**score * (1 - p) ** (1 - score)
        weights.append(w)
    total = sum(weights)
    theta = sum(w * q for w, q in zip(weights, learner.GRID, strict=True)) / total
    se = math.sqrt(sum(w * (q - theta) ** 2 for w, q in zip(weights, learner.GRID, strict=True)) / total)
    return theta, se


def test_eap_equals_a_hand_computation_with_floor_and_partial_credit() -> None:
    answers = [(0.5, 0.25, 1.0), (-0.5, 0.5, 0.0), (1.0, 0.0, 0.6)]
    posterior = learner.Posterior.prior(0.2, 1.2)
    for answer in answers:
        posterior = posterior.updated(*answer)
    theta, se = _hand_eap(answers, 0.2, 1.2)
    estimate = posterior.estimate()
    assert estimate.theta == pytest.approx(theta, abs=1e-9)
    assert estimate.se == pytest.approx(se, abs=1e-9)


def test_all_right_and_all_wrong_patterns_stay_finite() -> None:
    right = wrong = learner.Posterior.prior(0, 1)
    for _ in range(30):
        right, wrong = right.updated(0, 0, 1.0), wrong.updated(0, 0, 0.0)
    assert 1.0 < right.estimate().theta < 5
    assert -5 < wrong.estimate().theta < -1.0


def test_removed_undoes_updated_and_storage_round_trips() -> None:
    before = learner.Posterior.prior(0, 1).updated(0.3, 0.25, 1.0)
    after = before.updated(1.2, 0.0, 0.0).removed(1.2, 0.0, 0.0)
    assert after.estimate().theta == pytest.approx(before.estimate().theta, abs=1e-9)
    stored = after.to_stored()
    assert len(stored) == learner.GRID_POINTS
    assert learner.Posterior.from_stored(stored).estimate().theta == pytest.approx(after.estimate().theta, abs=1e-3)
    assert learner.Posterior.from_stored(None, (1.0, 0.5)).estimate().theta == pytest.approx(1.0, abs=1e-3)


def test_score_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError, match="score"):
        learner.Posterior.prior(0, 1).updated(0, 0, 1.5)


def test_prior_from_profile() -> None:
    assert learner.prior_from_profile("beginner", 0, 0) == (-1.0, learner.PRIOR_SD)
    assert learner.prior_from_profile("advanced", 12, 90)[0] == pytest.approx(1.75)
    assert learner.prior_from_profile("intermediate", 1, 40)[0] == pytest.approx(-0.25)


def test_online_step_moves_b_against_the_surprise_and_grows_precision() -> None:
    item = items.ItemDifficulty.from_label(6)
    down, info = items.online_step(item, theta=0.0, floor=0.25, score=1.0)
    up, _ = items.online_step(item, theta=0.0, floor=0.25, score=0.0)
    assert down < 0 < up
    assert info > 0
    known = items.ItemDifficulty(b=item.b, precision=200.0)
    assert abs(items.online_step(known, 0.0, 0.25, 1.0)[0]) < abs(down) / 10
    vague, _ = items.online_step(item, theta=0.0, floor=0.25, score=1.0, theta_se=1.5)
    assert abs(vague) < abs(down)


def test_choose_items_prefers_the_target_randomly_among_the_best_and_caps_exposure() -> None:
    candidates = [selection.Candidate(f"item{k}", b=-3 + 0.2 * k) for k in range(30)]
    candidates.append(selection.Candidate("overexposed", b=irt.target_difficulty(0, 0.7), exposure_rate=0.9))
    picked_first = set()
    for seed in range(40):
        chosen = selection.choose_items(candidates, theta=0.0, success_rate=0.7, count=3, rng=random.Random(seed))
        assert len({c.item_id for c in chosen}) == 3
        assert "overexposed" not in {c.item_id for c in chosen}
        target = irt.target_difficulty(0, 0.7)
        assert all(abs(c.b - target) <= 0.2 * 7 for c in chosen)
        picked_first.add(chosen[0].item_id)
    assert len(picked_first) >= 4  # randomesque: not everyone gets the same first item


Simulated = tuple[list[calibration.Response], dict[str, float], dict[str, int]]


def _simulated(seed: int, misfit_item: str | None = None) -> Simulated:
    rng = random.Random(seed)
    labels = {f"item{k}": rng.randint(1, 10) for k in range(40)}
    true_b = {item: scale.label_to_b(label) + rng.gauss(0, 0.7) for item, label in labels.items()}
    responses = []
    for learner_number in range(300):
        theta = rng.gauss(0, 1)
        shown = rng.sample(sorted(labels), 12)
        if misfit_item and misfit_item not in shown:
            shown[0] = misfit_item
        for item in shown:
            p = 0.5 if item == misfit_item else irt.p_correct(theta, true_b[item], 0.0)
            responses.append(calibration.Response(item, f"learner{learner_number}", float(rng.random() < p)))
    return responses, true_b, labels


def test_calibration_recovers_difficulties_better_than_the_labels() -> None:
    responses, true_b, labels = _simulated(7)
    priors = {item: items.ItemDifficulty.from_label(label) for item, label in labels.items()}
    calibrated = calibration.calibrate(responses, priors)

    def rmse(estimate: dict[str, float]) -> float:
        return math.sqrt(sum((estimate[item] - true_b[item]) ** 2 for item in true_b) / len(true_b))

    label_error = rmse({item: prior.b for item, prior in priors.items()})
    calibrated_error = rmse({item: stats.b for item, stats in calibrated.items()})
    assert calibrated_error < 0.6 * label_error
    assert all(0 < stats.se < 0.7 and stats.answers > 0 for stats in calibrated.values())
    assert all(stats.discrimination is None or stats.discrimination > -0.2 for stats in calibrated.values())


def test_an_item_answered_at_random_is_flagged_misfit() -> None:
    responses, _, labels = _simulated(11, misfit_item="item3")
    priors = {item: items.ItemDifficulty.from_label(label) for item, label in labels.items()}
    calibrated = calibration.calibrate(responses, priors)
    assert "misfit" in calibrated["item3"].flags
    assert sum("misfit" in stats.flags for stats in calibrated.values()) <= 2


def test_calibrating_nothing_returns_nothing() -> None:
    assert calibration.calibrate([], {}) == {}


# ---------------------------------------------------------------- uncertain difficulty, aimed targets
def _averaged_over_b(theta: float, b: float, floor: float, b_se: float) -> float:
    """E over b' ~ N(b, b_se^2) of P(correct), by a fine midpoint rule over +-8 SD."""
    steps = 4000
    width = 16.0 * b_se / steps
    total = weight = 0.0
    for k in range(steps):
        z = -8.0 + (k + 0.5) * 16.0 / steps
        density = math.exp(-0.5 * z * z)
        total += density * irt.p_correct(theta, b + z * b_se, floor)
        weight += density
    assert width > 0
    return total / weight


@pytest.mark.parametrize("b_se", [0.3, 0.7, 1.2])
@pytest.mark.parametrize("floor", [0.0, 0.25, 0.5])
def test_an_uncertain_difficulty_averages_the_success_curve_over_b(b_se: float, floor: float) -> None:
    for distance in (-3.0, -1.0, -0.3, 0.0, 0.5, 1.5, 4.0):
        exact = _averaged_over_b(distance, 0.0, floor, b_se)
        assert irt.p_correct(distance, 0.0, floor, b_se) == pytest.approx(exact, abs=0.02)
    # and it is flatter than the curve of a known b: less certain on either side
    assert irt.p_correct(2.0, 0.0, floor, b_se) < irt.p_correct(2.0, 0.0, floor)
    assert irt.p_correct(-2.0, 0.0, floor, b_se) > irt.p_correct(-2.0, 0.0, floor)
    assert irt.p_correct(1.0, 0.0, floor, 0.0) == irt.p_correct(1.0, 0.0, floor)


def test_an_item_of_uncertain_difficulty_moves_the_ability_less_and_leaves_the_range_wider() -> None:
    prior = learner.Posterior.prior(0.0, 0.71)
    answers = [(0.3, 0.25, 1.0), (-0.2, 0.5, 1.0), (0.6, 0.25, 0.0), (0.1, 0.25, 1.0), (-0.5, 0.5, 1.0)] * 4
    known, uncertain = prior, prior
    for b, floor, score in answers:
        known = known.updated(b, floor, score)
        uncertain = uncertain.updated(b, floor, score, 0.7)
    start, sure, unsure = prior.estimate(), known.estimate(), uncertain.estimate()
    assert unsure.se > sure.se + 0.01
    assert 0 < unsure.theta - start.theta < sure.theta - start.theta
    # b_se 0 is the known-b update exactly
    assert prior.updated(0.3, 0.25, 1.0, 0.0).log_weights == prior.updated(0.3, 0.25, 1.0).log_weights


def test_removed_with_the_same_uncertainty_undoes_updated_and_a_negative_one_is_refused() -> None:
    prior = learner.Posterior.prior(0.2, 0.71)
    back = prior.updated(0.4, 0.25, 1.0, 0.7).removed(0.4, 0.25, 1.0, 0.7).estimate()
    assert back.theta == pytest.approx(prior.estimate().theta, abs=1e-6)
    assert back.se == pytest.approx(prior.estimate().se, abs=1e-6)
    with pytest.raises(ValueError, match="b_se"):
        prior.updated(0.0, 0.0, 1.0, -0.1)


@pytest.mark.parametrize("floor", [0.0, 0.2, 0.25, 1 / 3, 0.5])
def test_the_most_informative_difficulty_maximises_the_items_information(floor: float) -> None:
    theta = 0.4
    grid = [theta - 3.0 + k * 0.001 for k in range(6001)]
    best = max(grid, key=lambda b: irt.information(theta, b, floor))
    assert irt.most_informative_difficulty(theta, floor) == pytest.approx(best, abs=0.002)
    assert irt.most_informative_difficulty(theta, floor) <= theta  # a guess pushes it below theta


def test_a_round_aims_at_its_success_rate_but_never_past_the_most_informative_difficulty() -> None:
    theta = -0.3
    # four options at 70%: the rate's b is easier than the informative one, the rate decides
    assert irt.aimed_difficulty(theta, 0.7, 0.25) == pytest.approx(irt.target_difficulty(theta, 0.7, 0.25))
    # true/false at 70% would be harder than informative: both information and success are lost there
    tf_rate = irt.target_difficulty(theta, 0.7, 0.5)
    tf_aim = irt.aimed_difficulty(theta, 0.7, 0.5)
    assert tf_aim == pytest.approx(irt.most_informative_difficulty(theta, 0.5))
    assert irt.information(theta, tf_aim, 0.5) > 1.2 * irt.information(theta, tf_rate, 0.5)
    assert irt.p_correct(theta, tf_aim, 0.5) > irt.p_correct(theta, tf_rate, 0.5)
    # placement (50%) aims every type at its most informative b; short answers at theta
    for floor in (0.0, 0.25, 0.5):
        assert irt.aimed_difficulty(theta, 0.5, floor) == pytest.approx(irt.most_informative_difficulty(theta, floor))
    assert irt.aimed_difficulty(theta, 0.5, 0.0) == pytest.approx(theta)


def test_choose_items_prefers_true_false_items_at_their_informative_difficulty() -> None:
    theta = 0.2
    old_target = irt.target_difficulty(theta, 0.7, 0.5)  # where true/false items were aimed before
    candidates = [
        selection.Candidate("at_old_target", b=old_target, floor=0.5),
        selection.Candidate("informative", b=irt.most_informative_difficulty(theta, 0.5), floor=0.5),
    ]
    chosen = selection.choose_items(candidates, theta, 0.7, 1, rng=random.Random(1), top=1)
    assert [c.item_id for c in chosen] == ["informative"]
