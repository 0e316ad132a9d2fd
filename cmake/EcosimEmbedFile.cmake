# Script mode helper of ecosim_embed_text: writes a .cpp holding the bytes of IN as a string_view.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
math(EXPR size "${n} / 2")
file(WRITE ${OUT}.tmp "// Generated from ${IN}; do not edit.\n#include <string_view>\nnamespace ecosim::embedded {\n"
  "static const char ${SYMBOL}_bytes[] = {${bytes}};\n"
  "std::string_view ${SYMBOL}() { return {${SYMBOL}_bytes, ${size}}; }\n}\n")
file(RENAME ${OUT}.tmp ${OUT})
