//===- ArgumentReader.cpp - the schema's Argument union -------------------===//
//
// Reads each member of the Argument union of torch/_export/serde/schema.py
// into tcc's Argument. Literal forms of symbolic arguments ({"as_sym_int":
// {"as_int": 3}}) become plain literals; members tcc has no use for are kept
// as Kind::Other with their key, so the importer can name them.
//
//===----------------------------------------------------------------------===//
#include "ExportSchemaReader.h"

#include "tcc/Frontend/FrontendError.h"

namespace tcc::frontend {

namespace {

std::string elementPath(const std::string &where, size_t k) {
  return where + "[" + std::to_string(k) + "]";
}

/// {"name": "x"}: a TensorArgument.
std::string tensorName(const Json &v, const std::string &where) {
  return asString(requireField(v, "name", where), fieldPath(where, "name"));
}

/// An OptionalTensorArgument: the tensor's name, or "" for None.
std::string optionalTensorName(const Json &v, const std::string &where) {
  auto [key, value] = unionMember(v, where);
  if (key == "as_tensor")
    return tensorName(*value, fieldPath(where, "as_tensor"));
  if (key == "as_none")
    return "";
  throw FrontendError(where + ": unexpected OptionalTensorArgument member '" +
                      key + "'");
}

/// Sym{Int,Float,Bool}Argument: {"as_name": s} or a literal under
/// `literalKey`. Sets `arg` to the symbolic kind or leaves the literal to
/// `readLiteral`.
template <typename ReadLiteral>
void readSymArgument(const Json &v, const std::string &where,
                     const char *literalKey, Argument::Kind symKind,
                     Argument &arg, ReadLiteral readLiteral) {
  auto [key, value] = unionMember(v, where);
  std::string at = fieldPath(where, key.c_str());
  if (key == "as_name") {
    arg.kind = symKind;
    arg.s = asString(*value, at);
  } else if (key == literalKey) {
    readLiteral(*value, at);
  } else {
    throw FrontendError(where + ": unexpected member '" + key + "'");
  }
}

} // namespace

Argument parseArgument(const Json &v, const std::string &where) {
  auto [key, valuePtr] = unionMember(v, where);
  const Json &value = *valuePtr;
  std::string at = fieldPath(where, key.c_str());
  Argument arg;
  auto listOf = [&](auto readElement) {
    const Json &list = asArray(value, at);
    for (size_t k = 0; k < list.size(); ++k)
      readElement(list[k], elementPath(at, k));
  };

  if (key == "as_none") {
    arg.kind = Argument::None;
  } else if (key == "as_tensor") {
    arg.kind = Argument::Tensor;
    arg.tensor = tensorName(value, at);
  } else if (key == "as_tensors") {
    arg.kind = Argument::Tensors;
    listOf([&](const Json &e, const std::string &p) {
      arg.tensors.push_back(tensorName(e, p));
    });
  } else if (key == "as_optional_tensor") {
    arg.tensor = optionalTensorName(value, at);
    arg.kind = arg.tensor.empty() ? Argument::None : Argument::Tensor;
  } else if (key == "as_optional_tensors") {
    arg.kind = Argument::OptionalTensors;
    listOf([&](const Json &e, const std::string &p) {
      arg.tensors.push_back(optionalTensorName(e, p));
    });
  } else if (key == "as_int") {
    arg.kind = Argument::Int;
    arg.i = asInt(value, at);
  } else if (key == "as_ints") {
    arg.kind = Argument::Ints;
    listOf([&](const Json &e, const std::string &p) {
      arg.ints.push_back(asInt(e, p));
    });
  } else if (key == "as_float") {
    arg.kind = Argument::Float;
    arg.f = asFloat(value, at);
  } else if (key == "as_floats") {
    arg.kind = Argument::Floats;
    listOf([&](const Json &e, const std::string &p) {
      arg.floats.push_back(asFloat(e, p));
    });
  } else if (key == "as_bool") {
    arg.kind = Argument::Bool;
    arg.b = asBool(value, at);
  } else if (key == "as_bools") {
    arg.kind = Argument::Bools;
    listOf([&](const Json &e, const std::string &p) {
      arg.bools.push_back(asBool(e, p));
    });
  } else if (key == "as_string") {
    arg.kind = Argument::String;
    arg.s = asString(value, at);
  } else if (key == "as_strings") {
    arg.kind = Argument::Strings;
    listOf([&](const Json &e, const std::string &p) {
      arg.strings.push_back(asString(e, p));
    });
  } else if (key == "as_sym_int") {
    readSymArgument(value, at, "as_int", Argument::SymInt, arg,
                    [&](const Json &lit, const std::string &p) {
                      arg.kind = Argument::Int;
                      arg.i = asInt(lit, p);
                    });
  } else if (key == "as_sym_ints") {
    arg.kind = Argument::SymInts;
    listOf([&](const Json &e, const std::string &p) {
      Argument element;
      readSymArgument(e, p, "as_int", Argument::SymInt, element,
                      [&](const Json &lit, const std::string &lp) {
                        element.kind = Argument::Int;
                        element.i = asInt(lit, lp);
                      });
      if (element.kind == Argument::SymInt)
        arg.symInts.emplace_back(element.s);
      else
        arg.symInts.emplace_back(element.i);
    });
  } else if (key == "as_sym_float") {
    readSymArgument(value, at, "as_float", Argument::SymFloat, arg,
                    [&](const Json &lit, const std::string &p) {
                      arg.kind = Argument::Float;
                      arg.f = asFloat(lit, p);
                    });
  } else if (key == "as_sym_bool") {
    readSymArgument(value, at, "as_bool", Argument::SymBool, arg,
                    [&](const Json &lit, const std::string &p) {
                      arg.kind = Argument::Bool;
                      arg.b = asBool(lit, p);
                    });
  } else if (key == "as_scalar_type") {
    arg.kind = Argument::ScalarType;
    arg.i = asInt(value, at);
  } else if (key == "as_memory_format") {
    arg.kind = Argument::MemoryFormat;
    arg.i = asInt(value, at);
  } else if (key == "as_layout") {
    arg.kind = Argument::Layout;
    arg.i = asInt(value, at);
  } else if (key == "as_device") {
    arg.kind = Argument::Device;
    arg.s = parseDevice(value, at);
  } else {
    // as_graph, as_custom_obj, as_operator, as_complex, ...: kept by name.
    arg.kind = Argument::Other;
    arg.s = key;
  }
  return arg;
}

std::string parseDevice(const Json &v, const std::string &where) {
  std::string name =
      asString(requireField(v, "type", where), fieldPath(where, "type"));
  if (const Json *index = optionalField(v, "index", where))
    name += ":" + std::to_string(asInt(*index, fieldPath(where, "index")));
  return name;
}

} // namespace tcc::frontend
