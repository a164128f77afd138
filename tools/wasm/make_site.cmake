# Writes the static site (docs/browser.md): the page (tools/web/) with the WebAssembly
# engine, its service worker and its manifest, into one folder that any static host
# serves as it is. Run by the `web-site` target (tools/wasm/web_engine.cmake):
#   cmake -DWEB_DIR=tools/web -DSITE_DIR=tools/wasm/site -DENGINE_DIR=<kumalak-web's folder>
#         -DENGINE_1T_DIR=<kumalak-web-1t's folder> -DOUT=<folder> -DNODE=<node>
#         -DKUMALAK_JS=<kumalak.js> -P make_site.cmake
# The site is made beside OUT and renamed into place, so a half-written site is never
# served. The version is a hash of every file, so the service worker (sw.js) changes
# with any of them and browsers install the new version.
set(tmp "${OUT}.tmp")
file(REMOVE_RECURSE "${tmp}")
file(MAKE_DIRECTORY "${tmp}")

# The page's files but the Run view's (it watches training runs on a server's disk).
file(GLOB page RELATIVE "${WEB_DIR}" "${WEB_DIR}/*")
list(REMOVE_ITEM page run.html run.js run.css site.js)
foreach(f IN LISTS page)
  file(COPY "${WEB_DIR}/${f}" DESTINATION "${tmp}")
endforeach()
foreach(f kumalak-web.js kumalak-web.wasm kumalak-web.data kumalak-web.worker.js page_worker.js
          engine_worker.js)
  if(NOT EXISTS "${ENGINE_DIR}/${f}")
    message(FATAL_ERROR "make_site.cmake: ${ENGINE_DIR}/${f} is missing (build kumalak-web first)")
  endif()
  file(COPY "${ENGINE_DIR}/${f}" DESTINATION "${tmp}")
endforeach()
# The engine without threads, for a page the browser does not isolate (page_worker.js).
# It packs the same files as kumalak-web, so its .data is not shipped again: the worker
# reads kumalak-web.data for it, which must then be the same bytes.
foreach(f kumalak-web-1t.js kumalak-web-1t.wasm kumalak-web-1t.data)
  if(NOT EXISTS "${ENGINE_1T_DIR}/${f}")
    message(FATAL_ERROR "make_site.cmake: ${ENGINE_1T_DIR}/${f} is missing (build kumalak-web-1t first)")
  endif()
endforeach()
file(SHA256 "${ENGINE_DIR}/kumalak-web.data" threaded_data)
file(SHA256 "${ENGINE_1T_DIR}/kumalak-web-1t.data" one_thread_data)
if(NOT threaded_data STREQUAL one_thread_data)
  message(FATAL_ERROR "make_site.cmake: kumalak-web-1t.data differs from kumalak-web.data "
                      "(the two engines must pack the same files in the same order)")
endif()
file(COPY "${ENGINE_1T_DIR}/kumalak-web-1t.js" "${ENGINE_1T_DIR}/kumalak-web-1t.wasm"
     DESTINATION "${tmp}")
foreach(f manifest.webmanifest icon-192.png icon-512.png)
  file(COPY "${SITE_DIR}/${f}" DESTINATION "${tmp}")
endforeach()

# The page's words in each language as files (`kumalak catalog`, the same JSON as serve's
# /api/lang/{code}), so that the page speaks the player's language before, and without,
# its engine.
execute_process(COMMAND "${NODE}" "${KUMALAK_JS}" catalog OUTPUT_VARIABLE list_json
                RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "make_site.cmake: ${KUMALAK_JS} catalog failed")
endif()
string(JSON count LENGTH "${list_json}" languages)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON code GET "${list_json}" languages ${i})
  execute_process(COMMAND "${NODE}" "${KUMALAK_JS}" catalog ${code}
                  OUTPUT_FILE "${tmp}/lang-${code}.json" RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "make_site.cmake: ${KUMALAK_JS} catalog ${code} failed")
  endif()
endforeach()

# The page as an installable app: its manifest and icons named in index.html.
file(READ "${tmp}/index.html" index)
string(REPLACE "</head>" "<link rel=\"manifest\" href=\"manifest.webmanifest\">
<link rel=\"icon\" href=\"icon-192.png\">
<meta name=\"theme-color\" content=\"#2f5d3a\">
</head>" index "${index}")
file(WRITE "${tmp}/index.html" "${index}")

# The version: every file's hash, in order of name.
file(GLOB files RELATIVE "${tmp}" "${tmp}/*")
list(SORT files)
set(hashes "")
foreach(f IN LISTS files)
  file(SHA256 "${tmp}/${f}" h)
  string(APPEND hashes "${f} ${h}\n")
endforeach()
string(SHA256 version "${hashes}")
string(SUBSTRING "${version}" 0 16 version)

file(WRITE "${tmp}/site.js"
  "// This site's copy of tools/web/site.js (written by tools/wasm/make_site.cmake): the page\n"
  "// answers its calls with the WebAssembly engine in a worker of its own (api.js).\n"
  "export const SITE = { localEngine: true, version: \"${version}\" };\n")
list(APPEND files site.js)
list(SORT files)
# What the service worker installs: every file but the engines' code, and one engine's,
# the one the page will run (service_worker.js says which); the other engine's files are
# kept when the page first asks for them, checked against their SHA-256 here. A browser
# that runs the service worker is mostly isolated by it and runs the threaded engine, so
# installing both would make every first visit download both.
set(engines "{")
foreach(engine threads oneThread)
  if(engine STREQUAL "threads")
    set(engine_files kumalak-web.js kumalak-web.wasm kumalak-web.worker.js)
  else()
    set(engine_files kumalak-web-1t.js kumalak-web-1t.wasm)
    string(APPEND engines ", ")
  endif()
  string(APPEND engines "\"${engine}\": {")
  set(separator "")
  foreach(f IN LISTS engine_files)
    file(SHA256 "${tmp}/${f}" h)
    string(APPEND engines "${separator}\"${f}\": \"${h}\"")
    set(separator ", ")
  endforeach()
  string(APPEND engines "}")
  list(REMOVE_ITEM files ${engine_files})
endforeach()
string(APPEND engines "}")
set(list "")
foreach(f IN LISTS files)
  if(list)
    string(APPEND list ", ")
  endif()
  string(APPEND list "\"${f}\"")
endforeach()
file(READ "${tmp}/page_worker.js" page_worker)
string(REPLACE "@KZ_SITE_VERSION@" "${version}" page_worker "${page_worker}")
file(WRITE "${tmp}/page_worker.js" "${page_worker}")
file(READ "${SITE_DIR}/service_worker.js" worker)
string(REPLACE "@KZ_SITE_VERSION@" "${version}" worker "${worker}")
string(REPLACE "@KZ_SITE_FILES@" "${list}" worker "${worker}")
string(REPLACE "@KZ_SITE_ENGINES@" "${engines}" worker "${worker}")
file(WRITE "${tmp}/sw.js" "${worker}")

file(REMOVE_RECURSE "${OUT}")
file(RENAME "${tmp}" "${OUT}")
message(STATUS "web-site: ${OUT} (version ${version})")
