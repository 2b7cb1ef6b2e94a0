"""Public human-graded short-answer corpora converted to one JSONL schema, split as published.

The grading model is fitted on train splits and judged leave-one-corpus-out, so every corpus is
written as `<out>/<corpus>/<split>.jsonl`, one answer per line:
    corpus, split, language, question_id, question, reference_answer, answer, score (0-1),
    label (the corpus's own grade, when it has one), answer_id,
    reference_answers (all of them, when a question has several), raw_score/max_score (graded
    corpora: the grade before it was divided by the question's full marks).
`bench/grading_agreement.py --dataset FILE` reads any of these files as they are.

Licences differ (see bench/data/MANIFEST.md): only SAF (CC BY 4.0) and DigiKlausur (MPL-2.0) are
committed; the SemEval-2013 corpora forbid redistribution and the UNT set has no licence, so they
are converted from a copy on this machine into a directory outside the repository.
`bench/data/corpora.json` holds each file's row count and sha256, so a converted copy can be
proved identical to the one the model was fitted on.

    python bench/corpora.py build [--out /work/corpora] [--mirror /work/.mirror] [--update-manifest]
    python bench/corpora.py check [--dir /work/corpora] [--allow-missing]
    python bench/corpora.py table    # the split table of bench/data/MANIFEST.md
    python bench/corpora.py csv [--dir /work/corpora] --out DIR   # question_id,question,reference,answer,label

Sources are read straight from git snapshots (`git cat-file`, no work tree needed) or, with
`--source NAME=DIR`, from an unpacked copy laid out as in the repository named in the manifest.
Pure standard library.
"""

import argparse
import csv
import hashlib
import html
import io
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA = REPO_ROOT / "bench" / "data"
MANIFEST = DATA / "corpora.json"
SAF_DIR = DATA / "saf_communication_networks"
HUMAN_CORRECT = 0.8  # as bench/grading_agreement.py: the share of full marks that counts as correct

Row = dict[str, Any]


class Tree(Protocol):
    """Read access to a source repository's files, wherever its copy lives."""

    def paths(self, folder: str) -> list[str]: ...

    def read(self, path: str) -> bytes: ...


@dataclass(frozen=True)
class GitTree:
    """A bare git snapshot (as `fetch` leaves them): read at a pinned commit, so a rebuild is exact."""

    git_dir: Path
    commit: str

    def _git(self, *args: str) -> bytes:
        return subprocess.run(["git", "-C", str(self.git_dir), *args], check=True, capture_output=True).stdout

    def paths(self, folder: str) -> list[str]:
        listing = self._git("ls-tree", "-r", "--name-only", self.commit, "--", folder.rstrip("/") + "/")
        return sorted(listing.decode().splitlines())

    def read(self, path: str) -> bytes:
        return self._git("cat-file", "blob", f"{self.commit}:{path}")


@dataclass(frozen=True)
class DirTree:
    root: Path

    def paths(self, folder: str) -> list[str]:
        base = self.root / folder
        return sorted(str(p.relative_to(self.root)) for p in base.rglob("*") if p.is_file())

    def read(self, path: str) -> bytes:
        return (self.root / path).read_bytes()


def tidy(text: str | None) -> str:
    """One line per field: the XML and CSV sources wrap long answers over several lines."""
    return " ".join((text or "").split())


def answer_key(question: str, answer: str) -> tuple[str, str]:
    return tidy(question).casefold(), tidy(answer).casefold()


# --- SemEval-2013 Task 7 (SciEntsBank, Beetle): one XML file per question ---------------------


