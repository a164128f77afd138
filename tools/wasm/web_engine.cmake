# `kumalak-web`: the WebAssembly `kumalak` for the page (included by tools/CMakeLists.txt in
# the WebAssembly build; docs/browser.md). The same objects as `kumalak`
# (kz_kumalak_commands), linked for a Web Worker instead of Node:
#  - a module factory, createKumalak(settings), loaded by tools/wasm/page_worker.js, which
#    answers the page's calls of serve's API in it (tools/wasm/page_api.cpp), and by
#    tools/wasm/engine_worker.js, which runs `kumalak engine` in it and passes the
#    protocol's lines in and out as messages (in a page the browser does not isolate,
#    the worker runs the protocol of kumalak-web-1t instead, one line at a time);
#  - the shipped models and puzzles packed into kumalak-web.data, mounted at /models (the
#    page has no file system of its own);
#  - threads as under Node (the page must be cross-origin isolated: COOP and COEP headers),
#    main() on a thread of its own so that the worker stays free to carry the output.
# `kumalak-web-1t`: the page's engine without threads, for a browser that does not isolate
# the page (page_worker.js loads it when `crossOriginIsolated` is false). Without -pthread
# every object differs, so it is a sub-build of this source tree (KZ_WASM_ONE_THREAD,
# in one-thread/ of this build folder) that makes only it: page_api.cpp and the serve
# engine (no commands, no main(): the worker runs its jobs, kz_page_work), WebAssembly's
# own exceptions, and the same packed files, whose kumalak-web.data the site ships once.
set(KZ_WEB_MODELS togyz.pt togyz-human.pt kalah.pt puzzles/togyz.txt puzzles/kalah.txt
    openings/togyz.kzo)
# What page_worker.js calls in both page engines' runtime: strings out of the module, and
# the file system that keeps Kalah's tables in IndexedDB.
set(KZ_PAGE_RUNTIME_METHODS UTF8ToString,FS)

# kz_page_engine(TARGET ENVIRONMENT): what both page engines share: a module factory for
# ENVIRONMENT (emscripten's: web,worker), memory that grows, the shipped files packed in.
function(kz_page_engine target environment)
  set(packed "")
  foreach(file IN LISTS KZ_WEB_MODELS)
    list(APPEND packed "SHELL:--preload-file ${CMAKE_SOURCE_DIR}/models/${file}@/models/${file}")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${CMAKE_SOURCE_DIR}/models/${file})
  endforeach()
  target_link_options(${target} PRIVATE
    -sMODULARIZE=1 -sEXPORT_NAME=createKumalak -sENVIRONMENT=${environment}
    -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=134217728 -sMAXIMUM_MEMORY=2147483648
    -sTOTAL_STACK=1048576 ${packed}
    # IndexedDB under the endgame tables' folder (page_worker.js keeps them there).
    -lidbfs.js)
  set_target_properties(${target} PROPERTIES SUFFIX ".js")
endfunction()

if(KZ_WASM_ONE_THREAD)
  # The protocol too (engine_protocol.cpp, one line at a time: wasm/protocol_lines.cpp),
  # for engine_worker.js in a page the browser does not isolate.
  add_executable(kumalak-web-1t ${CMAKE_CURRENT_SOURCE_DIR}/wasm/page_api.cpp
                 ${CMAKE_CURRENT_SOURCE_DIR}/serve_engine.cpp
                 ${CMAKE_CURRENT_SOURCE_DIR}/engine_protocol.cpp
                 ${CMAKE_CURRENT_SOURCE_DIR}/wasm/protocol_lines.cpp
                 ${CMAKE_CURRENT_SOURCE_DIR}/wasm/worker_yield.cpp)
  target_link_libraries(kumalak-web-1t PRIVATE ${KZ_KUMALAK_LINK})
  # Node too: tools/wasm/page_engine_node_test.js and protocol_node_test.js drive it there
  # as the workers do.
  kz_page_engine(kumalak-web-1t web,worker,node)
  # Asyncify (tools/wasm/worker_yield.h): a search pauses for the worker's event loop and
  # goes on; the worker waits for a paused call with Asyncify.whenDone().
  target_link_options(kumalak-web-1t PRIVATE
    "-sEXPORTED_FUNCTIONS=_kz_page_start,_kz_page_call,_kz_page_work,_kz_page_runs_jobs,_kz_protocol_start,_kz_protocol_line,_kz_worker_paused,_malloc,_free"
    -sASYNCIFY=1 -sASYNCIFY_IMPORTS=kz_yield_to_worker -sASYNCIFY_STACK_SIZE=131072
    "-sEXPORTED_RUNTIME_METHODS=${KZ_PAGE_RUNTIME_METHODS},Asyncify")
  return()
endif()

