//===- JsonFields.h - checked access to fields of parsed JSON -------------===//
//
// Every field of a model.json is checked for presence and type before use, so
// a malformed file gives a one-line FrontendError that names the field
// ("graph_module.graph.nodes[3].target: expected a string, got number")
// instead of an nlohmann exception or undefined behaviour.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_FRONTEND_JSONFIELDS_H
#define TCC_LIB_FRONTEND_JSONFIELDS_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace tcc::frontend {

using Json = nlohmann::json;

/// Parses JSON text. Python's json module writes non-finite floats as bare
/// Infinity, -Infinity and NaN, which JSON does not allow; those are read as
/// the strings asFloat() understands. Throws FrontendError with the parse
/// error's line, column and byte position.
Json parseJsonText(std::string_view text);

/// `where` + "." + `key`, the location of a member for messages.
std::string fieldPath(const std::string &where, const char *key);

/// The member `key` of object `obj` (at `where`); throws if `obj` is not an
/// object or lacks `key`.
const Json &requireField(const Json &obj, const char *key,
                         const std::string &where);

/// The member `key`, or nullptr if it is absent or null.
const Json *optionalField(const Json &obj, const char *key,
                          const std::string &where);

const Json &asObject(const Json &v, const std::string &where);
const Json &asArray(const Json &v, const std::string &where);
int64_t asInt(const Json &v, const std::string &where);
/// A number, or one of the strings torch writes for non-finite floats
/// ("Infinity", "-Infinity", "NaN", also "inf", "-inf", "nan").
double asFloat(const Json &v, const std::string &where);
bool asBool(const Json &v, const std::string &where);
const std::string &asString(const Json &v, const std::string &where);

/// The single member of a schema union object ({"as_int": 3}).
std::pair<std::string, const Json *> unionMember(const Json &v,
                                                 const std::string &where);

} // namespace tcc::frontend

#endif // TCC_LIB_FRONTEND_JSONFIELDS_H
