"""The refit's file formats (slea.dal.attempt_export), without AWS: an export's DYNAMODB_JSON
lines decoded to the answers' calibration fields only, the compact file written and read back,
and which keys of an export are data files."""

import copy
import gzip
import json
import tracemalloc

from slea.dal import attempt_export
from slea.dal.calibration_records import calibration_answer


def _line(item):
    return json.dumps({"Item": item}).encode() + b"\n"


EXPORTED = [
    _line(
        {
            "session_id": {"S": "s1"},
            "attempt_key": {"S": "q1#1"},
            "question_id": {"S": "copy-1"},
            "item_id": {"S": "bank-1"},
            "user_id": {"S": "u1"},
            "score": {"N": "85.5"},
            "is_correct": {"BOOL": True},
            "guess_floor": {"N": "0.25"},
            "question_type": {"S": "multiple_choice"},
            "graded_at": {"S": "2026-01-01T00:00:00Z"},
            "user_answer": {"S": "never read by the refit"},
            "feedback": {"M": {"explanation": {"S": "nor this"}}},
            "question_choices": {"L": [{"S": "A) a"}, {"S": "B) b"}]},
        }
    ),
    _line(
        {
            "session_id": {"S": "s2"},
            "attempt_key": {"S": "q2#skipped"},
            "question_id": {"S": "bank-2"},
            "user_id": {"S": "u2"},
            "score": {"N": "0"},
            "is_correct": {"BOOL": False},
            "skipped": {"BOOL": True},
            "graded_at": {"S": "2026-01-01T00:01:00Z"},
        }
    ),
]


def test_an_exported_line_keeps_only_the_calibration_fields_as_plain_values():
    first, second = attempt_export.attempts_of(EXPORTED)
    assert first == {
        "question_id": "copy-1",
        "item_id": "bank-1",
        "user_id": "u1",
        "score": 85.5,
        "is_correct": True,
        "guess_floor": 0.25,
        "question_type": "multiple_choice",
        "graded_at": "2026-01-01T00:00:00Z",
    }
    assert second["skipped"] is True
    assert second["score"] == 0
    assert isinstance(second["score"], int)
    assert set(first) <= set(attempt_export.CALIBRATION_FIELDS)


def test_a_compact_file_reads_back_what_was_written_and_is_the_same_bytes_every_time():
    answers = list(attempt_export.attempts_of(EXPORTED))
    body, count = attempt_export.compact(answers)
    assert count == 2
    assert list(attempt_export.reduced_answers(gzip.decompress(body).splitlines())) == answers
    assert attempt_export.compact(answers)[0] == body  # a retried child writes the same file
    assert attempt_export.compact([]) == (attempt_export.compact([])[0], 0)


def test_the_answers_read_hold_one_copy_of_each_repeated_id_across_files():
    """Millions of answers repeat a few thousand ids: read, they share one string each (memory)."""
    answers = list(attempt_export.attempts_of(EXPORTED))
    lines = gzip.decompress(attempt_export.compact(answers + answers)[0]).splitlines()
    shared: dict[str, str] = {}
    first_file = list(attempt_export.reduced_answers(lines, shared))
    second_file = list(attempt_export.reduced_answers(lines, shared))
    assert first_file == second_file == answers + answers
    for name in ("item_id", "question_id", "user_id", "question_type"):
        copies = {id(answer[name]) for answer in first_file + second_file if answer.get(name) == answers[0][name]}
        assert len(copies) == 1, name


def test_compact_answers_give_back_every_answer_as_it_was_read_in_less_than_half_the_memory():
    answers = [*attempt_export.attempts_of(EXPORTED), {"user_id": "u3", "item_id": None, "score": 100}]
    held = attempt_export.CompactAnswers(answers)
    assert len(held) == 3
    records = [calibration_answer(answer) for answer in answers]
    assert list(held) == list(held) == records  # iterated again and again
    assert (records[0].item_id, records[0].score, records[0].guess_floor, records[0].declined) == (
        "bank-1",
        85.5,
        0.25,
        False,
    )
    assert (records[1].skipped, records[1].score, records[1].item_id) == (True, 0, None)
    assert (records[2].item_id, records[2].score, records[2].is_correct, records[2].graded_at) == (None, 100, False, "")
    assert records[2] in held
    assert calibration_answer({"user_id": "u4"}) not in held
    many = [
        {**answer, "user_id": f"learner-{number}", "graded_at": f"2026-01-01T00:00:{number:06d}Z"}
        for number, answer in enumerate(answers[:1] * 2_000)
    ]
    tracemalloc.start()
    try:
        as_read = copy.deepcopy(many)
        dicts = tracemalloc.get_traced_memory()[0]
        del as_read
        tracemalloc.reset_peak()
        start = tracemalloc.get_traced_memory()[0]
        compact = attempt_export.CompactAnswers(copy.deepcopy(many))
        rows = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert list(compact) == [calibration_answer(answer) for answer in many]
    assert rows < 0.5 * dicts


def test_only_data_files_of_an_export_are_reduced_and_each_source_has_one_reduced_key():
    prefix = attempt_export.files_prefix("run-1")
    assert prefix == "exports/run-1/AWSDynamoDB/"
    assert attempt_export.is_data_file(f"{prefix}01700000000000-a1b2c3d4/data/x7yz.json.gz")
    for other in ("manifest-files.json", "manifest-summary.json", "manifest-files.md5", "_started"):
        assert not attempt_export.is_data_file(f"{prefix}01700000000000-a1b2c3d4/{other}")
    first = attempt_export.reduced_key("run-1", f"{prefix}e/data/a.json.gz")
    assert first == attempt_export.reduced_key("run-1", f"{prefix}e/data/a.json.gz")
    assert first != attempt_export.reduced_key("run-1", f"{prefix}e/data/b.json.gz")
    assert first.startswith("refits/run-1/responses/")
