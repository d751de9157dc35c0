#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
codes-check: the tool codes keep their type (tool.h's enum tool_code: TOOL_OK, TOOL_FAIL,
TOOL_USAGE, TOOL_DONE). A function that returns enum tool_code returns those names, never a
bare number (a -1 there would be an exit status of 255); a function that returns int
returns no TOOL_ name, except a ladder's rung (base/ladder.h: 0, -1 when not here, or the
tool's exit status). Usage: codes-check.py FILE.c...; one line per place, exit 1 if any.
"""
import re
import sys


def functions(src):
    """(return type, name, parameters, body, line) of each function defined in src."""
    for m in re.finditer(r"^(?:static\s+)?(enum tool_code|int)\s+(\w+)\(", src, re.M):
        i, depth = m.end(), 1
        while depth and i < len(src):
            depth += {"(": 1, ")": -1}.get(src[i], 0)
            i += 1
        params = src[m.end() : i - 1]
        if not re.match(r"\s*\{", src[i : i + 3]):
            continue  # a prototype
        j = src.index("{", i) + 1
        k, depth = j, 1
        while depth and k < len(src):
            depth += {"{": 1, "}": -1}.get(src[k], 0)
            k += 1
        yield m.group(1), m.group(2), params, src[j:k], src.count("\n", 0, m.start()) + 1


def check(path):
    bad = []
    src = open(path).read()
    for ret, name, params, body, line in functions(src):
        if ret == "enum tool_code":
            for r in re.findall(r"return\s+(-?\d+)\s*;", body):
                bad.append(f"{path}:{line}: {name}() returns enum tool_code, yet returns {r}")
        elif name != "main" and "const char **why" not in params:
            for r in re.findall(r"return\s+[^;]*\b(TOOL_[A-Z]+)", body):
                bad.append(f"{path}:{line}: {name}() returns int, yet returns {r}: make it enum tool_code")
    return bad


def main():
    bad = [b for p in sys.argv[1:] for b in check(p)]
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
