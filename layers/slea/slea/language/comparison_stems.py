"""Whether a question asks to compare two things ("how does X differ from Y", "X와 Y의 차이"): a
pattern only, so that what reads it (the learner's references, for one) loads no grading code."""

import re

COMPARISON_STEM = re.compile(
    r"\b(?:differ|differs|differing|difference|differences|different from|compare|compared|comparing|comparison"
    r"|contrast|contrasting|versus|vs\.?|distinguish|distinguishes)\b"
    r"|차이|비교|다른\s*점|다른가|다른지|다릅니|다르게|구별|대비",
    re.IGNORECASE,
)


def is_comparison(stem: str) -> bool:
    return bool(COMPARISON_STEM.search(stem))
