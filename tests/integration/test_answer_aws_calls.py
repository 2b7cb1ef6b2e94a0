"""What one request costs in AWS calls, as bench/aws_calls.py counts them through the local HTTP
API: every answer after a session's first makes at most 6, whatever its type (an explanation
cache miss included), and none of them reads the question twice."""

import importlib.util

from slea_local import REPO_ROOT


def _bench():
    spec = importlib.util.spec_from_file_location("aws_calls", REPO_ROOT / "bench" / "aws_calls.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_answer_after_the_first_makes_at_most_six_aws_calls():
    bench = _bench()
    results = bench.measure()
    answers = {kind: row for kind, row in results.items() if kind.startswith("answer ") and "first" not in kind}
    assert set(answers) == {"answer multiple_choice", "answer true_false", "answer short_answer"}
    for kind, row in answers.items():
        assert row["max_calls"] <= bench.ANSWER_TARGET, (kind, row)
        # One session Query and one BatchGetItem: the question is not read again by id.
        assert row["operations"].get("GetItem", 0) == 0, (kind, row)
        assert row["operations"]["Query"] == row["requests"], (kind, row)
        assert row["operations"]["TransactWriteItems"] == row["requests"], (kind, row)
    first = results["answer (first of the session)"]
    assert first["max_calls"] <= bench.ANSWER_TARGET + 2  # the id secret and the learner's profile, once
