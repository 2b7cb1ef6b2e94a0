"""Rebuild `layers/slea/slea/grading/vector_background.json`: the mean of every token vector of
the WordLlama weights that `slea.grading.semantic` reads.

Why: mean-pooled static vectors share one large common direction, so any two English texts look
somewhat alike (a recipe and a networking answer reach cosine 0.1-0.2). Subtracting the
vocabulary's mean before the cosine ("all-but-the-top", Mu & Viswanath 2018, first step) spreads
unrelated texts apart from related ones. Computing that mean at run time costs about 0.8 s of pure
Python, so it is computed once here and checked against the weights' sha256 when loaded.

Usage (with the wordllama wheel installed or unpacked on PYTHONPATH, e.g. `pip install --no-deps
--target /tmp/wl wordllama==0.4.0.post1`):  PYTHONPATH=layers/slea:/tmp/wl python scripts/build_vector_background.py
"""

import hashlib
import json
from pathlib import Path

from slea.grading import semantic

OUTPUT = Path(semantic.__file__).with_name("vector_background.json")


def main() -> None:
    directory = semantic.package_directory()
    if directory is None:
        raise SystemExit("wordllama is not installed: see the usage line")
    raw = (directory / semantic.WEIGHTS).read_bytes()
    rows, width, count = semantic.read_safetensors(raw)
    mean = [sum(rows[column::width].tolist()) / count for column in range(width)]
    background = {
        "source": f"wordllama {semantic.WORDLLAMA_VERSION} {semantic.WEIGHTS.as_posix()} (MIT)",
        "sha256": hashlib.sha256(raw).hexdigest(),
        "mean": [round(value, 7) for value in mean],
    }
    OUTPUT.write_text(json.dumps(background) + "\n", encoding="utf-8")
    print(f"wrote {OUTPUT} ({width} values from {count} rows)")


if __name__ == "__main__":
    main()
