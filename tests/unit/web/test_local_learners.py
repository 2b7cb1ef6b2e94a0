"""The local sign-in's seeded learners: /config.json lists them under the local runtime
only, never with the identity provider's sign-in; and the learner page's message catalogue has
every key in both languages."""

import json
import re

from slea.constants import ANSWER_MAX_LENGTH
from slea_local import REPO_ROOT
from slea_local.runtime import load_function_module

STATIC = REPO_ROOT / "functions" / "web" / "static"
SEED = REPO_ROOT / "data" / "demo_seed.json"


def _config(monkeypatch, **environment):
    for name in ("SLEA_LOCAL_RUNTIME", "SLEA_LOCAL_SEED_FILE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    web = load_function_module("web")
    event = {"rawPath": "/config.json", "requestContext": {"http": {"method": "GET"}}, "headers": {}}
    return json.loads(web.serve(*web._request(event))["body"])


def test_the_local_runtime_offers_each_seeded_learner_once_with_the_latest_profile(monkeypatch):
    config = _config(monkeypatch, SLEA_LOCAL_RUNTIME="1", SLEA_LOCAL_SEED_FILE=str(SEED))
    assert config["mode"] == "local"
    learners = {learner["user_id"]: learner for learner in config["learners"]}
    profiles = json.loads(SEED.read_text(encoding="utf-8"))["profiles"]
    assert set(learners) == {profile["user_id"] for profile in profiles}
    assert learners["576f24fe-bc2d-4d30-aed1-51a1dd76449c"] == {
        "user_id": "576f24fe-bc2d-4d30-aed1-51a1dd76449c",
        "job_role": "데이터 사이언티스트",
        "language": "ko",
    }
    assert set(learners["550e8400-e29b-41d4-a716-446655440000"]) == {"user_id", "job_role", "language"}


def test_outside_the_local_runtime_no_learner_is_listed_even_with_a_seed_file(monkeypatch):
    config = _config(monkeypatch, SLEA_LOCAL_SEED_FILE=str(SEED))
    assert config["mode"] == "oauth"
    assert "learners" not in config


def test_both_languages_have_every_message_and_the_same_placeholders():
    import subprocess

    script = (STATIC / "i18n.js").read_text(encoding="utf-8")
    dump = "\n;process.stdout.write(JSON.stringify(SleaI18n.MESSAGES));"
    done = subprocess.run(["node", "-e", script + dump], capture_output=True, text=True, check=True, timeout=30)
    messages = json.loads(done.stdout)
    assert set(messages["en"]) == set(messages["ko"])
    for key, english in messages["en"].items():
        korean = messages["ko"][key]
        assert set(re.findall(r"\{(\w+)\}", korean)) <= set(re.findall(r"\{(\w+)\}", english)), key
        # Korean UI text has no English words (product names and "HTTP" aside).
        assert not re.search(r"[A-Za-z]", re.sub(r"slea-ssem|HTTP|\{\w+\}", "", korean)), key


def test_the_answer_box_states_the_servers_limit_and_does_not_cut_a_paste():
    page = (STATIC / "learner.html").read_text(encoding="utf-8")
    (box,) = re.findall(r"<textarea id=\"short-answer\"[^>]*>", page)
    assert f'data-max="{ANSWER_MAX_LENGTH}"' in box
    assert "maxlength" not in box
