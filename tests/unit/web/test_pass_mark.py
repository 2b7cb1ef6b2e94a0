"""The pages' pass mark is the grader's: a score shown as "correct from N" must be the score from
which the server marks an answer correct, or a learner would read 75 as wrong and be told right."""

import re

import pytest

from slea.constants import HIGH_SCORE_THRESHOLD
from slea_local import REPO_ROOT

STATIC = REPO_ROOT / "functions" / "web" / "static"


@pytest.mark.parametrize("page", ["learner.js", "review.js"])
def test_each_page_states_the_graders_pass_mark(page):
    found = re.findall(r"const PASS_MARK = (\d+);", (STATIC / page).read_text(encoding="utf-8"))
    assert found == [str(HIGH_SCORE_THRESHOLD)]
