#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
doc-check: every public function of common/ documented in one shape (docs/design.md,
"Documenting a function"). Each function a header declares (or defines static inline) has
a comment right above it that
  - names each of its parameters as a word,
  - says what it returns on a line with "Returns" (not for void),
  - for a pointer it returns, says who frees it or how long it lives (free, valid, static,
    owned, borrowed, kept, lives).
Usage: doc-check.py HEADER...; prints one line per function that misses one, and exits 1.
"""
import re
import sys

WHO_FREES = re.compile(r"free|valid|static|owned|borrow|kept|lives|the caller's|not to be freed", re.I)


def declarations(text):
    """(comment, declaration) for each top-level function declaration of a header."""
    out = []
    lines = text.split("\n")
    depth = 0  # braces: inside a struct, enum or inline body
    i = 0
    comment, comment_end = None, -2
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if depth == 0 and s.startswith("/*"):
            start = i
            while "*/" not in lines[i]:
                i += 1
            comment, comment_end = "\n".join(lines[start : i + 1]), i
            i += 1
            continue
        if depth == 0 and s.startswith("#"):
            while lines[i].endswith("\\"):
                i += 1
            i += 1
            continue
        if depth == 0 and re.match(r"(static\s+inline\s+|extern\s+)?[A-Za-z_][\w\s\*]*?\b\w+\s*\(", s) \
                and not re.match(r"(extern\s+)?[\w\s\*]*\(\s*\*\s*\w+\s*\)\s*\(", s) \
                and not re.match(r"(typedef|struct\s+\w+\s*\{|enum\s+\w*\s*\{|enum\s*\{|return\b)", s):
            start = i
            decl = s
            while not re.search(r"[;{]\s*$|\)\s*$", lines[i].strip()) or decl.count("(") > decl.count(")"):
                i += 1
                decl += " " + lines[i].strip()
            # a body that follows on the next line
            if not decl.rstrip().endswith(";") and not decl.rstrip().endswith("{") \
                    and i + 1 < len(lines) and lines[i + 1].strip().startswith("{"):
                i += 1
                decl += " {"
            above = comment if comment_end == start - 1 else None
            out.append((above, decl, start + 1))
            depth += decl.count("{") - decl.count("}")
            i += 1
            continue
        depth += line.count("{") - line.count("}")
        i += 1
    return out


def parse(decl):
    """(name, return type, parameter names) of a declaration, or None."""
    m = re.match(r"(static\s+inline\s+|extern\s+)?(.*?)\b(\w+)\s*\((.*)", decl)
    if not m:
        return None
    ret, name, rest = m.group(2).strip(), m.group(3), m.group(4)
    depth, args, cur = 1, [], ""
    for c in rest:
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                break
        if c == "," and depth == 1:
            args.append(cur)
            cur = ""
        else:
            cur += c
    args.append(cur)
    names = []
    for a in args:
        a = a.strip()
        if not a or a in ("void", "..."):
            continue
        fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", a)  # a function pointer
        if fp:
            names.append(fp.group(1))
            continue
        a = re.sub(r"\[.*\]", "", a).strip()
        w = re.findall(r"\w+", a)
        if len(w) >= 2:
            names.append(w[-1])
    return name, ret, names


def check(path):
    bad = []
    text = open(path).read()
    for comment, decl, lineno in declarations(text):
        p = parse(decl)
        if not p:
            continue
        name, ret, params = p
        where = f"{path}:{lineno}: {name}()"
        if comment is None:
            bad.append(f"{where}: no comment right above it")
            continue
        words = set(re.findall(r"\w+", comment))
        flat = re.sub(r"\s*\n\s*\*?\s*", " ", comment)  # one line: a phrase split over two
        missing = [a for a in params if a not in words]
        if missing:
            bad.append(f"{where}: parameter{'s' if len(missing) > 1 else ''} not named: {', '.join(missing)}")
        if ret != "void" and not re.search(r"\bReturns\b", comment):
            bad.append(f"{where}: no line saying what it Returns")
        if "*" in ret and not WHO_FREES.search(flat):
            bad.append(f"{where}: returns a pointer: who frees it, or how long it lives, not said")
    return bad


def main():
    bad = []
    for path in sys.argv[1:]:
        bad += check(path)
    for b in bad:
        print(b)
    if bad:
        print(f"doc-check: {len(bad)} places miss the shape of docs/design.md (Documenting a function)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
