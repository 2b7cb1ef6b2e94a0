"""slea: the shared layer of slea-ssem serverless, one package per capability (docs/architecture.md).

Imports go downwards only: http > tools > logic > llm > feedback > authoring > security > dal >
grading > measurement > language > contracts > platform > constants (import-linter enforces it).
Deliberately empty: each handler imports only the submodules it needs, to keep cold starts cheap.
"""
