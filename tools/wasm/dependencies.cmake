# The dependencies of the WebAssembly build (emcmake cmake; docs/browser.md). Emscripten
# compiles everything from source, so Debian's compiled libraries (libspdlog, libfmt,
# libtomlplusplus) cannot be linked; the same Debian packages' headers are used in their
# header-only modes instead, under the target names the native build gets from
# find_package, so that no other CMake file knows which build it is in. The headers are
# reached through a folder of links of their own: adding /usr/include itself would put
# the host's C library headers before emscripten's.
set(KZ_WASM_INCLUDE ${CMAKE_BINARY_DIR}/wasm-include)
file(MAKE_DIRECTORY ${KZ_WASM_INCLUDE})
foreach(dir spdlog fmt CLI nlohmann toml++)
  if(NOT EXISTS /usr/include/${dir})
    message(FATAL_ERROR "/usr/include/${dir} not found: install the Debian packages of "
                        "tools/install-deps.sh --wasm")
  endif()
  file(CREATE_LINK /usr/include/${dir} ${KZ_WASM_INCLUDE}/${dir} SYMBOLIC)
endforeach()

# kz_header_only(TARGET [DEFINITIONS...]): an interface target of those headers.
function(kz_header_only target)
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  target_include_directories(${target} SYSTEM INTERFACE ${KZ_WASM_INCLUDE})
  if(ARGN)
    target_compile_definitions(${target} INTERFACE ${ARGN})
  endif()
endfunction()
# spdlog without SPDLOG_COMPILED_LIB is header-only; Debian's tweakme.h selects the
# external fmt, which FMT_HEADER_ONLY makes header-only too.
kz_header_only(spdlog::spdlog FMT_HEADER_ONLY)
kz_header_only(CLI11::CLI11)
kz_header_only(nlohmann_json::nlohmann_json)
kz_header_only(tomlplusplus::tomlplusplus TOML_HEADER_ONLY=1)
# Threads are emscripten's pthreads (Web Workers sharing the module's memory): every
# object is compiled with -pthread (none in the one-thread build, KZ_WASM_ONE_THREAD), so
# the target only has to exist.
add_library(Threads::Threads INTERFACE IMPORTED GLOBAL)
