"""How close two texts are in meaning: the cosine of their mean-pooled static word vectors
(WordLlama `l2_supercat_256`, MIT: the token embeddings of several large language models
distilled into 32,000 x 256 half-precision vectors, with Llama 2's tokenizer).

Why this model and this way of loading it:
- The weights (16 MB) and the tokenizer (1.8 MB) ship inside the `wordllama` wheel, so nothing is
  ever downloaded: the files are found where pip put the package (`importlib.util.find_spec`,
  which locates a package without running it). `import wordllama` itself is avoided: it
  configures the root logger, needs numpy and imports requests, and its own loader looks for the
  tokenizer in a directory the wheel does not have (it would then try huggingface.co).
- Its inference is a lookup and a mean, so it is done here in pure Python: the safetensors header
  is JSON, the rows are read through `memoryview.cast("e")` (IEEE half precision), and the
  `tokenizers` library splits the text exactly as the vectors were trained.
- Mean-pooled static vectors share one large common direction (any two English texts reach
  cosine 0.1-0.2), so the vocabulary's mean vector is subtracted before the cosine (precomputed
  in `vector_background.json` by scripts/build_vector_background.py, checked against the
  weights' sha256): unrelated texts then fall near 0 and a casual correct paraphrase that shares
  no word with the reference stays above 0.3 (bench/semantic_signal.py).
- The vocabulary holds about 111 Hangul syllables; any other Korean text falls back to byte
  tokens that carry no meaning (measured: a Korean reference is as close to another question's
  reference, 0.91, as to its correct paraphrases). So only the Latin-script part of a text is
  embedded (terms such as "RAG" or "TCP" inside a Korean answer); a text without a Latin word has
  no vector, and `similarity` returns None.

Loaded on the first call, never at import: the layer's cold start pays nothing for it.
"""

import hashlib
import json
import math
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

PACKAGE = "wordllama"  # the wheel that carries the files; never imported
WORDLLAMA_VERSION = "0.4.0.post1"  # the files' source (layers/slea/requirements-files.in pins it)
WEIGHTS = Path("weights") / "l2_supercat_256.safetensors"
TOKENIZER = Path("tokenizers") / "l2_supercat_tokenizer_config.json"
TENSOR = "embedding.weight"
# Latin-script words: letters of the Latin alphabets (with accents) and digits. The vectors know
# nothing of other scripts; everything else is left out before tokenising.
LATIN_WORD = re.compile(r"[0-9A-Za-z\u00c0-\u024f][0-9A-Za-z\u00c0-\u024f'\u2019.+#-]*")
HAS_LETTER = re.compile(r"[A-Za-z\u00c0-\u024f]")
BACKGROUND = Path(__file__).with_name("vector_background.json")
CACHED_TEXTS = 2048  # references, stems and keywords repeat for every answer to a question


@dataclass(frozen=True)
class _Vectors:
    rows: memoryview  # flat, half precision: row i is rows[i * width : (i + 1) * width]
    width: int
    count: int
    background: tuple[float, ...]  # the vocabulary's mean vector, subtracted before comparing
    tokenizer: Any  # tokenizers.Tokenizer, imported only when first needed


def package_directory() -> Path | None:
    spec = find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def read_safetensors(raw: bytes) -> tuple[memoryview, int, int]:
    """The one F16 [count, width] tensor of a safetensors file, as a flat half-precision memoryview."""
    header_length = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8 : 8 + header_length])
    tensor = header[TENSOR]
    if tensor["dtype"] != "F16" or len(tensor["shape"]) != 2:
        raise ValueError(f"{TENSOR}: expected a 2-d F16 tensor, found {tensor['dtype']} {tensor['shape']}")
    count, width = tensor["shape"]
    start, end = (8 + header_length + offset for offset in tensor["data_offsets"])
    return memoryview(raw)[start:end].cast("e"), width, count  # type: ignore[call-overload]


@cache
def _vectors() -> _Vectors | None:
    directory = package_directory()
    if directory is None or not (directory / WEIGHTS).is_file() or not (directory / TOKENIZER).is_file():
        return None
    try:  # a compiled library, imported only when first needed (typed only where it is installed)
        from tokenizers import Tokenizer  # type: ignore[import-not-found,unused-ignore]  # noqa: PLC0415
    except ImportError:  # grading goes on without the semantic signal: nothing is dismissed on it
        return None

    raw = (directory / WEIGHTS).read_bytes()
    background = json.loads(BACKGROUND.read_text(encoding="utf-8"))
    if hashlib.sha256(raw).hexdigest() != background["sha256"]:
        raise ValueError(f"{WEIGHTS} is not the file {BACKGROUND.name} was computed from: rebuild it")
    rows, width, count = read_safetensors(raw)
    return _Vectors(rows, width, count, tuple(background["mean"]), Tokenizer.from_file(str(directory / TOKENIZER)))


def available() -> bool:
    """Whether the vectors are installed (loads them on the first call)."""
    return _vectors() is not None


def latin_part(text: str) -> str:
    """The Latin-script words of a text, in order: the part the vectors can read."""
    return " ".join(LATIN_WORD.findall(text))


@lru_cache(maxsize=CACHED_TEXTS)
def _unit_vector(text: str) -> tuple[float, ...] | None:
    """The mean of the text's token vectors less the background, scaled to length 1; None when
    nothing is readable."""
    vectors = _vectors()
    readable = latin_part(text)
    if vectors is None or not HAS_LETTER.search(readable):
        return None
    encoding = vectors.tokenizer.encode(readable, add_special_tokens=False)
    ids = [token for token in encoding.ids if 0 <= token < vectors.count]
    if not ids:
        return None
    width, rows = vectors.width, vectors.rows
    total = [0.0] * width
    for token in ids:
        total = list(map(float.__add__, total, rows[token * width : (token + 1) * width].tolist()))
    centred = [value / len(ids) - mean for value, mean in zip(total, vectors.background, strict=True)]
    length = math.sqrt(math.sumprod(centred, centred))
    return tuple(value / length for value in centred) if length else None


def similarity(a: str, b: str) -> float | None:
    """Cosine (-1..1) of the two texts' mean word vectors (background removed), over their
    Latin-script words; None when either has none or the vectors are not installed."""
    first, second = _unit_vector(a), _unit_vector(b)
    if first is None or second is None:
        return None
    return math.sumprod(first, second)
