"""Names of AWS resources, read from the environment that template.yaml gives each function."""

import os


def resource_name(variable: str) -> str:
    """The value of `variable`, failing loudly if the function was deployed without it."""
    value = os.environ.get(variable, "").strip()
    if not value:
        raise RuntimeError(f"environment variable {variable} is not set; template.yaml must set it for this function")
    return value
