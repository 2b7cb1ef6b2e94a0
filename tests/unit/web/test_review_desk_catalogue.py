"""The review desk's words (functions/web/static/review-i18n.js, on top of i18n.js): both languages
have every message with the same placeholders, the Korean text has no English words left in it, and
every key the page names (review.html's data-i18n, review.js's t/plural calls) exists."""

import json
import re
import subprocess

import pytest

from slea_local import REPO_ROOT

STATIC = REPO_ROOT / "functions" / "web" / "static"
# Latin letters a Korean message may hold: the product, a key's name, the statistics' symbols.
ALLOWED_LATIN = r"slea-ssem|HTTP|Enter|\bSE\b|\bb\b|\{\w+\}"


@pytest.fixture(scope="module")
def messages() -> dict[str, dict[str, str]]:
    script = (STATIC / "i18n.js").read_text(encoding="utf-8") + "\n" + (STATIC / "review-i18n.js").read_text("utf-8")
    dump = "\n;process.stdout.write(JSON.stringify(SleaI18n.MESSAGES));"
    done = subprocess.run(["node", "-e", script + dump], capture_output=True, text=True, check=True, timeout=30)
    return json.loads(done.stdout)


def test_both_languages_have_every_desk_message_and_the_same_placeholders(messages):
    desk = {key for key in messages["en"] if key.startswith("desk.")}
    assert len(desk) > 300
    assert desk == {key for key in messages["ko"] if key.startswith("desk.")}
    for key in desk:
        english, korean = messages["en"][key], messages["ko"][key]
        assert set(re.findall(r"\{(\w+)\}", korean)) == set(re.findall(r"\{(\w+)\}", english)), key
        assert not re.search(r"[A-Za-z]", re.sub(ALLOWED_LATIN, "", korean)), (key, korean)


def test_every_key_the_review_page_names_is_in_the_catalogue(messages):
    html = (STATIC / "review.html").read_text(encoding="utf-8")
    script = (STATIC / "review.js").read_text(encoding="utf-8")
    named = set(re.findall(r'data-i18n(?:-label|-title)?="([\w.]+)"', html))
    named |= set(re.findall(r'\b(?:t|plural|SleaI18n\.t)\("([\w.]+)"', script))
    plural = set(re.findall(r'\bplural\("([\w.]+)"', script)) | set(re.findall(r'SleaI18n\.plural\("([\w.]+)"', script))
    assert len(named) > 150
    for key in sorted(named):
        if key in plural:
            assert f"{key}.one" in messages["en"], key
            assert f"{key}.other" in messages["en"], key
        else:
            assert key in messages["en"], key
    # Keys built from a value the API names: every value has its words.
    for prefix, values in {
        "desk.why": ["grader_unavailable", "findings", "disagreement", "not_backed", "not_sure_enough", "second_look"],
        "desk.summary.meaning": ["close", "partly", "far"],
        "desk.seen": ["hard_right_easy_wrong", "right_where_keys_shown"],
        "desk.leans": ["correct", "wrong"],
    }.items():
        for value in values:
            assert f"{prefix}.{value}" in messages["en"], f"{prefix}.{value}"


def test_the_review_page_has_no_english_text_outside_the_catalogue():
    """Every element of review.html with words in it names its message (the language switch's
    own options aside, which name theirs too)."""
    html = (STATIC / "review.html").read_text(encoding="utf-8")
    body = html.split("<body>", 1)[1]
    for element in re.finditer(r"<(\w+)([^>]*)>([^<]*[A-Za-z][^<]*)<", body):
        tag, attributes, text = element.groups()
        if tag in ("kbd", "code", "script", "title"):
            continue
        assert "data-i18n" in attributes, f"<{tag}{attributes}>{text.strip()}"
