"""The layer ships bytecode (layers/slea/Makefile: compile-bytecode): /opt is read-only on Lambda,
so whatever the layer lacks is compiled again at every cold start. The bytecode must be used
even though the files' times change on their way into the layer's zip."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from slea_local import REPO_ROOT

LAYER = REPO_ROOT / "layers" / "slea"
HASH_BASED, CHECK_SOURCE = 0b01, 0b10  # the .pyc header's flags (PEP 552)


def _compile(target: Path) -> None:
    subprocess.run(
        [
            "make",
            "--no-print-directory",
            "-C",
            str(LAYER),
            "compile-bytecode",
            f"TARGET={target}",
            f"PYTHON={sys.executable}",
        ],
        check=True,
        capture_output=True,
    )


def test_the_layers_build_compiles_what_it_installed_and_copied() -> None:
    makefile = (LAYER / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("build-SleaLayer:", 1)[1].split("\n\n", 1)[0]
    steps = [line.strip() for line in recipe.splitlines() if line.startswith("\t")]
    # Last, once the libraries are installed and the package copied without its __pycache__.
    assert "compile-bytecode" in steps[-1]
    assert any(step.startswith('cp -R slea "$(TARGET)/"') for step in steps[:-1])
    assert "--no-compile" in makefile  # pip would compile for whatever interpreter runs it


def test_every_module_gets_unchecked_hash_bytecode(tmp_path: Path) -> None:
    shutil.copytree(LAYER / "slea", tmp_path / "slea", ignore=shutil.ignore_patterns("__pycache__"))
    _compile(tmp_path)
    sources = sorted(tmp_path.rglob("*.py"))
    assert len(sources) > 50
    for source in sources:
        compiled = source.parent / "__pycache__" / f"{source.stem}.{sys.implementation.cache_tag}.pyc"
        flags = int.from_bytes(compiled.read_bytes()[4:8], "little")
        assert flags == HASH_BASED, source  # hash-based, source never checked


def test_the_bytecode_is_used_whatever_the_sources_times(tmp_path: Path) -> None:
    package = tmp_path / "probe"
    package.mkdir()
    (package / "__init__.py").write_text("ORIGIN = 'compiled'\n", encoding="utf-8")
    _compile(tmp_path)
    # A zip keeps times to two seconds: the source now looks newer than what was compiled from it,
    # and differs (so a timestamp- or hash-checked .pyc would be compiled again from it).
    (package / "__init__.py").write_text("ORIGIN = 'source'\n", encoding="utf-8")
    os.utime(package / "__init__.py", (2_000_000_000, 2_000_000_000))
    output = subprocess.run(
        [sys.executable, "-c", "import probe; print(probe.ORIGIN)"],
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert output.stdout.strip() == "compiled"
