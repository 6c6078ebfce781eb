//===- JsonFields.cpp - checked access to fields of parsed JSON -----------===//
#include "JsonFields.h"

#include "tcc/Frontend/FrontendError.h"

#include <cmath>
#include <limits>

namespace tcc::frontend {

namespace {

[[noreturn]] void wrongType(const Json &v, const char *expected,
                            const std::string &where) {
  throw FrontendError(where + ": expected " + expected + ", got " +
                      v.type_name());
}

} // namespace

std::string fieldPath(const std::string &where, const char *key) {
  return where.empty() ? std::string(key) : where + "." + key;
}

const Json &requireField(const Json &obj, const char *key,
                         const std::string &where) {
  const Json &o = asObject(obj, where);
  auto it = o.find(key);
  if (it == o.end())
    throw FrontendError((where.empty() ? std::string("top level") : where) +
                        ": missing field '" + key + "'");
  return *it;
}

const Json *optionalField(const Json &obj, const char *key,
                          const std::string &where) {
  const Json &o = asObject(obj, where);
  auto it = o.find(key);
  if (it == o.end() || it->is_null())
    return nullptr;
  return &*it;
}

const Json &asObject(const Json &v, const std::string &where) {
  if (!v.is_object())
    wrongType(v, "an object", where.empty() ? "top level" : where);
  return v;
}

const Json &asArray(const Json &v, const std::string &where) {
  if (!v.is_array())
    wrongType(v, "an array", where);
  return v;
}

int64_t asInt(const Json &v, const std::string &where) {
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      throw FrontendError(where + ": integer " + std::to_string(u) +
                          " is out of range");
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer())
    return v.get<int64_t>();
  wrongType(v, "an integer", where);
}

double asFloat(const Json &v, const std::string &where) {
  if (v.is_number())
    return v.get<double>();
  if (v.is_string()) {
    const std::string &s = v.get_ref<const std::string &>();
    if (s == "Infinity" || s == "inf")
      return std::numeric_limits<double>::infinity();
    if (s == "-Infinity" || s == "-inf")
      return -std::numeric_limits<double>::infinity();
    if (s == "NaN" || s == "nan")
      return std::numeric_limits<double>::quiet_NaN();
  }
  wrongType(v, "a number", where);
}

bool asBool(const Json &v, const std::string &where) {
  if (!v.is_boolean())
    wrongType(v, "a boolean", where);
  return v.get<bool>();
}

const std::string &asString(const Json &v, const std::string &where) {
  if (!v.is_string())
    wrongType(v, "a string", where);
  return v.get_ref<const std::string &>();
}

std::pair<std::string, const Json *> unionMember(const Json &v,
                                                 const std::string &where) {
  const Json &o = asObject(v, where);
  if (o.size() != 1)
    throw FrontendError(where + ": expected an object with one member (a "
                                "schema union), got " +
                        std::to_string(o.size()) + " members");
  auto it = o.begin();
  return {it.key(), &it.value()};
}

} // namespace tcc::frontend
