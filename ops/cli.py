"""What the operator commands (slea-retry-queue, slea-seed) share: the AWS region and stack they
act on, and one-line errors with an exit code instead of tracebacks. Not used by the functions.

Region: `--region`, else AWS_REGION / AWS_DEFAULT_REGION, else samconfig.toml's `region` (the
one `sam deploy` used), else the AWS profile's. Stack: `--stack`, else SLEA_STACK, else
samconfig.toml's `stack_name`. samconfig.toml is read from the working directory, else from the
checkout this package lives in.
"""

import argparse
import os
import sys
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, NoRegionError

# Exit codes: 2 = the command cannot run as configured (no region, credentials or stack);
# 1 = AWS or the input refused the request.
EXIT_CONFIG = 2
EXIT_FAILED = 1

SAMCONFIG_CANDIDATES = [Path.cwd() / "samconfig.toml", Path(__file__).resolve().parents[1] / "samconfig.toml"]


class CommandError(Exception):
    """A failure the operator can act on: printed as one line, exits with `code`."""

    def __init__(self, message: str, code: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.code = code


def samconfig_value(key: str, candidates: list[Path] | None = None) -> str | None:
    """`key` from the first samconfig.toml found: [default.global.parameters] first, then the
    deploy command's parameters (where `sam deploy --guided` writes the region)."""
    for path in SAMCONFIG_CANDIDATES if candidates is None else candidates:
        if not path.is_file():
            continue
        try:
            config = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError):
            continue
        default = config.get("default", {})
        for command in ("global", "deploy"):
            value = default.get(command, {}).get("parameters", {}).get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
        return None
    return None


def resolve_region(
    explicit: str | None, environ: Mapping[str, str] | None = None, candidates: list[Path] | None = None
) -> str | None:
    """The region to use, or None to leave it to the AWS profile."""
    environ = os.environ if environ is None else environ
    for value in (explicit, environ.get("AWS_REGION"), environ.get("AWS_DEFAULT_REGION")):
        if value and value.strip():
            return value.strip()
    return samconfig_value("region", candidates)


def resolve_stack(explicit: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    environ = os.environ if environ is None else environ
    return explicit or environ.get("SLEA_STACK") or samconfig_value("stack_name")


def argument_parser(prog: str, doc: str | None, epilog_from: str = "\n(") -> argparse.ArgumentParser:
    """A command's parser from its module docstring: the text before `epilog_from` is the usage
    shown above the options, the rest (from `epilog_from` on) the epilog below them, both as written."""
    usage, found, about = (doc or "").partition(epilog_from)
    return argparse.ArgumentParser(
        prog=prog,
        description=usage,
        epilog=found.lstrip("\n") + about,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def add_aws_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stack", help="CloudFormation stack name (default: SLEA_STACK, else samconfig.toml's stack_name)"
    )
    parser.add_argument(
        "--region", help="AWS region (default: AWS_REGION, AWS_DEFAULT_REGION, else samconfig.toml's region)"
    )


def use_region(explicit: str | None) -> None:
    """Make every boto3 client of this process use the resolved region."""
    region = resolve_region(explicit)
    if region:
        os.environ["AWS_REGION"] = os.environ["AWS_DEFAULT_REGION"] = region


def described_outputs(stack: str) -> dict[str, str]:
    """A deployed stack's outputs (template.yaml `Outputs`)."""
    import boto3  # noqa: PLC0415 - only when a command runs: `--help` and argument errors answer without it

    described = boto3.client("cloudformation").describe_stacks(StackName=stack)["Stacks"][0]
    return {output["OutputKey"]: output["OutputValue"] for output in described.get("Outputs", [])}


def stack_outputs(stack: str, wanted: Mapping[str, str]) -> dict[str, str]:
    """{name: output value} for each `name: output key` in `wanted`, or a CommandError naming
    the outputs the stack lacks."""
    outputs = described_outputs(stack)
    missing = sorted(key for key in wanted.values() if key not in outputs)
    if missing:
        raise CommandError(
            f"stack {stack} has no output {', '.join(missing)}: is it deployed from this template.yaml?", EXIT_CONFIG
        )
    return {name: outputs[key] for name, key in wanted.items()}


def _message(error: BaseException) -> tuple[str, int]:
    if isinstance(error, CommandError):
        return str(error), error.code
    if isinstance(error, NoRegionError):
        return "no AWS region: pass --region, set AWS_REGION, or deploy once (samconfig.toml keeps it)", EXIT_CONFIG
    if isinstance(error, NoCredentialsError):
        return "no AWS credentials: configure a profile (aws configure / aws sso login) or set AWS_PROFILE", EXIT_CONFIG
    if isinstance(error, ClientError):
        details: Any = error.response.get("Error", {})
        operation = getattr(error, "operation_name", "request")
        return f"AWS refused {operation}: {details.get('Code', '?')}: {details.get('Message', error)}", EXIT_FAILED
    if isinstance(error, BotoCoreError):
        return f"AWS request failed: {error}", EXIT_FAILED
    return f"{type(error).__name__}: {error}", EXIT_FAILED


def run(prog: str, command: Callable[[], int]) -> int:
    """Run `command`; an expected failure becomes `prog: error: <one line>` on stderr and its exit code."""
    try:
        return command()
    except (CommandError, BotoCoreError, ClientError, RuntimeError, ValueError, TypeError, OSError) as error:
        message, code = _message(error)
        print(f"{prog}: error: {' '.join(message.split())}", file=sys.stderr)
        return code