add_executable(kumalak-web $<TARGET_OBJECTS:kz_kumalak_commands> ${CMAKE_CURRENT_SOURCE_DIR}/wasm/page_api.cpp)
target_link_libraries(kumalak-web PRIVATE ${KZ_KUMALAK_LINK})
kz_page_engine(kumalak-web web,worker)
target_link_options(kumalak-web PRIVATE
  -sPROXY_TO_PTHREAD=1 -sPTHREAD_POOL_SIZE=8 -sEXIT_RUNTIME=1
  "-sEXPORTED_RUNTIME_METHODS=${KZ_PAGE_RUNTIME_METHODS}"
  "-sEXPORTED_FUNCTIONS=_main,_kz_push_input,_kz_page_start,_kz_page_call,_kz_page_work,_kz_page_runs_jobs,_malloc,_free")
# The worker scripts beside the module, copied again whenever one changes (not only when
# the module is linked again).
set(KZ_WEB_WORKERS ${CMAKE_CURRENT_BINARY_DIR}/engine_worker.js ${CMAKE_CURRENT_BINARY_DIR}/page_worker.js)
add_custom_command(OUTPUT ${KZ_WEB_WORKERS}
  COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_SOURCE_DIR}/tools/wasm/engine_worker.js
          ${CMAKE_SOURCE_DIR}/tools/wasm/page_worker.js ${CMAKE_CURRENT_BINARY_DIR}
  DEPENDS ${CMAKE_SOURCE_DIR}/tools/wasm/engine_worker.js ${CMAKE_SOURCE_DIR}/tools/wasm/page_worker.js)
add_custom_target(kumalak-web-workers ALL DEPENDS ${KZ_WEB_WORKERS})
add_dependencies(kumalak-web kumalak-web-workers)

# The one-thread sub-build (above), with this build's toolchain and compiler launcher; its
# build step runs every time (make finds nothing to do when nothing changed). Under make
# it shares this build's job slots (-j).
include(ExternalProject)
set(KZ_ONE_THREAD_DIR ${CMAKE_BINARY_DIR}/one-thread)
if(CMAKE_GENERATOR MATCHES "Make")
  set(KZ_ONE_THREAD_BUILD $(MAKE) kumalak-web-1t)
else()
  set(KZ_ONE_THREAD_BUILD ${CMAKE_COMMAND} --build ${KZ_ONE_THREAD_DIR} --target kumalak-web-1t)
endif()
ExternalProject_Add(kumalak-web-1t
  SOURCE_DIR ${CMAKE_SOURCE_DIR}
  BINARY_DIR ${KZ_ONE_THREAD_DIR}
  CMAKE_ARGS -DCMAKE_TOOLCHAIN_FILE=${CMAKE_TOOLCHAIN_FILE}
             -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
             -DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER}
             -DKZ_WASM_ONE_THREAD=ON -DKZ_BUILD_TESTS=OFF
  BUILD_COMMAND ${KZ_ONE_THREAD_BUILD}
  INSTALL_COMMAND ""
  BUILD_ALWAYS ON
  BUILD_BYPRODUCTS ${KZ_ONE_THREAD_DIR}/tools/kumalak-web-1t.js
                   ${KZ_ONE_THREAD_DIR}/tools/kumalak-web-1t.wasm
                   ${KZ_ONE_THREAD_DIR}/tools/kumalak-web-1t.data)

# `web-site`: the static site (tools/wasm/make_site.cmake) in build-wasm/web-site: the
# page, this engine, the service worker that keeps it offline, the manifest and icons.
# `kumalak serve --site build-wasm/web-site` serves it, and so does any static host.
find_program(KZ_NODE node REQUIRED)
file(GLOB KZ_SITE_INPUTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/web/*
     ${CMAKE_SOURCE_DIR}/tools/wasm/site/*)
add_custom_target(web-site ALL
  COMMAND ${CMAKE_COMMAND} -DWEB_DIR=${CMAKE_SOURCE_DIR}/tools/web
          -DSITE_DIR=${CMAKE_SOURCE_DIR}/tools/wasm/site
          -DENGINE_DIR=$<TARGET_FILE_DIR:kumalak-web> -DENGINE_1T_DIR=${KZ_ONE_THREAD_DIR}/tools
          -DOUT=${CMAKE_BINARY_DIR}/web-site
          -DNODE=${KZ_NODE} -DKUMALAK_JS=$<TARGET_FILE:kumalak>
          -P ${CMAKE_SOURCE_DIR}/tools/wasm/make_site.cmake
  DEPENDS kumalak-web kumalak-web-1t kumalak ${KZ_SITE_INPUTS} ${CMAKE_SOURCE_DIR}/tools/wasm/make_site.cmake
          ${KZ_WEB_WORKERS}
  COMMENT "Writing the static site")
