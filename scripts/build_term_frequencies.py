"""Rebuild `layers/slea/slea/grading/term_frequencies.json.gz` from a wordfreq wheel.

The offline grader weights a word by how rare it is in general language (a rare word of the
reference carries its meaning; "the" carries none). wordfreq's "small" lists hold those
frequencies, but the package is 57 MB (too large for a Lambda layer), so this script keeps only
what the grader reads: English Snowball stems and Korean character bigrams, each with a Zipf
value (log10 of frequency per billion words). The data is CC BY-SA 4.0 (see the LICENCE file
beside the output).

Usage (msgpack is needed only here):  python scripts/build_term_frequencies.py wordfreq-3.1.1-py3-none-any.whl
"""

import gzip
import io
import json
import math
import re
import sys
import zipfile
from collections import defaultdict
from pathlib import Path

import msgpack  # type: ignore[import-not-found]
import snowballstemmer

OUTPUT = Path(__file__).resolve().parent.parent / "layers/slea/slea/grading/term_frequencies.json.gz"
HANGUL_RUN = re.compile("[\uac00-\ud7a3]+")
LATIN_RUN = re.compile(r"[^\W_\uac00-\ud7a3]+")


def buckets(wheel: zipfile.ZipFile, language: str) -> list[list[str]]:
    with wheel.open(f"wordfreq/data/small_{language}.msgpack.gz") as packed:
        data = msgpack.unpackb(gzip.decompress(packed.read()), raw=False)
    return list(data[1:])  # bucket i holds the words of frequency 10 ** (-(i + 1) / 100)


def frequencies(wheel: zipfile.ZipFile, language: str) -> dict[str, float]:
    return {word: 10 ** (-(index + 1) / 100) for index, words in enumerate(buckets(wheel, language)) for word in words}


def zipf(frequency: float) -> float:
    return round(math.log10(frequency) + 9, 2)


def english_stems(words: dict[str, float]) -> dict[str, float]:
    stemmer = snowballstemmer.stemmer("english")
    totals: dict[str, float] = defaultdict(float)
    for word, frequency in words.items():
        for run in LATIN_RUN.findall(word):
            totals[stemmer.stemWord(run.casefold())] += frequency
    return {stem: zipf(frequency) for stem, frequency in totals.items()}


def korean_bigrams(words: dict[str, float]) -> dict[str, float]:
    totals: dict[str, float] = defaultdict(float)
    for word, frequency in words.items():
        for run in HANGUL_RUN.findall(word):
            grams = {run[i : i + 2] for i in range(len(run) - 1)} or {run}
            for gram in grams:
                totals[gram] += frequency
    return {gram: zipf(frequency) for gram, frequency in totals.items()}


def main(wheel_path: str) -> None:
    with zipfile.ZipFile(wheel_path) as wheel:
        document = {
            "source": f"wordfreq small lists ({Path(wheel_path).name}), CC BY-SA 4.0",
            "en_stems": english_stems(frequencies(wheel, "en")),
            "ko_bigrams": korean_bigrams(frequencies(wheel, "ko")),
        }
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as compressed:
        compressed.write(json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode())
    OUTPUT.write_bytes(buffer.getvalue())
    print(f"{OUTPUT}: {len(document['en_stems'])} stems, {len(document['ko_bigrams'])} bigrams")


if __name__ == "__main__":
    main(sys.argv[1])
