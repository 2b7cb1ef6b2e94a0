"""A learner's agent cannot flood the MCP endpoint: every tool call counts against the caller's
own limit (burst 20, then one a second by default), a refusal names the limit and when to retry,
and another learner is unaffected. Before this limit, 100 calls in 0.75 s all passed."""

from tests.integration.test_mcp import ALICE, in_memory_call

BOB = "7c9e6679-7425-40de-944b-e07fc1f90ae7"


def test_a_burst_of_tool_calls_is_refused_past_the_limit_and_others_are_unaffected(step_functions, standing_clock):
    """The functions' clock stands still: no call comes back into the bucket during the burst,
    however long the machine takes over it."""
    runtime = step_functions.runtime
    # Half the calls with the subject in capitals: the same user, the same bucket.
    outcomes = [
        in_memory_call(runtime, "get_user_profile", {"user_id": ALICE}, user=ALICE.upper() if odd else ALICE)
        for odd in [False, True] * 20
    ]
    refused = [data for is_error, data in outcomes if is_error]
    assert [is_error for is_error, _ in outcomes] == [False] * 20 + [True] * 20, [data for _, data in outcomes]
    assert all(error["error_code"] == "RATE_LIMITED" for error in refused)
    assert "retry in" in refused[0]["error"]
    is_error, profile = in_memory_call(runtime, "get_user_profile", {"user_id": BOB}, user=BOB)
    assert not is_error, profile
