"""The level panel's words agree with its numbers and are in the learner's language: the trend
says "steady" ("변화 없음") only when the two printed estimates are the same number; a smaller move
than the steady band is said as slight, with its size ("-1.7 → -1.8" is "0.1 소폭 하락", never "변화
없음"); every level word the API sends has a Korean form, so "지금 기술 수준: novice" cannot be
printed. Runs the page's own learner.js and i18n.js in Node."""

import pytest

from slea.measurement.scale import LEVELS
from tests.unit.web.learner_js import run_in_node

MINUS = "\u2212"

_HARNESS = r"""
const vm = require("vm");
const fs = require("fs");
const context = { document: { addEventListener() {} }, Slea: {} };
vm.createContext(context);
const i18n = fs.readFileSync(process.argv[1].replace(/learner\.js$/, "i18n.js"), "utf8");
vm.runInContext(i18n + "\n" + fs.readFileSync(process.argv[1], "utf8")
  + "\n;globalThis.SleaAbility = SleaAbility; globalThis.I18n = SleaI18n;", context);
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const out = {};
for (const language of ["en", "ko"]) {
  context.I18n.set(language);
  out[language] = {
    trends: input.histories.map((history) => {
      const tree = context.SleaAbility.chart(history, "technical", "c");
      return tree.trend;
    }),
    levels: input.levels.map((level) => {
      const words = context.SleaAbility.describe({ category: "technical", theta: 0, se: 0.5, level, answers: 3 });
      const summary = context.I18n.t("summary.level", { category: words.category, level: words.level });
      return { level: words.level, summary };
    }),
  };
}
process.stdout.write(JSON.stringify(out));
"""


def _history(thetas):
    return [
        {"at": f"2026-11-26T10:{n:02d}:00Z", "category": "technical", "theta": theta, "se": 0.4, "answers": n}
        for n, theta in enumerate(thetas, start=1)
    ]


def _run(histories=(), levels=()):
    return run_in_node(_HARNESS, {"histories": [_history(thetas) for thetas in histories], "levels": list(levels)})


@pytest.mark.parametrize(
    ("thetas", "direction", "english", "korean"),
    [
        (
            [-1.7, -1.8],
            "slightly_down",
            f"Slightly down (0.1) over your last answer (from {MINUS}1.7 to {MINUS}1.8).",
            f"마지막 답 1개 동안 0.1 소폭 하락 ({MINUS}1.7 → {MINUS}1.8).",
        ),
        (
            [0.2, 0.3, 0.35],
            "slightly_up",
            "Slightly up (0.1) over your last 2 answers (from 0.2 to 0.3).",  # 0.35 prints as 0.3
            "마지막 답 2개 동안 0.1 소폭 상승 (0.2 → 0.3).",
        ),
        (
            [-1.04, -0.96],
            "steady",
            f"Steady over your last answer (from {MINUS}1.0 to {MINUS}1.0).",
            f"마지막 답 1개 동안 변화 없음 ({MINUS}1.0 → {MINUS}1.0).",
        ),
        (
            [-1.6, -1.0],
            "up",
            f"Up 0.6 over your last answer (from {MINUS}1.6 to {MINUS}1.0).",
            f"마지막 답 1개 동안 0.6 상승 ({MINUS}1.6 → {MINUS}1.0).",
        ),
    ],
)
def test_the_trend_word_agrees_with_the_numbers_shown_in_both_languages(thetas, direction, english, korean):
    shown = _run(histories=[thetas])
    assert shown["en"]["trends"][0]["direction"] == direction
    assert shown["en"]["trends"][0]["text"] == english
    assert shown["ko"]["trends"][0]["text"] == korean


def test_no_change_is_said_only_when_the_printed_numbers_are_equal():
    # Every pair of consecutive estimates a tenth apart or less, in both directions.
    pairs = [[round(a / 100, 2), round(b / 100, 2)] for a in range(-250, 251, 7) for b in (a - 9, a + 4, a + 11)]
    shown = _run(histories=pairs)
    for language in ("en", "ko"):
        for trend in shown[language]["trends"]:
            said_no_change = "Steady" in trend["text"] or "변화 없음" in trend["text"]
            printed = trend["text"].split("(from ")[-1] if language == "en" else trend["text"].rsplit("(", 1)[-1]
            start, end = printed.rstrip(").").replace(" to ", " → ").split(" → ")
            assert said_no_change == (start == end), trend["text"]


def test_every_level_word_is_translated_in_korean():
    levels = [word for word, _ in LEVELS]
    shown = _run(levels=levels)
    for level, entry in zip(levels, shown["ko"]["levels"], strict=True):
        assert entry["level"] != level, f"{level} has no Korean form"
        assert not any(english in entry["summary"] for english in levels), entry["summary"]
        assert entry["summary"].startswith("지금 기술 수준: ")
    assert [entry["level"] for entry in shown["en"]["levels"]] == levels
