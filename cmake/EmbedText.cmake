# Writes OUT as a C++ header defining `constexpr std::string_view NAME` with the text of IN.
# Run in script mode: cmake -DIN=... -DOUT=... -DNAME=... -P EmbedText.cmake
file(READ "${IN}" text)
file(WRITE "${OUT}.tmp" "// Generated from ${IN}; do not edit.\n#pragma once\n#include <string_view>\n"
     "inline constexpr std::string_view ${NAME} = R\"tk_embed(${text})tk_embed\";\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