def semeval_rows(xml: bytes, corpus: str, split: str) -> list[Row]:
    """2-way files: accuracy is "correct" or "incorrect" (the 5-way labels collapsed by the task)."""
    root = ET.fromstring(xml)
    references = root.find("referenceAnswers")
    reference_elements = list(references) if references is not None else []
    # Beetle lists several references per question; "BEST" ones are the complete answers, the
    # "MINIMAL"/"GOOD" ones are acceptable shorter variants, so a BEST one stands for the question.
    best = [e for e in reference_elements if e.get("category", "BEST") == "BEST"] or reference_elements
    all_references = [tidy(e.text) for e in reference_elements]
    rows = []
    for answer in root.iter("studentAnswer"):
        label = answer.get("accuracy", "")
        row: Row = {
            "corpus": corpus,
            "split": split,
            "language": "en",
            "question_id": root.get("id", ""),
            "question": tidy(root.findtext("questionText")),
            "reference_answer": tidy(best[0].text) if best else "",
            "answer": tidy(answer.text),
            "score": 1.0 if label == "correct" else 0.0,
            "label": label,
            "answer_id": answer.get("id", ""),
        }
        if len(all_references) > 1:
            row["reference_answers"] = all_references
        rows.append(row)
    return rows


def semeval_split(tree: Tree, folder: str, corpus: str, split: str) -> list[Row]:
    rows: list[Row] = []
    for path in tree.paths(folder):
        if path.endswith(".xml"):
            rows.extend(semeval_rows(tree.read(path), corpus, split))
    return rows


# --- SAF communication networks (English): the Hugging Face splits exported as CSV ---------------


def saf_full_marks(train: Iterable[Row]) -> dict[str, float]:
    """Questions carry different full marks (1, 2, 3.5 ...) and the CSV has no column for them: the
    highest score an answer labelled Correct received is the question's full marks (the rule the
    bundled answers.jsonl was made with)."""
    marks: dict[str, float] = defaultdict(float)
    for row in train:
        if row["verification_feedback"] == "Correct":
            marks[tidy(row["question"])] = max(marks[tidy(row["question"])], float(row["score"]))
    return dict(marks)


def saf_rows(csv_text: str, split: str, question_ids: dict[str, str], full_marks: dict[str, float]) -> list[Row]:
    rows = []
    for source in csv.DictReader(io.StringIO(csv_text)):
        question = tidy(source["question"])
        raw, full = float(source["score"]), full_marks[question]
        rows.append(
            {
                "corpus": "saf_communication_networks",
                "split": split,
                "language": "en",
                "question_id": question_ids[question],
                "question": question,
                "reference_answer": tidy(source["reference_answer"]),
                "answer": tidy(source["provided_answer"]),
                "score": round(min(1.0, raw / full), 4),
                "label": source["verification_feedback"],
                "answer_id": source["id"],
                "raw_score": raw,
                "max_score": full,
            }
        )
    return rows


def saf_splits(tree: Tree, bundled: list[Row]) -> dict[str, list[Row]]:
    """Train from the source; the official validation/test rows from the bundled answers.jsonl,
    which holds the source's validation.csv and then its test.csv (447 of the 854 official test
    answers).
    A bundled test row is `test_unseen_questions` when its question never occurs in train."""
    folder = "Short_Answer_Grading/data/processed/"
    train_csv = tree.read(folder + "train.csv").decode("utf-8")
    validation_csv = tree.read(folder + "validation.csv").decode("utf-8")
    train_source = list(csv.DictReader(io.StringIO(train_csv)))
    question_ids = {tidy(r["question"]): r["question_id"] for r in bundled}
    train = saf_rows(train_csv, "train", question_ids, saf_full_marks(train_source))
    # The bundled file is the held-out test corpus: no answer of it may be fitted on.
    held_out = {answer_key(r["question"], r["answer"]) for r in bundled}
    train = [r for r in train if answer_key(r["question"], r["answer"]) not in held_out]
    # Matched by position, not by text: a few answers occur word for word in both source files.
    validation = [answer_key(r["question"], r["provided_answer"]) for r in csv.DictReader(io.StringIO(validation_csv))]
    if [answer_key(r["question"], r["answer"]) for r in bundled[: len(validation)]] != validation:
        raise ValueError("answers.jsonl no longer starts with the source's validation.csv")
    train_questions = {r["question"] for r in train}
    splits: dict[str, list[Row]] = {"train": train}
    for position, row in enumerate(bundled):
        if position < len(validation):
            split = "validation"
        elif tidy(row["question"]) in train_questions:
            split = "test_unseen_answers"
        else:
            split = "test_unseen_questions"
        converted = {
            "corpus": "saf_communication_networks",
            "split": split,
            "language": "en",
            **{k: row[k] for k in ("question_id", "question", "reference_answer", "answer", "score")},
            "label": row["verification"],
            "raw_score": row["raw_score"],
            "max_score": row["max_score"],
        }
        splits.setdefault(split, []).append(converted)
    return splits


