"""A true/false statement's key checked against its record by Tool 4: keyed true, it states the
concept's definition or a key point; keyed false, it is checkably false. A neighbour's
characteristic said to hold for the concept ("'redundant power supplies and cooling systems' holds
for cloud computing", keyed False, though cloud computing runs on exactly such data centres) is
not: the record lists what holds, never what does not. The offline generator writes no such item."""

import json
import random
from pathlib import Path

import pytest

from slea.authoring.item_rules import (
    STATEMENT_CONTRADICTS_SOURCE,
    STATEMENT_NOT_CHECKABLY_FALSE,
    claims_a_characteristic,
    true_false_problems,
)
from slea.authoring.offline_generator import generate_offline
from slea.contracts.answers import truth_value
from slea.contracts.keywords import Concept
from slea.contracts.llm import ValidationItem
from slea.llm.offline.semantic_review import semantic_review
from tests.unit.authoring.test_offline_statements import request

pytestmark = pytest.mark.slow  # sweeps every record the offline generator writes from

CLOUD = Concept(
    name="Cloud Computing",
    acronym="",
    definition="On-demand delivery of servers, storage and networking over the internet from a remote provider,"
    " billed only for the resources actually used.",
    key_points=["on-demand resources over the internet", "pay-as-you-go pricing model", "elastic scaling up and down"],
)
REPORTED = 'True or False: "redundant power supplies and cooling systems" holds for cloud computing.'


def test_the_reported_item_is_rejected_by_tool_4():
    assert true_false_problems(REPORTED, "False", CLOUD) == [STATEMENT_NOT_CHECKABLY_FALSE]
    review = semantic_review(
        ValidationItem(index=0, stem=REPORTED, question_type="true_false", correct_answer="False", source=CLOUD)
    )
    assert review.score < 0.7  # the reject band
    assert STATEMENT_NOT_CHECKABLY_FALSE[1] in review.issues


@pytest.mark.parametrize(
    ("stem", "key", "problems"),
    [
        # The concept's own characteristic: the key must be True.
        ('True or False: "pay-as-you-go pricing model" holds for cloud computing.', "True", []),
        (
            'True or False: "pay-as-you-go pricing model" holds for cloud computing.',
            "False",
            [STATEMENT_CONTRADICTS_SOURCE],
        ),
        # Its own definition: True; another concept's definition as its own: checkably False.
        (f"True or False: cloud computing can be described as follows. {CLOUD.definition}", "True", []),
        (
            f"True or False: cloud computing can be described as follows. {CLOUD.definition}",
            "False",
            [STATEMENT_CONTRADICTS_SOURCE],
        ),
        (
            "True or False: cloud computing can be described as follows. A facility that houses large numbers of"
            " networked servers and storage systems together with the power and cooling equipment they need.",
            "False",
            [],
        ),
        (
            '참/거짓: "이중화된 전원과 냉각 장치"은(는) 클라우드 컴퓨팅에 해당한다.',
            "거짓",
            [STATEMENT_NOT_CHECKABLY_FALSE],
        ),
    ],
)
def test_a_true_false_key_must_agree_with_its_record(stem, key, problems):
    assert true_false_problems(stem, key, CLOUD) == problems


def test_the_frames_tell_a_characteristic_claim_from_a_definition():
    assert claims_a_characteristic(REPORTED)
    assert not claims_a_characteristic(
        f"True or False: cloud computing can be described as follows. {CLOUD.definition}"
    )


def test_the_offline_generator_writes_no_false_statement_its_record_cannot_show_false():
    seed = json.loads(Path("data/demo_seed.json").read_text(encoding="utf-8"))
    record = next(r for r in seed["keywords"] if any(c["name"] == "Cloud Computing" for c in r["concepts"]))
    concepts = [c for c in record["concepts"] if c.get("domain") == "Cloud" and c.get("language", "en") == "en"]
    assert len(concepts) > 2
    keyed = {True: 0, False: 0}
    for difficulty in (2, 5, 8):
        for seed_number in range(6):
            built = request(concepts, ["true_false"], difficulty, f"tf{seed_number}")
            for draft in generate_offline(built, built.count, random.Random(seed_number)):
                assert draft.source is not None
                assert true_false_problems(draft.stem, draft.correct_answer, draft.source) == [], draft.stem
                keyed[bool(truth_value(draft.correct_answer or ""))] += 1
    assert keyed[True]
    assert keyed[False]  # both keys are still written


@pytest.mark.parametrize(
    ("point", "key", "problems"),
    [
        ("pay-as-you-go pricing model", "True", []),  # its own point: sets it apart
        ("redundant power supplies and cooling systems", "False", []),  # a data center's, not its own
        ("pay-as-you-go pricing model", "False", [STATEMENT_CONTRADICTS_SOURCE]),
        ("redundant power supplies and cooling systems", "True", [STATEMENT_CONTRADICTS_SOURCE]),
    ],
)
def test_the_generators_key_point_frame_is_settled_by_the_records_either_way(point, key, problems):
    stem = f'True or False: "{point}" is one of the characteristics that set cloud computing apart.'
    assert not claims_a_characteristic(stem)
    assert true_false_problems(stem, key, CLOUD) == problems
