# Writes OUTPUT, a C++ file defining `const unsigned char SYMBOL[]` and
# `const size_t SYMBOL_size` with the bytes of INPUT (a fatbin of tcc's
# kernel library). Run as `cmake -DINPUT=.. -DOUTPUT=.. -DSYMBOL=.. -P`.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" length)
math(EXPR bytes "${length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT} by cmake/EmbedBinary.cmake; do not edit.\n"
  "#include <cstddef>\n"
  "alignas(16) extern const unsigned char ${SYMBOL}[] = {\n${body}};\n"
  "extern const size_t ${SYMBOL}_size = ${bytes};\n")