# --- UNT computer science, Mohler, Bunescu and Mihalcea 2011 (ShortAnswerGrading_v2.0) --------

MOHLER_DATA = "data/source_data/ShortAnswerGrading_v2.0/data/"
LINE_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)


def mohler_text(line: str) -> str:
    """The raw files are HTML fragments from the course's web form (<br>, &lt;)."""
    return tidy(html.unescape(LINE_BREAK.sub(" ", line)))


def numbered_lines(text: str) -> dict[str, str]:
    """`questions` and `answers` hold one "x.y text" line per question."""
    lines = (line.split(" ", 1) for line in text.splitlines() if line.strip())
    return {parts[0]: mohler_text(parts[1] if len(parts) > 1 else "") for parts in lines}


def mohler_rows(tree: Tree, root: str = MOHLER_DATA) -> list[Row]:
    """Every answer with the two graders' average (0-5, exams already rescaled by the authors).
    Questions marked `#` in docs/files (selection or ordering items) are left out, as in every
    published result: 81 questions, 2,273 answers."""

    def text(name: str) -> str:
        return tree.read(root + name).decode("utf-8", errors="replace")

    questions, references = numbered_lines(text("raw/questions")), numbered_lines(text("raw/answers"))
    rows = []
    for number in text("docs/files").split():
        if number.startswith("#"):
            continue
        answers = [line for line in text(f"raw/{number}").splitlines() if line.strip()]
        averages = [float(v) for v in text(f"scores/{number}/ave").split()]
        if len(answers) != len(averages):
            raise ValueError(f"question {number}: {len(answers)} answers but {len(averages)} grades")
        for position, (line, average) in enumerate(zip(answers, averages, strict=True)):
            rows.append(
                {
                    "corpus": "mohler_unt_cs",
                    "split": "test",
                    "language": "en",
                    "question_id": f"unt-{number}",
                    "question": questions[number],
                    "reference_answer": references[number],
                    "answer": mohler_text(line.split(" ", 1)[1] if line.startswith(number + " ") else line),
                    "score": round(average / 5, 4),
                    "answer_id": f"{number}.{position}",
                    "raw_score": average,
                    "max_score": 5.0,
                }
            )
    return rows


# --- DigiKlausur neural-network exam (H-BRS): one CSV row per answer -----------------------------


def digiklausur_rows(csv_text: str) -> list[Row]:
    """Grades are 0 (incorrect), 1 (partially correct), 2 (perfect), from one grader. The CSV has
    no question number; questions appear in exam order, numbered here by first appearance."""
    numbers: dict[str, int] = {}
    positions: dict[int, int] = defaultdict(int)
    rows = []
    for source in csv.DictReader(io.StringIO(csv_text)):
        question = tidy(source["question"])
        number = numbers.setdefault(question, len(numbers) + 1)
        grade = int(source["grades_round"])
        rows.append(
            {
                "corpus": "digiklausur_neural_networks",
                "split": "test",
                "language": "en",
                "question_id": f"dk-{number:02d}",
                "question": question,
                "reference_answer": tidy(source["ref_answer"]),
                "answer": tidy(source["student_answer"]),
                "score": grade / 2,
                "label": str(grade),
                "answer_id": f"dk-{number:02d}.{positions[number]}",
                "raw_score": float(grade),
                "max_score": 2.0,
            }
        )
        positions[number] += 1
    return rows


# --- the corpora, their sources and how each is split ------------------------------------------

SEMEVAL_ROOT = "src/main/resources/corpus/semeval2013-task7/"


