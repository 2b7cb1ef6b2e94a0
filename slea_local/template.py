"""Reading template.yaml: CloudFormation's short-form tags, resources by type, intrinsic functions."""

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from slea_local import REPO_ROOT

TEMPLATE_PATH = REPO_ROOT / "template.yaml"


class _CloudFormationLoader(yaml.SafeLoader):
    """SafeLoader that turns `!Ref X` into {"Ref": "X"}, `!GetAtt A.B` into {"Fn::GetAtt": ["A", "B"]}, ..."""


def _intrinsic(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    name = "Ref" if suffix == "Ref" else f"Fn::{suffix}"
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
        if suffix == "GetAtt":
            value = value.split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {name: value}


_CloudFormationLoader.add_multi_constructor("!", _intrinsic)


@dataclass(frozen=True)
class Template:
    document: dict[str, Any]

    @property
    def resources(self) -> dict[str, dict[str, Any]]:
        resources: dict[str, dict[str, Any]] = self.document["Resources"]
        return resources

    def of_type(self, resource_type: str) -> dict[str, dict[str, Any]]:
        return {name: spec for name, spec in self.resources.items() if spec["Type"] == resource_type}

    @property
    def function_globals(self) -> dict[str, Any]:
        globals_: dict[str, Any] = self.document.get("Globals", {}).get("Function", {})
        return globals_

    def literal_environment(self, function_logical_id: str) -> dict[str, str]:
        """The function's environment variables that the template spells out (Globals' merged with
        its own, as SAM does); those made of intrinsic functions need a stack (slea_local.cloud)."""
        own = self.resources[function_logical_id]["Properties"].get("Environment", {}).get("Variables", {})
        variables = {**self.function_globals.get("Environment", {}).get("Variables", {}), **own}
        return {name: str(value) for name, value in variables.items() if isinstance(value, (str, int, float))}

    def parameter_defaults(self) -> dict[str, str]:
        return {name: str(spec.get("Default", "")) for name, spec in self.document.get("Parameters", {}).items()}


def parse_template(text: str) -> dict[str, Any]:
    """A CloudFormation template's text (YAML with short-form tags, or JSON) as long-form data."""
    document: dict[str, Any] = yaml.load(text, Loader=_CloudFormationLoader)  # noqa: S506
    return document


def load_template(path: Path = TEMPLATE_PATH) -> Template:
    return Template(parse_template(path.read_text(encoding="utf-8")))


@cache
def repository_template() -> Template:
    return load_template()
