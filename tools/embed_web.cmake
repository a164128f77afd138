# Turns the page's files (tools/web/) into a C++ header of byte arrays, so that
# `kumalak serve` carries its page inside the executable: nothing is read from disk
# at run time, and no request can name a file. Run by CMake at build time:
#   cmake -DWEB_DIR=... -DOUT=.../web_assets.h -P embed_web.cmake
set(files index.html app.js style.css)
set(names kIndexHtml kAppJs kStyleCss)
set(text "// Generated from tools/web/ by tools/embed_web.cmake: do not edit.\n#pragma once\n#include <string_view>\nnamespace kz::web {\n")
foreach(i RANGE 2)
  list(GET files ${i} file)
  list(GET names ${i} name)
  file(READ "${WEB_DIR}/${file}" hex HEX)
  string(LENGTH "${hex}" hex_len)
  math(EXPR size "${hex_len} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(APPEND text "inline constexpr unsigned char ${name}_bytes[] = {${bytes}0};\n")
  string(APPEND text "inline const std::string_view ${name}{reinterpret_cast<const char*>(${name}_bytes), ${size}};\n")
endforeach()
string(APPEND text "}  // namespace kz::web\n")
file(WRITE "${OUT}.tmp" "${text}")
file(RENAME "${OUT}.tmp" "${OUT}")
