"""How often a learner's graded answer comes with a reference link, English against Korean: the
demo's English and Korean learners each answer rounds through the HTTP API (local AWS, offline
provider, demo seed) until `--answers` answers are graded, and the answers whose grading carries
at least one `reference_links` entry are counted (with how many of those are English sources
offered to the Korean learner, titled "영문 자료: ...").

    PYTHONPATH=layers/slea:. .venv/bin/python bench/reference_rates.py [--answers 20] [--rounds-of 5]
"""

import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from bench.command import print_measure  # noqa: E402

LEARNERS = {
    "en": "550e8400-e29b-41d4-a716-446655440000",  # the demo's backend engineer, profile language en
    "ko": "576f24fe-bc2d-4d30-aed1-51a1dd76449c",  # profile language ko
}


def _answer_to(question: dict[str, Any]) -> str:
    if question.get("choices"):
        return str(question["choices"][0]).split(")")[0]
    if question.get("question_type") == "true_false":
        return "True"
    return "I am not sure what this is, but I think it is about how the system is built."


def measure(answers: int = 20, rounds_of: int = 5) -> dict[str, Any]:
    from slea_local.demo_aws import seeded_local_aws
    from slea_local.executions import LocalStepFunctions
    from slea_local.http import HttpApiAdapter, call

    results: dict[str, Any] = {}
    with seeded_local_aws() as aws:
        from slea.security import rate_limits

        # Rounds at machine speed: the per-user limits out of the way (as bench/api_ability.py does).
        rate_limits.limit = lambda action: rate_limits.Limit(burst=10_000, interval_seconds=0.001)
        api = HttpApiAdapter(aws.runtime)
        with LocalStepFunctions(aws.runtime) as step_functions:
            for language, user in LEARNERS.items():
                graded = with_links = english = 0
                round_number = 3  # two rounds a session: a new session after each second round
                while graded < answers:
                    if round_number > 2:
                        _, _, created = call(api, "POST", "/sessions", None, user)
                        session_id, round_number = created["session_id"], 1
                    request = {"round": round_number, "category": "technical", "count": rounds_of}
                    round_number += 1
                    status, _, started = call(api, "POST", f"/sessions/{session_id}/rounds", request, user)
                    if status >= 400:
                        print(language, status, started, file=sys.stderr)
                        break
                    execution = step_functions.watch(started["execution_arn"])
                    for question in execution.output.get("questions") or []:
                        if graded >= answers:
                            break
                        body = {"question_id": question["question_id"], "user_answer": _answer_to(question)}
                        status, _, result = call(api, "POST", f"/sessions/{session_id}/answers", body, user)
                        if status >= 400:
                            continue
                        graded += 1
                        links = result.get("reference_links") or []
                        with_links += bool(links)
                        english += any(str(link.get("title", "")).startswith("영문 자료") for link in links)
                results[language] = {
                    "answers": graded,
                    "with_reference": with_links,
                    "english_sources_offered": english,
                }
    return results


def main() -> None:
    print_measure(measure, __doc__, ("--answers", 20), ("--rounds-of", 5))


if __name__ == "__main__":
    main()
