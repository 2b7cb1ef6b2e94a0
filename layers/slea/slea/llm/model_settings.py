"""LLM configuration from the environment (template.yaml parameters in AWS, shell locally)."""

import os
from typing import Literal

from pydantic import BaseModel, Field

from slea.constants import (
    LLM_DEFAULT_MODEL,
    LLM_MAX_OUTPUT_TOKENS,
    LLM_TEMPERATURE,
    LLM_TIMEOUT_SECONDS,
    LLM_TOP_P,
)


class LLMSettings(BaseModel):
    provider: Literal["auto", "gemini", "offline"] = "auto"
    model: str = LLM_DEFAULT_MODEL
    temperature: float = LLM_TEMPERATURE
    top_p: float = LLM_TOP_P
    max_output_tokens: int = LLM_MAX_OUTPUT_TOKENS
    timeout_seconds: float = LLM_TIMEOUT_SECONDS
    retry_attempts: int = Field(default=3, ge=1, description="total attempts on 408/429/5xx and timeouts")
    retry_initial_delay: float = Field(default=1.0, ge=0, description="seconds; doubles each retry, with jitter")
    base_url: str | None = Field(default=None, description="override the Gemini endpoint (tests, proxies)")
    api_key: str | None = Field(default=None, repr=False, description="GEMINI_API_KEY, for local runs")
    api_key_parameter: str | None = Field(default=None, description="SSM SecureString holding the key, in AWS")

    @classmethod
    def from_environment(cls) -> "LLMSettings":
        variables = {
            "provider": "LLM_PROVIDER",
            "model": "GEMINI_MODEL",
            "timeout_seconds": "LLM_TIMEOUT_SECONDS",
            "retry_attempts": "LLM_RETRY_ATTEMPTS",
            "retry_initial_delay": "LLM_RETRY_INITIAL_DELAY",
            "base_url": "GEMINI_BASE_URL",
            "api_key": "GEMINI_API_KEY",
            "api_key_parameter": "GEMINI_API_KEY_PARAMETER",
        }
        values = {field: os.environ[name] for field, name in variables.items() if os.environ.get(name, "").strip()}
        return cls.model_validate(values)

    @property
    def has_gemini_key(self) -> bool:
        return bool(self.api_key or self.api_key_parameter)

    @property
    def chosen_provider(self) -> Literal["gemini", "offline"]:
        if self.provider == "auto":
            return "gemini" if self.has_gemini_key else "offline"
        return self.provider
