//===- SympyExpr.h - symbolic sizes from sympy text -----------------------===//
//
// torch.export writes symbolic sizes as sympy text: srepr forms such as
// "Symbol('s77', positive=True, integer=True)" or "Add(Mul(Integer(2),
// Symbol('s0')), Integer(1))", or str forms such as "2*s0 + 1". tcc keeps one
// spelling for all of them, a small infix language:
//
//   expr := integer | identifier | expr (+ | - | * | // | %) expr | -expr
//         | ( expr ) | min(expr, expr, ...) | max(expr, expr, ...)
//
// printed with spaces around + and - only ("2*s0 + 1", "s0//2", "-s1"), and
// parentheses only where they are needed. `//` and `%` are Python's floor
// division and modulo, as in the exported program.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_FRONTEND_SYMPYEXPR_H
#define TCC_FRONTEND_SYMPYEXPR_H

#include <string>
#include <string_view>

namespace tcc::frontend {

/// Converts sympy text (srepr or str form) into tcc's infix spelling.
/// Understood: Symbol, Integer, Add, Mul, Pow with a non-negative integer
/// exponent, FloorDiv, floor(a/b), CleanDiv, Mod, PythonMod, Min, Max and
/// the same in infix. Throws FrontendError naming the expression for
/// anything else (true division, floats, ...).
std::string sympyToInfix(std::string_view sympyText);

} // namespace tcc::frontend

#endif // TCC_FRONTEND_SYMPYEXPR_H
