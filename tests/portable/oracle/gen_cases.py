#!/usr/bin/python3
"""Writes the PyTorch-oracle cases of every family (cases_*.py beside this file) into one file.

usage: gen_cases.py OUTPUT

Runs at build time under Debian's python3-torch (1.13.1). Each family module defines
`cases(g)` (g: oracle.Gen); its generator is seeded from the family's name, so the file is
the same on every run and machine.
"""
import importlib
import os
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import oracle  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_cases.py OUTPUT")
    torch.set_num_threads(1)
    families = sorted(f[len("cases_"):-3] for f in os.listdir(HERE)
                      if f.startswith("cases_") and f.endswith(".py"))
    lines = [f"# vkrt portable oracle cases: torch {torch.__version__}"]
    summary = []
    for family in families:
        module = importlib.import_module("cases_" + family)
        g = oracle.Gen(family, zlib.crc32(family.encode()))
        module.cases(g)
        lines.extend(g.lines)
        summary.append(f"{family}: {len(g.ops)} ops, {g.count} cases")
    tmp = sys.argv[1] + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, sys.argv[1])
    print("gen_cases: " + "; ".join(summary))


if __name__ == "__main__":
    main()