def scientsbank(tree: Tree) -> dict[str, list[Row]]:
    folders = {
        "train": "training/2way/sciEntsBank",
        "test_unseen_answers": "test/2way/sciEntsBank/test-unseen-answers",
        "test_unseen_questions": "test/2way/sciEntsBank/test-unseen-questions",
        "test_unseen_domains": "test/2way/sciEntsBank/test-unseen-domains",
    }
    return {split: semeval_split(tree, SEMEVAL_ROOT + f, "scientsbank", split) for split, f in folders.items()}


def beetle(tree: Tree) -> dict[str, list[Row]]:
    folders = {
        "train": "training/2way/beetle",
        "test_unseen_answers": "test/2way/beetle/test-unseen-answers",
        "test_unseen_questions": "test/2way/beetle/test-unseen-questions",
    }
    return {split: semeval_split(tree, SEMEVAL_ROOT + f, "beetle", split) for split, f in folders.items()}


def saf(tree: Tree) -> dict[str, list[Row]]:
    bundled = [json.loads(line) for line in (SAF_DIR / "answers.jsonl").read_text(encoding="utf-8").splitlines()]
    return saf_splits(tree, bundled)


def mohler(tree: Tree) -> dict[str, list[Row]]:
    # No published train/test division: the whole corpus is one held-out set.
    return {"test": mohler_rows(tree)}


def digiklausur(tree: Tree) -> dict[str, list[Row]]:
    # No published division either; small enough to be one held-out set.
    return {"test": digiklausur_rows(tree.read("selected_asag_dataset.csv").decode("utf-8"))}


CONVERTERS: dict[str, Callable[[Tree], dict[str, list[Row]]]] = {
    "saf_communication_networks": saf,
    "scientsbank": scientsbank,
    "beetle": beetle,
    "mohler_unt_cs": mohler,
    "digiklausur_neural_networks": digiklausur,
}
# Not named answers.jsonl: grading_agreement.py grades every bench/data/*/answers.jsonl by default.
COMMITTED_COPIES = {
    ("saf_communication_networks", "train"): SAF_DIR / "train.jsonl",
    ("digiklausur_neural_networks", "test"): DATA / "digiklausur_neural_networks" / "test.jsonl",
}


def read_manifest() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return loaded


