#!/usr/bin/env python3
"""Finds calls whose arguments create IR in more than one argument.

C++ leaves the order in which a call's arguments are evaluated unspecified:
`b.create<SubOp>(loc, b.create<MulOp>(...), cst(p))` creates the two inner
ops in one order under gcc and in the other under clang, so tcc's IR (and
its lit tests) would depend on the compiler that built it (issue 17). Each
op must be created in its own statement. Braced lists (`{f(), g()}`) are
evaluated left to right and are fine.

    python3 scripts/check_eval_order.py FILE.cpp...    # exit 1 on a finding

A heuristic: an argument "creates IR" when it calls `Op::create(`,
`.create<`, a `make*` helper, or one of the emitter helpers named below
(the graph legalizers' `bin<Op>(...)`, `un<Op>(...)` and `c(value)` too).
"""
import pathlib
import re
import sys

CREATES = re.compile(
    r"::create\(|\.create<|\bmake[A-Z]\w*(<[^>]*>)?\(|\breshapeTo\(|\bemptyTensor\(|\bsizeTensor\(|"
    r"\bconvertElements\(|\bcst\(|\b(e|p|f|se|re|cb|ob|fb|pb|b)\.(index|f32|i64|i32|null|dim|widen|"
    r"narrow|load|advance|roundTrip)\(|\b(inside|clamp|origin)\(|"
    # The graph legalizers' ActivationBuilder/PointwiseBuilder: bin<Op>(..),
    # un<Op>(..), c(constant), hardsigmoid(..), called on `a.` or inside.
    r"\b(bin|un)<\w+>\(|(\ba\.|[^\w.>:])(c|hardsigmoid)\(|"
    # LegalizeLinearAlgebra's MatrixBuilder: every method but `loc`/`f64`.
    r"\bmb\.(c|cmp|select|both|rows|cols|row|col|at|diagonal|bin<\w+>)\(|\bmb\.b\.create<")


def calls(statement):
    """(offset, [argument text]) of every parenthesized call in `statement`."""
    stack = []  # (open offset, args so far or None for braces/brackets, arg start)
    for i, ch in enumerate(statement):
        if ch == "(":
            stack.append((i, [], i + 1))
        elif ch in "{[":
            stack.append((i, None, i + 1))
        elif ch == "," and stack and stack[-1][1] is not None:
            start, args, arg_start = stack[-1]
            args.append(statement[arg_start:i])
            stack[-1] = (start, args, i + 1)
        elif ch == ")" and stack:
            start, args, arg_start = stack.pop()
            if args is not None:
                yield start, args + [statement[arg_start:i]]
        elif ch in "}]" and stack and stack[-1][1] is None:
            stack.pop()


def findings(path):
    text = re.sub(r"//[^\n]*", "", pathlib.Path(path).read_text())
    for m in re.finditer(r"[^;{}]*;", text):
        for offset, args in calls(m.group(0)):
            if sum(1 for a in args if CREATES.search(a)) >= 2:
                line = text[:m.start() + offset].count("\n") + 1
                yield f"{path}:{line}: arguments create IR in an unspecified order: " + \
                      " ".join(m.group(0).split())[:140]
                break


def main():
    found = [f for path in sys.argv[1:] for f in findings(path)]
    for f in found:
        print(f)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
