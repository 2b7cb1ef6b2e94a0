"""Storage of the calibration refit (slea.logic.jobs.calibration_refit): the attempts table's
point-in-time export to S3, and the compact answers each file of it is reduced to.

- The export: ExportTableToPointInTime (FULL_EXPORT, DYNAMODB_JSON) of the attempts table into
  the refit bucket under `exports/{run}/`; DynamoDB writes its files under
  `exports/{run}/AWSDynamoDB/{export id}/` - data files in `data/` (gzip, one
  `{"Item": {...}}` per line), and manifests beside them. A prefix per run means listing it
  finds this export's files and no other's; the manifests are not needed (and a data file is
  told from them by its `data/` folder).
- Reducing: one data file is read as a stream (GetObject, gunzip, line by line; never the whole
  file in memory) and each answer's calibration fields (CALIBRATION_FIELDS, the rest of the
  attempt - answers, feedback, keys - is dropped; an "I don't know" is marked `declined`) are
  written, gzip JSON lines, to
  `refits/{run}/responses/{digest of the source key}.json.gz`: the same source always writes the
  same key, so a retried child overwrites what an earlier try wrote.
- The fit reads every reduced file of its run, listed page by page, each streamed, and holds
  the answers one record each (CompactAnswers): their memory bounds how many answers one fit holds.
- The bucket's lifecycle rule deletes both prefixes after some days (template.yaml); nothing
  here deletes.
"""

import gzip
import hashlib
import io
import json
import uuid
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from slea.dal.calibration_records import CalibrationAnswer, calibration_answer
from slea.dal.wire_format import from_item
from slea.grading import non_answers
from slea.platform.aws import dynamodb, s3
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

ATTEMPTS_TABLE_ARN = "ATTEMPTS_TABLE_ARN"
EXPORT_BUCKET = "EXPORT_BUCKET"
TOOL = "calibrate_items"
EXPORTS = "exports"
REDUCED = "refits"
DATA_FOLDER = "/data/"

# What the refit reads of an attempt.
CALIBRATION_FIELDS = (
    "item_id",
    "question_id",
    "user_id",
    "score",
    "is_correct",
    "guess_floor",
    "question_type",
    "graded_at",
    "skipped",
    "declined",  # computed on reducing: the answer was a non-answer ("I don't know"; declined_answer)
)


@dataclass(frozen=True)
class ExportDescription:
    arn: str
    status: str
    failure: str | None
    bucket: str


def export_prefix(run: str) -> str:
    return f"{EXPORTS}/{run}"


def files_prefix(run: str) -> str:
    """Where DynamoDB writes the run's export (its data files and manifests)."""
    return f"{export_prefix(run)}/AWSDynamoDB/"


def _reduced_prefix(run: str) -> str:
    return f"{REDUCED}/{run}/responses/"


def _described(description: Mapping[str, Any]) -> ExportDescription:
    reasons = (description.get("FailureCode"), description.get("FailureMessage"))
    failure = ": ".join(str(part) for part in reasons if part)
    return ExportDescription(
        arn=str(description["ExportArn"]),
        status=str(description["ExportStatus"]),
        failure=failure or None,
        bucket=str(description.get("S3Bucket") or resource_name(EXPORT_BUCKET)),
    )


def start_export(run: str) -> ExportDescription:
    """Start the point-in-time export of the attempts table for `run`. The client token makes a
    retried start (the same run) the same export, not a second one."""
    with storage_errors("attempts export start"):
        response = dynamodb(TOOL).export_table_to_point_in_time(
            TableArn=resource_name(ATTEMPTS_TABLE_ARN),
            S3Bucket=resource_name(EXPORT_BUCKET),
            S3Prefix=export_prefix(run),
            S3SseAlgorithm="AES256",
            ExportFormat="DYNAMODB_JSON",
            ExportType="FULL_EXPORT",
            ClientToken=str(uuid.uuid5(uuid.NAMESPACE_URL, f"slea-calibration-refit/{run}")),
        )
    return _described(response["ExportDescription"])


def describe_export(arn: str) -> ExportDescription:
    with storage_errors("attempts export describe"):
        response = dynamodb(TOOL).describe_export(ExportArn=arn)
    return _described(response["ExportDescription"])


def is_data_file(key: str) -> bool:
    """A data file of an export (the manifests and markers beside them are not)."""
    return DATA_FOLDER in key and key.endswith(".gz")


def _lines(bucket: str, key: str) -> Iterator[bytes]:
    """The lines of a gzip object, decompressed as they stream in."""
    with storage_errors("refit file read"):
        body = s3(TOOL).get_object(Bucket=bucket, Key=key)["Body"]
        with gzip.GzipFile(fileobj=body) as unzipped:
            for line in unzipped:
                if line.strip():
                    yield line


