"""bench/review_amplification.py on a small run: one JSON object per file with the figures, the
product's own propagation and grouping deciding, the reviewer's actions counted per group and per
answer graded alone, and agreement below 100% only through verdicts finalised without review."""

import csv
import json

import pytest

from bench import review_amplification
from slea.grading import answer_groups

QUESTION = "Why does the bulb light up?"
REFERENCE = "The bulb is in a closed path with the battery."
RIGHT = "the bulb is in a closed path with the battery"
WRONG = "because the switch is painted red"


def write(path, rows):
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question_id", "question", "reference", "answer", "label", "extra"])
        for question_id, answer, label in rows:
            writer.writerow([question_id, QUESTION, REFERENCE, answer, label, "ignored"])


@pytest.fixture
def corpus(tmp_path):
    rows = [("q1", f"{RIGHT}{'.' * (i % 3)}", 1) for i in range(12)]
    rows += [("q1", f"{WRONG}{'!' * (i % 2)}", 0) for i in range(6)]
    rows += [("q2", "current flows from the battery through the bulb and back", 1) for _ in range(4)]
    path = tmp_path / "small.csv"
    write(path, rows)
    return path


def run(capsys, *args):
    assert review_amplification.main([*args, "--json"]) == 0
    captured = capsys.readouterr()
    return [json.loads(line) for line in captured.out.splitlines()], captured.err


def test_one_json_object_per_file_with_the_figures(corpus, tmp_path, capsys):
    other = tmp_path / "other.csv"
    write(other, [("q9", RIGHT, 1), ("q9", WRONG, 0)])
    reports, curve = run(capsys, "--csv", str(corpus), "--csv", str(other))
    assert [r["file"] for r in reports] == [str(corpus), str(other)]
    first = reports[0]
    assert {"file", "answers", "reviewer_actions", "final_agreement", "finalised_without_review"} <= set(first)
    assert first["answers"] == 22
    assert 0 < first["reviewer_actions"] < first["answers"]  # groups and exemplars save actions
    assert 0.0 <= first["final_agreement"] <= 1.0
    assert "reviewer actions" in curve  # the curve, in text, beside the JSON


def test_copies_of_a_reviewed_answer_are_finalised_with_its_grade(corpus, capsys):
    (report, *_), _ = run(capsys, "--csv", str(corpus), "--batch", "2")
    assert report["propagated"] > 0
    assert report["propagated_agreement"] == 1.0
    assert report["final_agreement"] == 1.0


def test_the_products_propagation_and_grouping_decide(corpus, capsys, monkeypatch):
    calls = {"propagate": 0, "assign": 0}
    propagate, assign = answer_groups.propagate, answer_groups.assign

    def counting_propagate(*args, **kwargs):
        calls["propagate"] += 1
        return propagate(*args, **kwargs)

    def counting_assign(*args, **kwargs):
        calls["assign"] += 1
        return assign(*args, **kwargs)

    monkeypatch.setattr(answer_groups, "propagate", counting_propagate)
    monkeypatch.setattr(answer_groups, "assign", counting_assign)
    run(capsys, "--csv", str(corpus))
    assert calls["propagate"] > 0
    assert calls["assign"] > 0


def test_a_group_costs_one_action_and_each_member_it_excludes_one_more():
    answers = [
        review_amplification.Answer(f"a{i}", "q", QUESTION, REFERENCE, text, label)
        for i, (text, label) in enumerate([(RIGHT, True), (RIGHT + ".", True), (RIGHT + "!", False)])
    ]
    views = {a.answer_id: review_amplification.GraderView(False, 50, False, 0.5, False) for a in answers}
    # Nothing propagates (the texts are the same up to punctuation; propagation is off), one group
    # forms, and its member with the other gold label is excluded and graded alone.
    settings = answer_groups.Settings(propagate_similarity=2.0, conflict_similarity=2.0)
    outcome = review_amplification.simulate(answers, views, settings, batch=10, seed=1)
    assert outcome.group_actions == 1
    assert outcome.reviewer_actions == 2
    assert outcome.wrong == 0


def test_a_file_without_the_columns_is_refused(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("id,text\n1,hello\n", encoding="utf-8")
    with pytest.raises(KeyError):
        review_amplification.read_csv(path)


def test_an_item_keeps_its_exemplars_as_the_product_does_in_forty_slots():
    from slea.dal.exemplars import SLOTS, slot_of

    item = review_amplification.Item(REFERENCE)
    for number in range(200):
        item.keep(answer_groups.Exemplar(f"a{number}", RIGHT, True, 100))
    assert len(item.exemplars) == len({slot_of(f"a{n}") for n in range(200)}) <= SLOTS
    # a newer review replaces the older one that shared its slot
    newest = item.slots[slot_of("a199")]
    assert newest.exemplar_id == "a199"


def test_a_setting_can_be_tried_from_the_command_line(corpus, capsys):
    (tried, *_), _ = run(
        capsys, "--csv", str(corpus), "--set", "propagate_similarity=2.0", "--set", "conflict_similarity=2"
    )
    assert tried["propagated"] == 0  # nothing is that close
    (shipped, *_), _ = run(capsys, "--csv", str(corpus))
    assert shipped["propagated"] > 0
