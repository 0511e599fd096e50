#!/usr/bin/env python3
"""Import circles between the top-level modules of each workspace crate.

A module's edges are the `crate::<module>` paths its non-test source names
(`use crate::a::X`, `use crate::{a::X, b}`, `crate::a::f()`), comments left out.
Prints each crate's circles and exits 1 when any crate has one.

    python3 scripts/import-circles.py            # every crate under crates/
    python3 scripts/import-circles.py hashbench-eval
"""

import os
import re
import sys


def strip(text):
    """The source without `#[cfg(test)]` modules and comments."""
    text = re.split(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", text)[0]
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("//")[0] for line in text.splitlines())


def braced(text, start):
    """The text inside the braces opening at `start`."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1 : i]
    return text[start + 1 :]


def named(text):
    """The top-level modules a text names through `crate::`."""
    out = set()
    for m in re.finditer(r"\bcrate::", text):
        rest = text[m.end() :]
        if rest.startswith("{"):
            inner = braced(rest, 0)
            depth, item = 0, ""
            for ch in inner + ",":
                if ch == "," and depth == 0:
                    head = re.match(r"\s*(\w+)", item)
                    if head:
                        out.add(head.group(1))
                    item = ""
                    continue
                depth += {"{": 1, "}": -1}.get(ch, 0)
                item += ch
        else:
            head = re.match(r"(\w+)", rest)
            if head:
                out.add(head.group(1))
    return out


def graph(src):
    modules = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(root, f), src)
            top = rel[:-3].split(os.sep)[0]
            if top in ("lib", "main"):
                continue
            text = strip(open(os.path.join(root, f), encoding="utf-8").read())
            modules.setdefault(top, set()).update(named(text))
    return {m: {d for d in deps if d in modules and d != m} for m, deps in modules.items()}


def circles(g):
    found, state = [], {}

    def visit(u, stack):
        state[u] = 1
        stack.append(u)
        for v in sorted(g.get(u, ())):
            if state.get(v) == 1:
                found.append(stack[stack.index(v) :] + [v])
            elif not state.get(v):
                visit(v, stack)
        stack.pop()
        state[u] = 2

    for u in sorted(g):
        if not state.get(u):
            visit(u, [])
    return found


def main():
    crates = sys.argv[1:] or sorted(os.listdir("crates"))
    any_circle = False
    for c in crates:
        src = os.path.join("crates", c, "src")
        if not os.path.isdir(src):
            continue
        found = circles(graph(src))
        any_circle |= bool(found)
        print(f"{c}: " + ("no circle" if not found else "; ".join(" -> ".join(x) for x in found)))
    sys.exit(1 if any_circle else 0)


if __name__ == "__main__":
    main()
