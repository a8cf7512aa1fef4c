# Turns a data file into a C++ source holding its bytes, at build time:
#   cmake -DINPUT=<file> -DOUTPUT=<file.cc> -DSYMBOL=<name> -P embed_file.cmake
# Defines `extern const char nodeplan::data::<SYMBOL>[]` (NUL-terminated) and
# `extern const std::size_t nodeplan::data::<SYMBOL>Size` (without the NUL).
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
# Break the initializer into lines of 16 bytes so compilers and diffs cope.
string(REPEAT "'[^']+'," 16 sixteen_bytes)
string(REGEX REPLACE "(${sixteen_bytes})" "\\1\n" bytes "${bytes}")
get_filename_component(name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
"// Generated at build time from data/${name} by data/embed_file.cmake.\n"
"// Do not edit.\n"
"#include <cstddef>\n\n"
"namespace nodeplan::data {\n\n"
"extern const char ${SYMBOL}[];\n"
"extern const std::size_t ${SYMBOL}Size;\n"
"const char ${SYMBOL}[] = {\n${bytes}'\\0'};\n"
"const std::size_t ${SYMBOL}Size = ${size};\n\n"
"}  // namespace nodeplan::data\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