def attempts_of(lines: Iterable[bytes]) -> Iterator[dict[str, Any]]:
    """Each attempt of an export's DYNAMODB_JSON lines: its calibration fields as a plain dict."""
    for line in lines:
        item = json.loads(line)["Item"]
        reduced = from_item({name: item[name] for name in CALIBRATION_FIELDS if name in item})
        if declined_answer(item.get("user_answer", {}).get("S"), item.get("question_stem", {}).get("S")):
            reduced["declined"] = True
        yield reduced


def declined_answer(text: str | None, stem: str | None = None) -> bool:
    """The learner declined to answer, by the grader's own rule (slea.grading.non_answers: "I don't
    know", "모르겠습니다", with nothing beyond the question's words): they stopped rather than
    answered. Person fit counts it as an item left unanswered (slea.measurement.person_fit); the
    item's fit counts it as the wrong answer it was graded. The rule is read only for an answer
    with a decline in it (one regex), so a file of ordinary answers reduces as fast as before."""
    if not isinstance(text, str) or not non_answers.DECLINE.search(text):
        return False
    return non_answers.kind(text, stem or "") == "declined"


def export_file_attempts(key: str) -> Iterator[dict[str, Any]]:
    """Each attempt of one export data file, read as it streams in."""
    return attempts_of(_lines(resource_name(EXPORT_BUCKET), key))


def compact(attempts: Iterable[dict[str, Any]]) -> tuple[bytes, int]:
    """Attempts as a reduced file's body (gzip JSON lines), and how many it holds."""
    buffer, count = io.BytesIO(), 0
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped:
        for attempt in attempts:
            zipped.write(json.dumps(attempt, separators=(",", ":"), sort_keys=True).encode() + b"\n")
            count += 1
    return buffer.getvalue(), count


def reduced_key(run: str, source_key: str) -> str:
    digest = hashlib.sha256(source_key.encode()).hexdigest()[:32]
    return f"{_reduced_prefix(run)}{digest}.json.gz"


def write_reduced(run: str, source_key: str, attempts: Iterable[dict[str, Any]]) -> int:
    """Write one file's compact answers (gzip JSON lines); the number written."""
    body, count = compact(attempts)
    with storage_errors("refit file write"):
        s3(TOOL).put_object(
            Bucket=resource_name(EXPORT_BUCKET),
            Key=reduced_key(run, source_key),
            Body=body,
            ContentType="application/x-ndjson",
            ContentEncoding="gzip",
        )
    return count


# Fields whose few values repeat across millions of answers (ids, types): each read answer refers
# to one shared copy of each value instead of its own, which saves the fit about a third of
# the memory the answers take as read (bench/calibration_scale.py).
SHARED_FIELDS = ("item_id", "question_id", "user_id", "question_type")


def reduced_answers(lines: Iterable[bytes], shared: dict[str, str] | None = None) -> Iterator[dict[str, Any]]:
    """The answers of a reduced file's lines; the SHARED_FIELDS' equal values as one string
    (kept in `shared` across the files of one read)."""
    known: dict[str, str] = {} if shared is None else shared
    for line in lines:
        answer = json.loads(line)
        for name in SHARED_FIELDS:
            value = answer.get(name)
            if isinstance(value, str):
                answer[name] = known.setdefault(value, value)
        yield answer


class CompactAnswers(Collection[CalibrationAnswer]):
    """Answers as the fit holds them while it reads: one slots record each (CalibrationAnswer:
    the CALIBRATION_FIELDS, others are not kept) instead of the dict JSON gives - under half the
    memory, and the answers as read are most of what bounds how many answers one fit holds
    (bench/calibration_scale.py)."""

    def __init__(self, answers: Iterable[Mapping[str, Any]] = ()) -> None:
        self._rows: list[CalibrationAnswer] = []
        self.extend(answers)

    def extend(self, answers: Iterable[Mapping[str, Any]]) -> None:
        self._rows.extend(map(calibration_answer, answers))

    def __iter__(self) -> Iterator[CalibrationAnswer]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, answer: object) -> bool:
        return answer in self._rows


@dataclass
class ReducedAnswers:
    """What the fit read: the answers, the files and whether it read every file."""

    attempts: Collection[CalibrationAnswer]
    files: int
    complete: bool


def reduced_attempts(run: str, may_continue: Callable[[], bool]) -> ReducedAnswers:
    """Every compact answer of the run, file by file while `may_continue()` allows another file.
    `complete` is False when it stopped before the last file."""
    bucket, files = resource_name(EXPORT_BUCKET), 0
    read = CompactAnswers()
    shared: dict[str, str] = {}
    with storage_errors("refit files list"):
        pages = list(s3(TOOL).get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=_reduced_prefix(run)))
    keys = sorted(str(entry["Key"]) for page in pages for entry in page.get("Contents", []))
    for number, key in enumerate(keys):
        if number and not may_continue():
            return ReducedAnswers(read, files, complete=False)
        read.extend(reduced_answers(_lines(bucket, key), shared))
        files += 1
    return ReducedAnswers(read, files, complete=True)
