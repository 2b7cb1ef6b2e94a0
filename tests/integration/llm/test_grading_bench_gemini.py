"""`bench/grading_agreement.py --provider gemini` measures the Gemini path as deployed (the model's
grade checked by the same calibration), calls the model only to grade, and caches its grades so
that a rerun costs nothing. Against the local stub: no test reaches the network."""

import json

from bench import grading_agreement
from tests.integration.llm.gemini_stub import model_reply

REFERENCE = "A mutex lets only one thread at a time enter a critical section, so shared data is not corrupted."


def corpus(tmp_path):
    rows = [
        {
            "question_id": "q1",
            "question": "What is a mutex for?",
            "reference_answer": REFERENCE,
            "answer": a,
            "score": s,
        }
        for a, s in (
            ("Only one thread can hold it, so the shared data is never changed by two threads at once.", 1.0),
            ("It makes the program faster by running threads in parallel.", 0.0),
        )
    ]
    path = tmp_path / "mutex" / "test.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    return path


def grade(key_concepts, correctness, clarity):
    reply = {"key_concepts": key_concepts, "correctness": correctness, "clarity": clarity}
    return model_reply({**reply, "confidence": 0.9, "reasoning": "judged against the reference"})


def test_the_gemini_path_grades_each_answer_once_and_a_rerun_reads_the_cache(gemini, tmp_path):
    path, cache = corpus(tmp_path), tmp_path / "cache.jsonl"
    gemini.script(grade(38, 38, 18), grade(5, 5, 10))
    report = grading_agreement.measure(datasets=[path], provider="gemini", cache=cache)
    figures = report["mutex/test"]
    assert report["provider"] == "gemini"
    assert figures["tool6_correct_share"] == 0.5  # the model's verdicts: 94 (correct) and 20
    assert figures["verdict_accuracy"] == 1.0
    assert len(gemini.requests) == 2  # two grades, no explanation call
    assert len(cache.read_text(encoding="utf-8").splitlines()) == 2
    again = grading_agreement.measure(datasets=[path], provider="gemini", cache=cache)
    assert len(gemini.requests) == 2  # nothing new reached the model
    assert again["mutex/test"]["verdict_accuracy"] == 1.0


def test_the_report_has_a_risk_coverage_curve_and_the_review_load(tmp_path):
    report = grading_agreement.measure(datasets=[corpus(tmp_path)])
    figures = report["mutex/test"]
    shares = [share for share, _ in figures["risk_coverage"]]
    assert shares == grading_agreement.COVERAGE_STEPS
    assert all(0.0 <= accuracy <= 1.0 for _, accuracy in figures["risk_coverage"])
    # From the counts: `finalised_coverage` is rounded to three decimals, and the load computed
    # from it differed by one whenever that rounding and the load's own went opposite ways.
    assert figures["reviews_per_1000_answers"] == round(1000 * (1 - figures["finalised"] / figures["answers"]))
    assert figures["finalised_coverage"] == round(figures["finalised"] / figures["answers"], 3)
    table = grading_agreement.markdown(report)
    assert "| mutex/test | 2 |" in table
    assert "reviews per 1,000" in table
