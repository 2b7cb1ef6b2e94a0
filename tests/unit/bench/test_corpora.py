"""bench/corpora.py: each converter maps its source format to the common schema (scores in 0-1,
the published splits, nothing fitted on held-out rows), and `check` catches a changed file.
Every fixture is synthetic, written by the test; no real corpus is read except the committed
files, whose hashes the manifest pins."""

import hashlib
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bench import corpora

BEETLE_XML = b"""<?xml version="1.0"?>
<question id="Q_BULB" module="FaultFinding">
  <questionText>Why does the
     bulb light?</questionText>
  <referenceAnswers>
    <referenceAnswer category="MINIMAL" id="a1">closed path</referenceAnswer>
    <referenceAnswer category="BEST" id="a2">The bulb is in a closed path with the battery</referenceAnswer>
    <referenceAnswer category="BEST" id="a3">There is a closed path</referenceAnswer>
  </referenceAnswers>
  <studentAnswers>
    <studentAnswer id="s1" accuracy="correct">it is on a   closed path</studentAnswer>
    <studentAnswer id="s2" accuracy="incorrect">because of the battery</studentAnswer>
  </studentAnswers>
</question>
"""

SCIENTSBANK_XML = b"""<?xml version="1.0"?>
<question id="EM_1" module="EM">
  <questionText>How did you separate the salt from the water?</questionText>
  <referenceAnswers><referenceAnswer id="EM_1-a1">The water evaporated.</referenceAnswer></referenceAnswers>
  <studentAnswers>
    <studentAnswer id="EM.1.1" accuracy="correct">Let the water evaporate.</studentAnswer>
    <studentAnswer id="EM.1.2" accuracy="incorrect">I shook it.</studentAnswer>
    <studentAnswer id="EM.1.3" accuracy="incorrect"> </studentAnswer>
  </studentAnswers>
</question>
"""

SAF_HEADER = "id,question,reference_answer,provided_answer,answer_feedback,verification_feedback,score\n"


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    return root


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_beetle_reference_is_the_first_best_one_and_all_are_kept() -> None:
    rows = corpora.semeval_rows(BEETLE_XML, "beetle", "train")

    assert [r["score"] for r in rows] == [1.0, 0.0]
    assert [r["label"] for r in rows] == ["correct", "incorrect"]
    assert rows[0]["reference_answer"] == "The bulb is in a closed path with the battery"
    assert rows[0]["reference_answers"] == [
        "closed path",
        "The bulb is in a closed path with the battery",
        "There is a closed path",
    ]
    assert rows[0]["question"] == "Why does the bulb light?"
    assert rows[0]["answer"] == "it is on a closed path"
    assert (rows[0]["question_id"], rows[0]["answer_id"], rows[0]["language"]) == ("Q_BULB", "s1", "en")


def test_scientsbank_single_reference_has_no_reference_list() -> None:
    rows = corpora.semeval_rows(SCIENTSBANK_XML, "scientsbank", "test_unseen_domains")

    assert rows[0]["reference_answer"] == "The water evaporated."
    assert "reference_answers" not in rows[0]
    assert {r["split"] for r in rows} == {"test_unseen_domains"}


def test_scientsbank_splits_come_from_their_folders(tmp_path: Path) -> None:
    root = corpora.SEMEVAL_ROOT
    tree = corpora.DirTree(
        write(
            tmp_path,
            {
                f"{root}training/2way/sciEntsBank/EM_1.xml": SCIENTSBANK_XML,
                f"{root}test/2way/sciEntsBank/test-unseen-answers/EM_1.xml": SCIENTSBANK_XML,
                f"{root}test/2way/sciEntsBank/test-unseen-answers/notes.txt": "not a question",
            },
        )
    )

    splits = corpora.scientsbank(tree)

    assert {split: len(rows) for split, rows in splits.items()} == {
        "train": 3,
        "test_unseen_answers": 3,
        "test_unseen_questions": 0,
        "test_unseen_domains": 0,
    }


def saf_source(tmp_path: Path) -> corpora.DirTree:
    folder = "Short_Answer_Grading/data/processed/"
    train = SAF_HEADER + "\n".join(
        [
            "t1,What is TCP?,A reliable transport.,It is reliable.,,Correct,2.0",
            "t2,What is TCP?,A reliable transport.,A protocol.,,Partially correct,1.0",
            "t3,What is TCP?,A reliable transport.,Copied answer.,,Correct,1.5",
        ]
    )
    validation = SAF_HEADER + "v1,What is TCP?,A reliable transport.,Copied answer.,,Correct,2.0\n"
    return corpora.DirTree(write(tmp_path, {folder + "train.csv": train, folder + "validation.csv": validation}))


