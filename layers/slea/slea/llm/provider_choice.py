"""Which provider serves this process: Gemini when a key is configured, else the offline one.

Kept apart from provider.py (the interface both providers implement): this module imports them,
they import the interface, and nothing imports back."""

from functools import cache

from slea.llm.model_settings import LLMSettings
from slea.llm.offline import OfflineProvider
from slea.llm.provider import LLMProvider


@cache
def get_provider() -> LLMProvider:
    """Gemini when a key is configured (or LLM_PROVIDER=gemini), else the offline provider.
    google-genai is imported only in the first case."""
    settings = LLMSettings.from_environment()
    if settings.chosen_provider == "gemini":
        from slea.llm.gemini import GeminiProvider  # noqa: PLC0415 - keeps google-genai off the offline path

        return GeminiProvider(settings)
    return OfflineProvider()
