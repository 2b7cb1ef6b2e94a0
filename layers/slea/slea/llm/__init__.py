"""The LLM layer: one small interface (`provider.LLMProvider`), two providers (Gemini through
google-genai, and a deterministic offline one), prompts as data, and per-call EMF metrics."""
