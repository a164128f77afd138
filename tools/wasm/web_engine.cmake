# `kumalak-web`: the WebAssembly `kumalak` for the page (included by tools/CMakeLists.txt in
# the WebAssembly build; docs/browser.md). The same objects as `kumalak`
# (kz_kumalak_commands), linked for a Web Worker instead of Node:
#  - a module factory, createKumalak(settings), loaded by tools/wasm/page_worker.js, which
#    answers the page's calls of serve's API in it (tools/wasm/page_api.cpp), and by
#    tools/wasm/engine_worker.js, which runs `kumalak engine` in it and passes the
#    protocol's lines in and out as messages;
#  - the shipped models and puzzles packed into kumalak-web.data, mounted at /models (the
#    page has no file system of its own);
#  - threads as under Node (the page must be cross-origin isolated: COOP and COEP headers),
#    main() on a thread of its own so that the worker stays free to carry the output.
add_executable(kumalak-web $<TARGET_OBJECTS:kz_kumalak_commands> ${CMAKE_CURRENT_SOURCE_DIR}/wasm/page_api.cpp)
target_link_libraries(kumalak-web PRIVATE ${KZ_KUMALAK_LINK})
set(KZ_WEB_MODELS togyz.pt togyz-human.pt kalah.pt puzzles/togyz.txt puzzles/kalah.txt
    openings/togyz.kzo)
set(KZ_WEB_PACKED "")
foreach(file IN LISTS KZ_WEB_MODELS)
  list(APPEND KZ_WEB_PACKED "SHELL:--preload-file ${CMAKE_SOURCE_DIR}/models/${file}@/models/${file}")
  set_property(TARGET kumalak-web APPEND PROPERTY LINK_DEPENDS ${CMAKE_SOURCE_DIR}/models/${file})
endforeach()
target_link_options(kumalak-web PRIVATE
  -sPROXY_TO_PTHREAD=1 -sPTHREAD_POOL_SIZE=8 -sMODULARIZE=1 -sEXPORT_NAME=createKumalak
  -sENVIRONMENT=web,worker -sEXIT_RUNTIME=1 -sALLOW_MEMORY_GROWTH=1
  -sINITIAL_MEMORY=134217728 -sMAXIMUM_MEMORY=2147483648 -sTOTAL_STACK=1048576
  "-sEXPORTED_FUNCTIONS=_main,_kz_push_input,_kz_page_start,_kz_page_call,_malloc,_free"
  "-sEXPORTED_RUNTIME_METHODS=UTF8ToString"
  ${KZ_WEB_PACKED})
set_target_properties(kumalak-web PROPERTIES SUFFIX ".js")
# The worker scripts beside the module.
add_custom_command(TARGET kumalak-web POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_SOURCE_DIR}/tools/wasm/engine_worker.js
          ${CMAKE_SOURCE_DIR}/tools/wasm/page_worker.js $<TARGET_FILE_DIR:kumalak-web>)

# `web-site`: the static site (tools/wasm/make_site.cmake) in build-wasm/web-site: the
# page, this engine, the service worker that keeps it offline, the manifest and icons.
# `kumalak serve --site build-wasm/web-site` serves it, and so does any static host.
find_program(KZ_NODE node REQUIRED)
file(GLOB KZ_SITE_INPUTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/web/*
     ${CMAKE_SOURCE_DIR}/tools/wasm/site/*)
add_custom_target(web-site ALL
  COMMAND ${CMAKE_COMMAND} -DWEB_DIR=${CMAKE_SOURCE_DIR}/tools/web
          -DSITE_DIR=${CMAKE_SOURCE_DIR}/tools/wasm/site
          -DENGINE_DIR=$<TARGET_FILE_DIR:kumalak-web> -DOUT=${CMAKE_BINARY_DIR}/web-site
          -DNODE=${KZ_NODE} -DKUMALAK_JS=$<TARGET_FILE:kumalak>
          -P ${CMAKE_SOURCE_DIR}/tools/wasm/make_site.cmake
  DEPENDS kumalak-web kumalak ${KZ_SITE_INPUTS} ${CMAKE_SOURCE_DIR}/tools/wasm/make_site.cmake
          ${CMAKE_SOURCE_DIR}/tools/wasm/page_worker.js
  COMMENT "Writing the static site")
