"""Korean typography on a phone: a Korean learner goes through sign-in, a round and its feedback
at 390 x 844, and on every screen no Hangul word is split across two lines (word-break: keep-all)
and nothing is wider than the screen (overflow-wrap: anywhere still wraps a long URL or word)."""

from typing import Any

from tests.browser.conftest import PHONE
from tests.browser.learner_steps import answer_on_screen, shot, sign_in_as

KOREAN_LEARNER = "576f24fe-bc2d-4d30-aed1-51a1dd76449c"  # 데이터 사이언티스트, profile language ko

ANSWER = "잘 모르겠습니다. 데이터를 먼저 살펴봐야 할 것 같습니다. 가중치와 시퀀스를 다시 확인하겠습니다."

# Every maximal run of Hangul syllables in a rendered text node: its rectangles, one per line it
# lies on. A run whose rectangles have different tops is a word split across lines.
SPLIT_WORDS = """() => {
  const split = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode()); ) {
    const parent = node.parentElement;
    if (!parent || !parent.checkVisibility() || parent.closest("option, script")) continue;
    if (parent.getBoundingClientRect().width <= 1) continue; // visually hidden (a 1 px box for screen readers)
    for (const match of node.textContent.matchAll(/[\\uac00-\\ud7a3]+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = [...range.getClientRects()].filter((r) => r.width > 0).map((r) => r.top);
      if (tops.length && Math.max(...tops) - Math.min(...tops) > 1) split.push(match[0]);
    }
  }
  return split;
}"""


def _typeset(page: Any, where: str) -> int:
    """Checks the screen; returns how many Hangul runs it has (so a test sees it checked some)."""
    assert page.evaluate("document.documentElement.lang") == "ko", where
    assert page.evaluate(SPLIT_WORDS) == [], f"Korean words split across lines on {where}"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], f"{where} is wider than the phone"
    return page.evaluate("(document.body.innerText.match(/[\\uac00-\\ud7a3]+/g) || []).length")


def test_no_korean_word_is_split_across_lines_on_a_phone(server, korean_page):
    page = korean_page(PHONE)
    page.goto(server)
    page.wait_for_selector("#signin-as-field", state="visible")
    _typeset(page, "sign-in")
    sign_in_as(page, server, KOREAN_LEARNER)
    page.wait_for_selector("#start-form", state="visible")
    _typeset(page, "start")
    page.fill("#count", "2")
    page.click("#start-button")
    page.wait_for_selector("#question", state="visible", timeout=60_000)
    for number in range(2):
        assert _typeset(page, f"question {number + 1}") > 0
        answer_on_screen(page, ANSWER)
        assert _typeset(page, f"feedback {number + 1}") > 10
        shot(page, f"ko-typography-feedback-{number + 1}-phone")
        page.click("#next")
    page.wait_for_selector("#summary", state="visible")
    _typeset(page, "summary")
    page.click("#show-answers")
    page.wait_for_selector("#answers-list li.attempt")
    page.locator("#answers-list summary").first.click()
    _typeset(page, "history")
    shot(page, "ko-typography-history-phone")
