"""A round that cannot be written in full from its own concept record: where the rest may come
from, and, when it still comes short, why (pure: the planner, the generation step and FinishRound
call it).

Filling. The bank is drawn first and for the whole round (logic/rounds/bank_draw.py, windows up to
a logit around the target), so what it could give is in already. What generation cannot write from
the (difficulty, category) concept record, because the session has tested its concepts (one item
per concept per session, security/exposure.py), it writes from the records of neighbouring
difficulties: nearest first, the easier before the harder at the same distance (a practice round
aims at a success rate; an easier item keeps to it, a harder one lowers it), and no further than
the bank's widest window, FILL_DISTANCE labels (a logit). Each such item keeps its own record's
label, so the learner and the learner model see its real difficulty. A difficulty set in the
request is kept: nothing is filled from other difficulties then.

Shortfall. When the round still has fewer items than asked, one reason is given, the first that
applies: the writer could not write what was asked in its last pass (the concept records, the
neighbours' included, hold too few concepts the session has not tested); drafts were rejected and
the regenerations ran out; Tool 5 refused to save some (they repeat items withdrawn from the bank);
else a generation or validation step failed.
"""

from slea.constants import DIFFICULTY_MAX, DIFFICULTY_MIN
from slea.contracts.pipeline import ShortfallReason

FILL_DISTANCE = 2  # labels: half a logit each, so the bank's widest window (bank_draw.WINDOWS[-1] = 1.0)


def fill_difficulties(label: int, set_in_request: bool) -> list[int]:
    """The difficulties whose concept records may fill a round aimed at `label`, in the order they
    are used; none when the request set the difficulty."""
    if set_in_request:
        return []
    order = [label + sign * distance for distance in range(1, FILL_DISTANCE + 1) for sign in (-1, 1)]
    return [other for other in order if DIFFICULTY_MIN <= other <= DIFFICULTY_MAX]


def shortfall_reason(
    requested: int, delivered: int, *, unwritten: int, rejected: int, refused: int
) -> ShortfallReason | None:
    """Why a round has `delivered` of `requested` items (None: it is whole). `unwritten`: drafts the
    writer could not write in its last pass; `rejected`: drafts rejected over the round; `refused`:
    accepted drafts Tool 5 would not save."""
    if delivered >= requested:
        return None
    if unwritten > 0:
        return "too_few_concepts"
    if rejected > 0:
        return "rejected"
    if refused > 0:
        return "not_saved"
    return "generation_failed"
