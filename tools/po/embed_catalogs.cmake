# Turns the compiled catalogs (MO_DIR/*.mo, from msgfmt) into a C++ source of byte arrays
# that defines kz_compiled_catalogs (core/i18n.h), compiled into the object library
# kz_catalogs that every executable links. Run by CMake at build time:
#   cmake -DMO_DIR=... -DOUT=.../i18n_catalogs.cpp -P embed_catalogs.cmake
file(GLOB files "${MO_DIR}/*.mo")
list(SORT files)
set(text "// Generated from tools/po/*.po by tools/po/embed_catalogs.cmake: do not edit.\n#include \"core/i18n.h\"\nnamespace {\n")
set(table "")
set(count 0)
foreach(file IN LISTS files)
  get_filename_component(code "${file}" NAME_WE)
  file(READ "${file}" hex HEX)
  string(LENGTH "${hex}" hex_len)
  math(EXPR size "${hex_len} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(APPEND text "constexpr unsigned char kMo_${code}[] = {${bytes}0};\n")
  string(APPEND table "    {\"${code}\", kMo_${code}, ${size}},\n")
  math(EXPR count "${count} + 1")
endforeach()
string(APPEND text "constexpr kz::i18n::CompiledCatalog kList[] = {\n${table}};\n}  // namespace\n")
string(APPEND text "extern \"C\" const kz::i18n::CompiledCatalogs kz_compiled_catalogs = {kList, ${count}};\n")
file(WRITE "${OUT}.tmp" "${text}")
file(RENAME "${OUT}.tmp" "${OUT}")