def jsonl(rows: list[Row]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def split_figures(rows: list[Row]) -> dict[str, Any]:
    correct = sum(r["score"] >= HUMAN_CORRECT for r in rows)
    return {
        "rows": len(rows),
        "questions": len({r["question_id"] for r in rows}),
        "correct_share": round(correct / len(rows), 4) if rows else 0.0,
    }


def source_tree(name: str, entry: dict[str, Any], mirror: Path, given: dict[str, Path]) -> Tree | None:
    if name in given:
        return DirTree(given[name])
    git_dir = mirror / entry["source"]["repository"].replace("/", "+") / "repo"
    return GitTree(git_dir, entry["source"]["commit"]) if git_dir.is_dir() else None


def build(out: Path, mirror: Path, given: dict[str, Path], update_manifest: bool) -> int:
    manifest = read_manifest()
    for name, convert in CONVERTERS.items():
        entry = manifest["corpora"][name]
        tree = source_tree(name, entry, mirror, given)
        if tree is None:
            print(f"{name}: no copy of {entry['source']['repository']} under {mirror}; skipped")
            continue
        files = {}
        for split, converted in convert(tree).items():
            # Tool 6 refuses an empty answer (its contract needs one character), so a blank one can
            # never reach the grader; the bench would stop on it.
            rows = [r for r in converted if r["answer"]]
            if len(rows) < len(converted):
                print(f"{name}/{split}: {len(converted) - len(rows)} blank answers left out")
            data = jsonl(rows)
            (out / name).mkdir(parents=True, exist_ok=True)
            (out / name / f"{split}.jsonl").write_bytes(data)
            if (name, split) in COMMITTED_COPIES:
                COMMITTED_COPIES[name, split].parent.mkdir(parents=True, exist_ok=True)
                COMMITTED_COPIES[name, split].write_bytes(data)
            files[split] = {**split_figures(rows), "sha256": sha256(data)}
            print(f"{name}/{split}.jsonl: {json.dumps(files[split])}")
        if update_manifest:
            entry["files"] = files
    if update_manifest:
        MANIFEST.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


def check(directory: Path, allow_missing: bool) -> int:
    """Every converted file (and the committed copies) must match the manifest's sha256."""
    problems = 0
    for name, entry in read_manifest()["corpora"].items():
        for split, expected in entry.get("files", {}).items():
            paths = [directory / name / f"{split}.jsonl"]
            if (name, split) in COMMITTED_COPIES:
                paths.append(COMMITTED_COPIES[name, split])
            for path in paths:
                if not path.is_file():
                    status = "missing"
                    problems += not allow_missing
                elif sha256(path.read_bytes()) == expected["sha256"]:
                    status = "ok"
                else:
                    status = "MISMATCH"
                    problems += 1
                print(f"{status:8} {path}")
    return 1 if problems else 0


def split_table(manifest: dict[str, Any]) -> str:
    """The per-split table of MANIFEST.md, printed from the manifest so the two cannot disagree."""
    lines = [
        "| corpus | split | rows | questions | share >= 0.8 | in the repository | sha256 |",
        "| --- | --- | ---: | ---: | ---: | --- | --- |",
    ]
    for name, entry in manifest["corpora"].items():
        for split, figures in entry["files"].items():
            committed = entry["committed_files"].get(split, "no")
            lines.append(
                f"| {name} | {split} | {figures['rows']} | {figures['questions']} | {figures['correct_share']:.3f} "
                f"| {committed} | `{figures['sha256']}` |"
            )
    return "\n".join(lines) + "\n"


CSV_COLUMNS = ["question_id", "question", "reference", "answer", "label"]


def write_csv(rows: list[Row], path: Path) -> None:
    """The review benchmark's input: one answer per row, label 1 when the humans gave it 80% or
    more of full marks (the line the grader's verdict is judged by)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for row in rows:
            label = int(float(row["score"]) >= HUMAN_CORRECT)
            writer.writerow([row["question_id"], row["question"], row["reference_answer"], row["answer"], label])


def to_csv(directory: Path, out: Path) -> int:
    """Every <corpus>/<split>.jsonl under `directory` as <out>/<corpus>__<split>.csv."""
    for path in sorted(directory.glob("*/*.jsonl")):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        target = out / f"{path.parent.name}__{path.stem}.csv"
        write_csv(rows, target)
        print(f"{target}: {len(rows)} answers")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    build_parser = commands.add_parser("build", help="convert every corpus whose source is on this machine")
    build_parser.add_argument("--out", type=Path, default=Path("/work/corpora"))
    build_parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"), help="holds owner+name/repo")
    build_parser.add_argument("--source", action="append", default=[], help="NAME=DIR: an unpacked copy of a source")
    build_parser.add_argument("--update-manifest", action="store_true", help="record row counts and sha256")
    check_parser = commands.add_parser("check", help="verify converted files against the manifest's sha256")
    check_parser.add_argument("--dir", type=Path, default=Path("/work/corpora"))
    check_parser.add_argument("--allow-missing", action="store_true", help="only corpora present must match")
    commands.add_parser("table", help="print MANIFEST.md's split table from the manifest")
    csv_parser = commands.add_parser("csv", help="converted corpora as CSV for bench/review_amplification.py")
    csv_parser.add_argument("--dir", type=Path, default=Path("/work/corpora"))
    csv_parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "build":
        given = {name: Path(folder) for name, _, folder in (s.partition("=") for s in args.source)}
        return build(args.out, args.mirror, given, args.update_manifest)
    if args.command == "csv":
        return to_csv(args.dir, args.out)
    if args.command == "table":
        print(split_table(read_manifest()), end="")
        return 0
    return check(args.dir, args.allow_missing)


if __name__ == "__main__":
    sys.exit(main())
