"""A reviewer's accept sent twice (a second click, a retry, a second tab) is applied once: the
repeat is refused (409 ALREADY_REVIEWED) and neither counts nor records it again, so the counts
the review page reads stay true."""

from tests.integration.test_review_api import REVIEWER, audit, stats
from tests.integration.test_review_queue_views import seed_queue


def test_a_second_accept_of_one_answer_is_refused_and_counts_nothing(http, step_functions):
    seed_queue(step_functions.runtime.cloud, [{"kind": "attempt"}, {"kind": "attempt"}])
    before = stats(http)
    status, _, body = http("POST", "/review/attempts/ra-000", {"action": "accept"}, REVIEWER)
    assert (status, body["action"], body["score"]) == (200, "accept", 40), body
    once = stats(http)
    assert (once["reviewed"], once["accepted"], once["open"]) == (
        before["reviewed"] + 1,
        before["accepted"] + 1,
        before["open"] - 1,
    )
    status, _, error = http("POST", "/review/attempts/ra-000", {"action": "accept"}, REVIEWER)
    assert (status, error["error_code"]) == (409, "ALREADY_REVIEWED"), error
    assert stats(http) == once
    assert [record["action"] for record in audit(http, "ra-000")] == ["accept"]
