//===- TensorMetaReader.cpp - schema TensorMeta and SymInt ----------------===//
#include "ExportSchemaReader.h"

#include "tcc/Frontend/FrontendError.h"
#include "tcc/Frontend/ScalarType.h"
#include "tcc/Frontend/SympyExpr.h"

namespace tcc::frontend {

namespace {

/// The size a dimension had when traced; symbolic dims use their hint.
int64_t tracedValue(const SymDim &d) { return d.value ? *d.value : d.hint; }

bool isRowMajor(const std::vector<SymDim> &sizes,
                const std::vector<SymDim> &strides) {
  if (sizes.size() != strides.size())
    return false;
  int64_t expected = 1;
  for (size_t k = sizes.size(); k-- > 0;) {
    int64_t size = tracedValue(sizes[k]);
    if (size != 1 && tracedValue(strides[k]) != expected)
      return false;
    if (__builtin_mul_overflow(expected, size, &expected))
      return false;
  }
  return true;
}

std::vector<SymDim> parseSymInts(const Json &v, const std::string &where,
                                 bool exprMustParse = true) {
  std::vector<SymDim> dims;
  const Json &list = asArray(v, where);
  for (size_t k = 0; k < list.size(); ++k)
    dims.push_back(parseSymInt(list[k], where + "[" + std::to_string(k) + "]", exprMustParse));
  return dims;
}

} // namespace

SymDim parseSymInt(const Json &v, const std::string &where, bool exprMustParse) {
  auto [key, value] = unionMember(v, where);
  std::string at = fieldPath(where, key.c_str());
  SymDim dim;
  if (key == "as_int") {
    dim.value = asInt(*value, at);
    dim.hint = *dim.value;
    return dim;
  }
  if (key != "as_expr")
    throw FrontendError(where + ": unexpected SymInt member '" + key + "'");
  const std::string &text =
      asString(requireField(*value, "expr_str", at), fieldPath(at, "expr_str"));
  try {
    dim.expr = sympyToInfix(text);
  } catch (const FrontendError &e) {
    if (exprMustParse)
      throw FrontendError(where + ": " + e.what());
    dim.expr = text;  // kept as written; only its hint is used
  }
  if (const Json *hint = optionalField(*value, "hint", at)) {
    std::string hintAt = fieldPath(at, "hint");
    auto [hintKey, hintValue] = unionMember(*hint, hintAt);
    if (hintKey == "as_int")
      dim.hint = asInt(*hintValue, fieldPath(hintAt, "as_int"));
  }
  // "Integer(4)" and the like are static after all.
  bool literal = !dim.expr.empty();
  for (size_t k = 0; k < dim.expr.size(); ++k)
    if (!(dim.expr[k] >= '0' && dim.expr[k] <= '9') &&
        !(k == 0 && dim.expr[k] == '-' && dim.expr.size() > 1))
      literal = false;
  if (literal) {
    dim.value = std::stoll(dim.expr);
    dim.hint = *dim.value;
    dim.expr.clear();
  }
  return dim;
}

TensorMeta parseTensorMeta(const Json &v, const std::string &where,
                           const std::string &tensorName) {
  TensorMeta meta;
  int64_t code = asInt(requireField(v, "dtype", where), fieldPath(where, "dtype"));
  std::optional<DType> dtype = dtypeFromScalarType(code);
  if (!dtype) {
    std::string name = scalarTypeName(code);
    if (name == "undefined")
      throw FrontendError("tensor '" + tensorName + "' has unknown dtype code " +
                          std::to_string(code));
    throw FrontendError("tensor '" + tensorName + "' has dtype code " +
                        std::to_string(code) + " (" + name +
                        "), which tcc does not support");
  }
  meta.dtype = *dtype;
  meta.sizes = parseSymInts(requireField(v, "sizes", where),
                            fieldPath(where, "sizes"));
  if (const Json *strides = optionalField(v, "strides", where)) {
    // tcc computes on row-major buffers and reads strides only for their
    // traced values, so a stride sympy form tcc cannot parse (Min/Max, from
    // transformers' reshapes) is not an error.
    meta.strides = parseSymInts(*strides, fieldPath(where, "strides"), false);
    if (meta.strides.size() != meta.sizes.size())
      throw FrontendError("tensor '" + tensorName + "' has " +
                          std::to_string(meta.sizes.size()) + " sizes but " +
                          std::to_string(meta.strides.size()) + " strides");
  } else {
    // Old exports may omit strides; they were row-major then.
    meta.strides.assign(meta.sizes.size(), SymDim{});
    int64_t stride = 1;
    for (size_t k = meta.sizes.size(); k-- > 0;) {
      meta.strides[k].value = stride;
      meta.strides[k].hint = stride;
      if (__builtin_mul_overflow(stride, tracedValue(meta.sizes[k]), &stride))
        stride = 0;
    }
  }
  if (const Json *offset = optionalField(v, "storage_offset", where))
    meta.storageOffset =
        tracedValue(parseSymInt(*offset, fieldPath(where, "storage_offset")));
  if (const Json *device = optionalField(v, "device", where))
    meta.device = parseDevice(*device, fieldPath(where, "device"));
  if (const Json *layout = optionalField(v, "layout", where)) {
    // 0 = unknown, 7 = strided; the rest are sparse or mkldnn layouts.
    int64_t code = asInt(*layout, fieldPath(where, "layout"));
    if (code != 0 && code != 7)
      throw FrontendError("tensor '" + tensorName + "' has layout code " +
                          std::to_string(code) +
                          "; tcc supports only strided tensors");
  }
  meta.contiguous = isRowMajor(meta.sizes, meta.strides);
  return meta;
}

} // namespace tcc::frontend
