"""The reviewer page's item analysis view (functions/web/static/review.html + review.js), without a
browser: its controls are labelled uniquely, its sortable columns are the API's, and its texts
reach the page as text only."""

import re
import typing
from html.parser import HTMLParser

from slea.contracts.item_analysis import SortColumn
from slea_local import REPO_ROOT

STATIC = REPO_ROOT / "functions" / "web" / "static"


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.label_targets: list[str] = []
        self.controls: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.append(attributes["id"])
        if tag == "label" and attributes.get("for"):
            self.label_targets.append(attributes["for"])
        if tag in ("select", "input") and attributes.get("id"):
            self.controls.append((tag, attributes["id"]))


def _page() -> _Elements:
    parsed = _Elements()
    parsed.feed((STATIC / "review.html").read_text(encoding="utf-8"))
    return parsed


def test_the_item_analysis_view_has_uniquely_labelled_filters_and_a_table():
    page = _page()
    assert len(page.ids) == len(set(page.ids)), "ids must be unique (labels point at them)"
    assert set(page.label_targets) <= set(page.ids)
    assert len(page.label_targets) == len(set(page.label_targets))
    assert {"items", "tab-items", "items-table", "items-head", "items-rows", "items-more", "items-status"} <= set(
        page.ids
    )
    filters = {"items-category", "items-type"}
    assert filters <= set(page.label_targets)  # each select has its visible label
    html = (STATIC / "review.html").read_text(encoding="utf-8")
    assert re.search(
        r'<label class="check"><input id="items-flagged" type="checkbox"> '
        r'<span data-i18n="desk.items.flagged_only">Flagged items only</span></label>',
        html,
    )
    assert "<caption" in html.split('id="items-table"')[1].split("</table>")[0]


def test_the_page_sorts_by_the_apis_columns_and_asks_the_api_for_each_listing():
    script = (STATIC / "review.js").read_text(encoding="utf-8")
    columns = re.findall(r'^\s*\["(\w+)", "[^"]+", ', script, re.MULTILINE)
    assert set(columns) <= set(typing.get_args(SortColumn))
    assert {"b", "se", "answers", "facility", "discrimination", "infit", "outfit", "exposure", "label"} <= set(columns)
    assert "/review/items?" in script
    assert 'query.set("flagged", "true")' in script
    assert "aria-sort" in script


def test_the_page_puts_api_text_in_as_text_never_as_markup():
    for name in ("review.js", "common.js"):
        script = (STATIC / name).read_text(encoding="utf-8")
        assert "innerHTML" not in script
        assert "insertAdjacentHTML" not in script
        assert "outerHTML" not in script
