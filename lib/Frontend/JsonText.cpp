//===- JsonText.cpp - parse JSON text as Python's json module writes it ---===//
#include "JsonFields.h"

#include "tcc/Frontend/FrontendError.h"

namespace tcc::frontend {

namespace {

/// Quotes bare Infinity / -Infinity / NaN tokens outside strings; returns
/// false (and leaves `out` empty) when there are none, the usual case.
bool quoteNonFiniteTokens(std::string_view text, std::string &out) {
  bool inString = false, changed = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\' && i + 1 < text.size()) {
        if (changed)
          out += c;
        c = text[++i];
      } else if (c == '"') {
        inString = false;
      }
      if (changed)
        out += c;
      continue;
    }
    if (c == '"')
      inString = true;
    std::string_view token;
    for (std::string_view t : {"-Infinity", "Infinity", "NaN"})
      if (text.substr(i, t.size()) == t) {
        token = t;
        break;
      }
    if (!token.empty()) {
      if (!changed) {
        out.assign(text.substr(0, i));
        changed = true;
      }
      out += '"';
      out += token;
      out += '"';
      i += token.size() - 1;
      continue;
    }
    if (changed)
      out += c;
  }
  return changed;
}

} // namespace

Json parseJsonText(std::string_view text) {
  std::string quoted;
  if (quoteNonFiniteTokens(text, quoted))
    text = quoted;
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error &e) {
    // nlohmann's message already says line and column; add the byte offset.
    throw FrontendError("malformed JSON (byte " + std::to_string(e.byte) +
                        "): " + e.what());
  } catch (const Json::exception &e) {
    throw FrontendError(std::string("malformed JSON: ") + e.what());
  }
}

} // namespace tcc::frontend
