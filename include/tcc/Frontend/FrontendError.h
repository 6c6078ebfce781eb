//===- FrontendError.h - errors reading torch.export artifacts -----------===//
//
// The one exception type the frontend throws. Its message is a single line
// that names what is wrong and where (file, archive entry, node, value), so a
// driver can print it as is and exit with "user error in the input".
//
//===----------------------------------------------------------------------===//
#ifndef TCC_FRONTEND_FRONTENDERROR_H
#define TCC_FRONTEND_FRONTENDERROR_H

#include <stdexcept>
#include <string>

namespace tcc::frontend {

/// A malformed, truncated or unsupported input. what() is one line: newlines
/// in the message (e.g. from a quoted expression) are replaced by spaces.
class FrontendError : public std::runtime_error {
public:
  explicit FrontendError(const std::string &message)
      : std::runtime_error(oneLine(message)) {}

private:
  static std::string oneLine(std::string text) {
    for (char &c : text)
      if (c == '\n' || c == '\r')
        c = ' ';
    return text;
  }
};

} // namespace tcc::frontend

#endif // TCC_FRONTEND_FRONTENDERROR_H
