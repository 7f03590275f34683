"""Text reading against input size: time and peak memory for hostile and ordinary text.

    python benchmarks/parse_scaling.py                      # 0.125 to 1 MB (the default max_text_bytes)
    python benchmarks/parse_scaling.py --quick              # 50 to 200 kB
    python benchmarks/parse_scaling.py --sizes 100000,1000000 --families open_keys,citations

For each family of text and each size: the time of one ``parse_json_text`` call
(wall and CPU seconds, best of ``--repeat``), CPU microseconds per kB, the peak
traced memory (a second call under ``tracemalloc``), and the outcome (flags of
the value read, or the typed error and the limit that stopped it). All limits
are the defaults except ``max_text_bytes`` (raised to the size, so the scan
itself is measured) and, for ``deep_lists``, ``max_depth``. Linear time shows
as a flat us/kB column; ``slope`` is log(t_last / t_first) / log(n_last /
n_first) of the CPU times (1.0 = linear). The floor rows are ``json.loads`` of
a valid document of the same size in the same process, so the numbers can be
compared across machines and loads. The last rows use the default limits.
"""

from __future__ import annotations

import argparse
import json
import math
import time
import tracemalloc

from pydantic_aligner import LimitError, ParseError, parse_json_text


def _records(n: int) -> str:
    """A JSON array of small records, about ``n`` characters."""
    items = (f'{{"id": {i}, "name": "item {i}", "tags": ["a", "b"], "price": {i}.5, "ok": true}}' for i in range(max(1, n // 75)))
    return "[" + ", ".join(items) + "]"


FAMILIES = {
    # the ones named in issue 11
    "open_braces": lambda n: "{" * n,
    "open_keys": lambda n: '{"a' * (n // 3),
    "prose_braces": lambda n: "word {x} and {y: 1} " * (n // 20),
    "trailing_commas": lambda n: "[" + "1, " * (n // 3) + "]",
    "deep_lists": lambda n: "[" * (n // 2) + "]" * (n // 2),
    "citations_then_answer": lambda n: "".join(f"See [{i}]. " for i in range(n // 11)) + 'Answer: {"a": 1}',
    "links_then_answer": lambda n: "".join(f"[source {i}](https://example.org/{i}) " for i in range(n // 36)) + '{"a": 1}',
    "big_ints": lambda n: "x [" + ",".join("9" * 19_999 for _ in range(max(1, n // 20_000))) + "]",
    # more shapes: the cheapest values and the cheapest broken attempts the scan must look at
    "empty_arrays": lambda n: "[]" * (n // 2),
    "broken_arrays": lambda n: "[1x" * (n // 3),
    "broken_objects": lambda n: '{"a":x' * (n // 6),
    "open_lists": lambda n: "[ [ [ [ x " * (n // 10),
    "quotes": lambda n: '"' * n + ' {"a": 1}',
    "unclosed_array": lambda n: "[1," * (n // 3),
    "missing_commas": lambda n: "[" + "".join(f'{{"i": {i}}} ' for i in range(n // 10)) + "]",
    "reasoning_then_answer": lambda n: "<think>\n" + "Maybe {\"x\": 3}? [1] " * (n // 21) + "\n</think>\n" + '{"x": 1}',
    # ordinary text
    "prose_json": lambda n: "Here is the result:\n" + _records(n) + "\nAnything else?",
    "fenced_json": lambda n: "Sure!\n```json\n" + _records(n) + "\n```",
    "truncated_json": lambda n: "Answer: " + _records(n)[: n - 20],
}


def outcome(text: str, **options) -> str:
    try:
        parsed = parse_json_text(text, **options)
    except (LimitError, ParseError) as e:
        return f"{type(e).__name__}({getattr(e, 'limit', '')})".replace("()", "")
    return "value " + ",".join(sorted(parsed.flags)) if parsed.flags else "value"


def timed(fn, repeat: int) -> tuple[float, float]:
    """Best wall time and best CPU time of ``repeat`` calls (CPU time is what a loaded machine does not inflate)."""
    wall = cpu = math.inf
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall, cpu = min(wall, time.perf_counter() - t), min(cpu, time.process_time() - c)
        if wall > 2:
            break
    return wall, cpu


def peak(fn) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="125000,250000,500000,1000000")
    ap.add_argument("--quick", action="store_true", help="sizes 50, 100 and 200 kB")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    sizes = [50_000, 100_000, 200_000] if args.quick else [int(s) for s in args.sizes.split(",")]

    print(f"{'family':24} {'size':>9} {'wall':>8} {'cpu':>8} {'us/kB':>8} {'peak MB':>8}  outcome")
    for n in sizes:
        doc = _records(n)
        t, c = timed(lambda: json.loads(doc), args.repeat)
        mem = peak(lambda: json.loads(doc))
        print(f"{'floor: json.loads':24} {len(doc) / 1e6:8.3f}M {t:7.3f}s {c:7.3f}s {c * 1e6 / (len(doc) / 1e3):8.1f} {mem:8.0f}")
    for name in args.families.split(","):
        points = []
        for n in sizes:
            text = FAMILIES[name](n)
            options = {"max_text_bytes": max(len(text.encode()), 1)}
            if name == "deep_lists":
                options["max_depth"] = n
            t, c = timed(lambda: outcome(text, **options), args.repeat)
            mem = peak(lambda: outcome(text, **options))
            points.append((len(text), c))
            kb = len(text) / 1e3
            print(f"{name:24} {len(text) / 1e6:8.3f}M {t:7.3f}s {c:7.3f}s {c * 1e6 / kb:8.1f} {mem:8.0f}  {outcome(text, **options)}", flush=True)
        (n0, t0), (n1, t1) = points[0], points[-1]
        if len(points) > 1 and t0 > 1e-4 and t1 > 1e-4:
            print(f"{'':24} slope {math.log(t1 / t0) / math.log(n1 / n0):.2f}")
    for name, big in [("10 MB of {, defaults", "{" * 10_000_000), ("1 MB of {, defaults", "{" * 1_000_000), ("100 kB of {, defaults", "{" * 100_000)]:
        t, c = timed(lambda: outcome(big), 1)
        print(f"{name:24} {len(big) / 1e6:8.3f}M {t:7.3f}s {c:7.3f}s {'':8} {'':8}  {outcome(big)}")


if __name__ == "__main__":
    main()