def bundled_row(question: str, answer: str, score: float = 1.0) -> dict[str, Any]:
    return {
        "question_id": "saf-01" if "TCP" in question else "saf-02",
        "question": question,
        "reference_answer": "A reliable transport.",
        "answer": answer,
        "score": score,
        "raw_score": score,
        "max_score": 1.0,
        "verification": "Correct",
    }


def test_saf_train_is_normalised_and_never_holds_a_bundled_answer(tmp_path: Path) -> None:
    bundled = [
        bundled_row("What is TCP?", "Copied answer."),
        bundled_row("What is TCP?", "Another answer."),
        bundled_row("What is UDP?", "Unreliable."),
    ]

    splits = corpora.saf_splits(saf_source(tmp_path), bundled)

    train = splits["train"]
    assert [r["answer"] for r in train] == ["It is reliable.", "A protocol."]  # t3 is in the bundled file
    assert [r["score"] for r in train] == [1.0, 0.5]  # full marks = best Correct score (2.0)
    assert [r["max_score"] for r in train] == [2.0, 2.0]
    assert {r["question_id"] for r in train} == {"saf-01"}
    assert [len(splits[s]) for s in ("validation", "test_unseen_answers", "test_unseen_questions")] == [1, 1, 1]
    assert splits["test_unseen_questions"][0]["question"] == "What is UDP?"
    assert splits["validation"][0]["label"] == "Correct"


def test_saf_refuses_a_bundled_file_that_does_not_start_with_validation(tmp_path: Path) -> None:
    bundled = [bundled_row("What is TCP?", "Another answer."), bundled_row("What is TCP?", "Copied answer.")]

    with pytest.raises(ValueError, match=r"validation\.csv"):
        corpora.saf_splits(saf_source(tmp_path), bundled)


def mohler_source(tmp_path: Path, grades: str = "5\n2.5\n") -> corpora.DirTree:
    data = corpora.MOHLER_DATA
    return corpora.DirTree(
        write(
            tmp_path,
            {
                data + "docs/files": "1.1\n#1.2\n",
                data + "raw/questions": "1.1 What is a stack?\n1.2 Order these items.\n",
                data + "raw/answers": "1.1 A LIFO list.\n1.2 a, b, c\n",
                data + "raw/1.1": "1.1 A list where<br>the last in is first out.\n1.1 if a &lt; b then push\n",
                data + "raw/1.2": "1.2 c, b, a\n",
                data + "scores/1.1/ave": grades,
                data + "scores/1.2/ave": "5\n",
            },
        )
    )


def test_mohler_averages_become_shares_and_selection_items_are_left_out(tmp_path: Path) -> None:
    rows = corpora.mohler_rows(mohler_source(tmp_path))

    assert [r["question_id"] for r in rows] == ["unt-1.1", "unt-1.1"]
    assert [r["score"] for r in rows] == [1.0, 0.5]
    assert rows[0]["answer"] == "A list where the last in is first out."
    assert rows[1]["answer"] == "if a < b then push"
    assert (rows[0]["question"], rows[0]["reference_answer"]) == ("What is a stack?", "A LIFO list.")
    assert [r["answer_id"] for r in rows] == ["1.1.0", "1.1.1"]


def test_mohler_refuses_answers_and_grades_that_do_not_pair_up(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="2 answers but 1 grades"):
        corpora.mohler_rows(mohler_source(tmp_path, grades="5\n"))


def test_digiklausur_grades_become_shares_and_questions_are_numbered_in_order() -> None:
    text = (
        "index,question,student_answer,grades_round,ref_answer\n"
        '0, Define a neuron.,"A unit that sums, then fires.",2,A weighted sum and an activation.\n'
        "1, Define a neuron.,No idea.,0,A weighted sum and an activation.\n"
        "2,What is SOM?,A map.,1,A self-organising map.\n"
    )

    rows = corpora.digiklausur_rows(text)

    assert [(r["question_id"], r["score"], r["label"]) for r in rows] == [
        ("dk-01", 1.0, "2"),
        ("dk-01", 0.0, "0"),
        ("dk-02", 0.5, "1"),
    ]
    assert rows[0]["question"] == "Define a neuron."
    assert [r["answer_id"] for r in rows] == ["dk-01.0", "dk-01.1", "dk-02.0"]


