"""Names of AWS resources, read from the environment that template.yaml gives each function."""

import os


def resource_name(variable: str) -> str:
    """The value of `variable`, failing loudly if the function was deployed without it."""
    value = os.environ.get(variable, "").strip()
    if not value:
        raise RuntimeError(f"environment variable {variable} is not set; template.yaml must set it for this function")
    return value


def stack_outputs(stack: str) -> dict[str, str]:
    """A deployed stack's outputs (template.yaml `Outputs`), for operator commands run outside Lambda."""
    import boto3  # noqa: PLC0415 - operator commands only, kept off the functions' cold start

    described = boto3.client("cloudformation").describe_stacks(StackName=stack)["Stacks"][0]
    return {output["OutputKey"]: output["OutputValue"] for output in described.get("Outputs", [])}
