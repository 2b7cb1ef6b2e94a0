import pytest

from slea.llm.provider_choice import get_provider
from tests.integration.llm.gemini_stub import start_stub


@pytest.fixture(autouse=True)
def _fresh_provider():
    """The provider is chosen once per execution environment; each test is a new one."""
    get_provider.cache_clear()
    yield
    get_provider.cache_clear()


@pytest.fixture
def gemini(monkeypatch, cloud):
    """Gemini as the provider, served by the local stub; retries without real waiting."""
    stub, server = start_stub()
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.setenv("GEMINI_BASE_URL", stub.url)
    monkeypatch.setenv("LLM_RETRY_INITIAL_DELAY", "0.01")
    monkeypatch.setenv("LLM_TIMEOUT_SECONDS", "2")
    yield stub
    server.shutdown()


DEMO_USER = "550e8400-e29b-41d4-a716-446655440000"


@pytest.fixture
def round_input(seeded):
    """generate_questions' input built by running Tools 1-3 on the demo seed."""

    def build(difficulty=7, category="technical", **changes):
        profile = seeded.invoke("get_user_profile", {"user_id": DEMO_USER})
        templates = seeded.invoke(
            "search_question_templates",
            {"interests": profile["interests"], "difficulty": difficulty, "category": category},
        )
        keywords = seeded.invoke("get_difficulty_keywords", {"difficulty": difficulty, "category": category})
        return {
            "profile": profile,
            "templates": templates,
            "keywords": keywords,
            "session_id": "sess_test",
            "round": 1,
            "difficulty": difficulty,
            "category": category,
            **changes,
        }

    return build
