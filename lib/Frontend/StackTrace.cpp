//===- StackTrace.cpp - user source locations from export stack traces ----===//
#include "tcc/Frontend/StackTrace.h"

#include <optional>

namespace tcc::frontend {

namespace {

/// Parses `File "X", line N` starting at `pos` (which points at `File "`);
/// advances `pos` past what it read.
std::optional<SourceLocation> parseFrame(std::string_view text, size_t &pos) {
  constexpr std::string_view head = "File \"";
  pos += head.size();
  size_t close = text.find('"', pos);
  if (close == std::string_view::npos)
    return std::nullopt;
  SourceLocation loc;
  loc.file = std::string(text.substr(pos, close - pos));
  pos = close + 1;
  constexpr std::string_view lineTag = ", line ";
  if (text.substr(pos, lineTag.size()) != lineTag)
    return std::nullopt;
  pos += lineTag.size();
  int64_t line = 0;
  size_t digits = 0;
  // Cap the digits so a hostile number cannot overflow.
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9' &&
         digits < 9) {
    line = line * 10 + (text[pos] - '0');
    ++pos;
    ++digits;
  }
  if (digits == 0)
    return std::nullopt;
  loc.line = static_cast<int>(line);
  return loc;
}

bool isInsideTorch(const std::string &file) {
  return file.find("/site-packages/torch/") != std::string::npos ||
         file.find("/torch/nn/") != std::string::npos;
}

} // namespace

SourceLocation userSourceLocation(std::string_view stackTrace) {
  // Tracebacks list the outermost frame first: the innermost frame outside
  // torch is the line that made the call (in a torchvision ResNet every node's
  // outermost frame is the same `return self._forward_impl(x)`).
  std::optional<SourceLocation> first, innermostUser;
  size_t pos = 0;
  while ((pos = stackTrace.find("File \"", pos)) != std::string_view::npos) {
    std::optional<SourceLocation> frame = parseFrame(stackTrace, pos);
    if (!frame)
      continue;
    if (!isInsideTorch(frame->file))
      innermostUser = frame;
    if (!first)
      first = frame;
  }
  if (innermostUser)
    return *innermostUser;
  return first ? *first : SourceLocation{};
}

} // namespace tcc::frontend
