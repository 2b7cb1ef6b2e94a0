"""Pydantic v2 contracts of the six tools, the pipeline, the HTTP API and errors.

One module per contract family; import the one you need (this package imports nothing eagerly).
"""