def test_git_tree_reads_a_pinned_commit_without_a_work_tree(tmp_path: Path) -> None:
    work = tmp_path / "work"
    write(work, {"data/a.xml": SCIENTSBANK_XML, "data/b.xml": BEETLE_XML, "other.txt": "x"})

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(work), *args], check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "fixture")
    commit = git("rev-parse", "HEAD").strip()
    (work / "data" / "a.xml").write_text("changed after the commit")

    tree = corpora.GitTree(work / ".git", commit)

    assert tree.paths("data") == ["data/a.xml", "data/b.xml"]
    assert tree.read("data/a.xml") == SCIENTSBANK_XML


def _one_corpus_manifest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, repository: str) -> Path:
    """A manifest of the one corpus `name` (its converter the only one), from `repository`, with no
    files recorded yet: its path."""
    manifest = tmp_path / "corpora.json"
    entry = {"source": {"repository": repository, "commit": "0" * 40}, "files": {}}
    manifest.write_text(json.dumps({"corpora": {name: entry}}))
    monkeypatch.setattr(corpora, "MANIFEST", manifest)
    monkeypatch.setattr(corpora, "CONVERTERS", {name: getattr(corpora, name)})
    return manifest


def test_build_records_hashes_and_check_catches_a_changed_or_missing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = _one_corpus_manifest(tmp_path, monkeypatch, "scientsbank", "someone/semeval-copy")
    monkeypatch.setattr(corpora, "COMMITTED_COPIES", {})
    root = corpora.SEMEVAL_ROOT + "training/2way/sciEntsBank/"
    source = write(tmp_path / "source", {root + "EM_1.xml": SCIENTSBANK_XML})
    out = tmp_path / "out"

    assert corpora.build(out, tmp_path / "no-mirror", {"scientsbank": source}, update_manifest=True) == 0

    recorded = json.loads(manifest.read_text())["corpora"]["scientsbank"]["files"]
    train = out / "scientsbank" / "train.jsonl"
    assert recorded["train"]["sha256"] == hashlib.sha256(train.read_bytes()).hexdigest()
    assert (recorded["train"]["rows"], recorded["train"]["correct_share"]) == (2, 0.5)
    assert [r["answer_id"] for r in read_jsonl(train)] == ["EM.1.1", "EM.1.2"]  # EM.1.3 is blank
    assert corpora.check(out, allow_missing=False) == 0

    (out / "scientsbank" / "test_unseen_domains.jsonl").unlink()
    assert corpora.check(out, allow_missing=False) == 1
    assert corpora.check(out, allow_missing=True) == 0

    train.write_bytes(train.read_bytes().replace(b'"score": 1.0', b'"score": 0.0'))
    assert corpora.check(out, allow_missing=True) == 1


def test_build_skips_a_corpus_whose_source_is_not_on_this_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _one_corpus_manifest(tmp_path, monkeypatch, "beetle", "someone/absent")

    assert corpora.build(tmp_path / "out", tmp_path / "mirror", {}, update_manifest=False) == 0

    assert "skipped" in capsys.readouterr().out
    assert not (tmp_path / "out").exists()


def test_manifest_names_source_licence_and_split_hashes_for_every_corpus() -> None:
    manifest = corpora.read_manifest()["corpora"]

    assert set(manifest) == set(corpora.CONVERTERS)
    for name, entry in manifest.items():
        assert entry["licence"], name
        assert re.fullmatch(r"[0-9a-f]{40}", entry["source"]["commit"]), name
        assert isinstance(entry["committed"], bool), name
        assert entry["files"], name
        for figures in entry["files"].values():
            assert re.fullmatch(r"[0-9a-f]{64}", figures["sha256"]), name
            assert 0 <= figures["correct_share"] <= 1


def test_committed_copies_match_the_manifest() -> None:
    """Only the corpora whose licence allows it are in the repository, byte for byte as recorded."""
    manifest = corpora.read_manifest()["corpora"]

    for (name, split), path in corpora.COMMITTED_COPIES.items():
        assert manifest[name]["committed"] is True
        assert path == corpora.REPO_ROOT / manifest[name]["committed_files"][split]
        rows = read_jsonl(path)
        assert len(rows) == manifest[name]["files"][split]["rows"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == manifest[name]["files"][split]["sha256"]
        assert all(0 <= r["score"] <= 1 and r["answer"] and r["reference_answer"] for r in rows)
    committed = {name for name, entry in manifest.items() if entry["committed"]}
    assert committed == {"saf_communication_networks", "digiklausur_neural_networks"}
    assert (corpora.DATA / "digiklausur_neural_networks" / "LICENSE").read_text().startswith("Mozilla Public License")


def test_manifest_md_shows_the_manifest_split_table() -> None:
    assert corpora.split_table(corpora.read_manifest()) in (corpora.DATA / "MANIFEST.md").read_text(encoding="utf-8")
