"""What the memo stage of ``mc-tco report`` costs, old (``main``'s) against new, in one process.

:func:`mc_tco.report.memo.build_memo` of a results file (with ``--compare``, as the report
builds it) and :func:`mc_tco.report.memo.write_memo`, run in turn with the functions this
work changed as they are at a git revision (``--old``, default ``main``: each module's
source from ``git show``, its changed functions patched into today's package) and as they
are in this checkout. Printed: wall and CPU seconds (CPU: every thread of the process) of
each, the ratio, and whether the two memos are the same: every file byte for byte (the
date is fixed, so memo.md, the CSVs and the PNGs must match exactly).

Usage::

    python benchmarks/memo_stage.py                       # results/deepseek-v4.1-flash.nc
    python benchmarks/memo_stage.py --compare results/article.nc --repeat 2
    python benchmarks/memo_stage.py --no-old              # the new code only

The machine's load changes both columns (OpenBLAS's threads spin on a busy machine and
count as CPU), so old and new run in turn, ``--repeat`` times each, with the load average
printed on each line.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mc_tco.report.memo import build_memo, write_memo  # noqa: E402
from mc_tco.results.io import open_results  # noqa: E402

#: module -> the functions (or ``Class.method``) this work changed in it
CHANGED = {
    "mc_tco.decision.regression": ["_penalised_fit"],
    "mc_tco.report.memo.figures": ["_drop_missing_glyphs"],
    "mc_tco.decision.triggers": ["watch_triggers", "watch_trigger", "_recs"],
}


def _old_module(name: str, rev: str) -> types.ModuleType | None:
    path = name.replace(".", "/") + ".py"
    got = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{path}"],
                         capture_output=True, text=True)
    if got.returncode:
        return None
    mod = types.ModuleType(f"{name}_at_{rev}")
    sys.modules[mod.__name__] = mod  # a dataclass looks its module up there
    exec(compile(got.stdout, f"{rev}:{path}", "exec"), mod.__dict__)
    return mod


def _lookup(obj, dotted: str):
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
    return obj


def patches(rev: str) -> list[tuple[object, str, object, object]]:
    """``(owner, attribute, old, new)`` for every changed function found at ``rev``."""
    import importlib

    out = []
    for name, funcs in CHANGED.items():
        new_mod, old_mod = importlib.import_module(name), _old_module(name, rev)
        if old_mod is None:
            continue
        for dotted in funcs:
            owner_path, _, attr = dotted.rpartition(".")
            owner = _lookup(new_mod, owner_path) if owner_path else new_mod
            old = _lookup(old_mod, dotted)
            if owner is None or old is None:
                continue
            new = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
            out.append((owner, attr, old, new))
    return out


def apply(pairs, which: str) -> None:
    """Set every changed function to its ``which`` ("old" or "new") version, in its module
    and wherever a loaded module of the package imported it by name."""
    import importlib

    importlib.import_module("mc_tco.report.memo.sections")  # what the memo imports
    importlib.import_module("mc_tco.decision.why")
    for owner, attr, old, new in pairs:
        want, other = (old, new) if which == "old" else (new, old)
        setattr(owner, attr, want)
        for name, mod in list(sys.modules.items()):
            if name.startswith("mc_tco") and getattr(mod, attr, None) is other:
                setattr(mod, attr, want)


def run(results: str, compare: str | None, out: Path) -> tuple[dict, float, float, float, float]:
    """Build and write the memo: (files, build wall, build CPU, write wall, write CPU)."""
    ds = open_results(results)
    other = open_results(compare) if compare else None
    w, c = time.monotonic(), time.process_time()
    memo = build_memo(ds, compare=other, command="mc-tco report", created="2026-01-01",
                      paths={"results": results, "compare": compare or ""})
    bw, bc = time.monotonic() - w, time.process_time() - c
    w, c = time.monotonic(), time.process_time()
    write_memo(memo, out)
    ww, wc = time.monotonic() - w, time.process_time() - c
    return memo.files(), bw, bc, ww, wc


def main() -> None:
    """Time old against new and print the figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("results", nargs="?", default=str(ROOT / "results/deepseek-v4.1-flash.nc"))
    p.add_argument("--compare", default=str(ROOT / "results/article.nc"),
                   help="second results file ('' for none)")
    p.add_argument("--old", default="main", help="git revision of the old code")
    p.add_argument("--no-old", action="store_true", help="time the new code only")
    p.add_argument("--repeat", type=int, default=1)
    a = p.parse_args()
    pairs = [] if a.no_old else patches(a.old)
    if not a.no_old:
        print(f"old = {a.old}: " + ", ".join(f"{getattr(o, '__name__', o)}.{n}"
                                              for o, n, _, _ in pairs))
    got: dict[str, list] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.repeat):
            for which in (("new",) if a.no_old else ("old", "new")):
                apply(pairs, which)
                files, bw, bc, ww, wc = run(a.results, a.compare or None,
                                            Path(tmp) / f"{which}{r}")
                got[which].append((files, bw, bc, ww, wc))
                print(f"{which}: build_memo wall {bw:6.1f} s  CPU {bc:6.1f} s | write_memo "
                      f"wall {ww:4.2f} s  CPU {wc:4.2f} s | load "
                      f"{os.getloadavg()[0]:.1f}", flush=True)
        apply(pairs, "new")
    if a.no_old:
        return
    best = {k: min(v, key=lambda t: t[2]) for k, v in got.items()}
    print(f"build_memo CPU old/new {best['old'][2] / best['new'][2]:.2f}x, wall "
          f"{best['old'][1] / best['new'][1]:.2f}x (best of {a.repeat})")
    old_files, new_files = got["old"][0][0], got["new"][0][0]
    differ = sorted(k for k in old_files.keys() | new_files.keys()
                    if old_files.get(k) != new_files.get(k))
    print("the memos: " + ("identical, every file byte for byte" if not differ
                           else f"{len(differ)} files differ: {', '.join(differ)}"))


if __name__ == "__main__":
    main()
