# Settings of the WebAssembly build (included by the top-level CMakeLists.txt when
# emcmake's toolchain defines EMSCRIPTEN; docs/browser.md).
include(${CMAKE_CURRENT_LIST_DIR}/dependencies.cmake)

# emcc's optimiser of the JavaScript it writes needs Debian's acorn module (node-acorn),
# which Node finds only through NODE_PATH.
set(CMAKE_CXX_LINKER_LAUNCHER env NODE_PATH=/usr/share/nodejs)

# SIMD128 everywhere: the portable forward and the rules are written for the compiler to
# vectorise. pthreads: the search runs on threads of its own as natively (Web Workers
# sharing the module's memory), so a search can be stopped. Exceptions: bad input is
# refused by throwing, as natively, through emscripten's JavaScript-based exceptions.
# WebAssembly's own (-fwasm-exceptions) would cost nothing until something throws, but in
# Debian's emscripten 3.1.6 with pthreads no exception thrown in one function is caught in
# another (a ten-line program shows it; the same program without -pthread works).
# The one-thread build (KZ_WASM_ONE_THREAD) has no pthreads but takes emscripten's
# exceptions too: its searches pause with Asyncify (tools/wasm/worker_yield.h), and
# Debian's binaryen 108 cannot instrument a function holding a WebAssembly `try` (it
# stops at the first one), which is every function with a destructor to run on a throw.
# WebAssembly's own would make its .wasm 14 % smaller, at the same speed (docs/browser.md).
if(KZ_WASM_ONE_THREAD)
  add_compile_options(-msimd128 -fexceptions)
  add_link_options(-fexceptions)
else()
  add_compile_options(-msimd128 -pthread -fexceptions)
  add_link_options(-pthread -fexceptions)
endif()

# kz_wasm_executable(TARGET [PUSHED_INPUT]): link TARGET as a program Node runs
# (`node TARGET.js ARGS`), reading and writing the real file system (NODERAWFS) like the
# native one, with the process's environment (tools/wasm/node_environment.js):
#  - PROXY_TO_PTHREAD: main() on a thread of its own, so that it may wait (for input, for a
#    search) while the JavaScript thread carries out every thread's writes;
#  - the threads of a search come from a pool started with the program (a thread started
#    later would wait for the JavaScript thread, which main() may be blocking);
#  - memory grows as the search's tree does, up to 4 GiB (wasm32's limit);
#  - PUSHED_INPUT: the program reads tools/command_input.h, fed from JavaScript
#    (tools/wasm/node_input.js), which needs kz_push_input and the allocator exported.
function(kz_wasm_executable target)
  cmake_parse_arguments(PARSE_ARGV 1 KZ_WASM "PUSHED_INPUT" "" "")
  target_link_options(${target} PRIVATE
    -sPROXY_TO_PTHREAD=1 -sPTHREAD_POOL_SIZE=8 -sNODERAWFS=1 -sEXIT_RUNTIME=1
    -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=268435456 -sMAXIMUM_MEMORY=4294967296
    -sTOTAL_STACK=1048576 -sENVIRONMENT=node,worker
    "SHELL:--pre-js ${CMAKE_SOURCE_DIR}/tools/wasm/node_environment.js"
    "SHELL:--extern-pre-js ${CMAKE_SOURCE_DIR}/tools/wasm/node_shebang.js")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS
               ${CMAKE_SOURCE_DIR}/tools/wasm/node_environment.js
               ${CMAKE_SOURCE_DIR}/tools/wasm/node_shebang.js)
  # Runs as a command of its own: `build-wasm/tools/kumalak.js engine`.
  add_custom_command(TARGET ${target} POST_BUILD COMMAND chmod +x $<TARGET_FILE:${target}>)
  if(KZ_WASM_PUSHED_INPUT)
    target_link_options(${target} PRIVATE
      "-sEXPORTED_FUNCTIONS=_main,_kz_push_input,_malloc,_free"
      "SHELL:--pre-js ${CMAKE_SOURCE_DIR}/tools/wasm/node_input.js")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS
                 ${CMAKE_SOURCE_DIR}/tools/wasm/node_input.js)
  endif()
  set_target_properties(${target} PROPERTIES SUFFIX ".js")
endfunction()
