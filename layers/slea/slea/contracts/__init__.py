"""Pydantic v2 contracts of the six tools, the pipeline and errors (spec 004, with 000 winning).

One module per contract family; import the one you need (this package imports nothing eagerly).
"""
