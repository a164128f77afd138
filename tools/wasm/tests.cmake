# The WebAssembly engine end to end under Node (included by tests/CMakeLists.txt in the
# WebAssembly build), beside the native `kumalak` named by KZ_NATIVE_KUMALAK (tools/test.sh
# passes the player's build's): perft and the protocol's answers compared between the two.
set(KZ_NATIVE_KUMALAK "" CACHE FILEPATH "The native kumalak the WebAssembly one is compared with")
add_test(NAME WasmEngineUnderNode
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tools/wasm/engine_node_test.py
          --wasm $<TARGET_FILE:kumalak> --native "${KZ_NATIVE_KUMALAK}"
          --source ${CMAKE_SOURCE_DIR} --shared-data ${KZ_SHARED_DATA})
set_tests_properties(WasmEngineUnderNode PROPERTIES TIMEOUT 900 ENVIRONMENT "KZ_TEST=1")

# The integer forward (KUMALAK_PRECISION=int8, nn/portable_int_convolution.h) in the
# WebAssembly engine and in the native engine's portable forward (the same quantised
# arithmetic): the same move on 30 recorded positions at 200 visits (a few seconds).
if(KZ_NATIVE_KUMALAK)
  add_test(NAME WasmEngineInt8SameMove
    COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tools/wasm/engine_node_test.py
            --wasm $<TARGET_FILE:kumalak> --native "${KZ_NATIVE_KUMALAK}"
            --source ${CMAKE_SOURCE_DIR} --shared-data ${KZ_SHARED_DATA} --skip-protocol
            --positions 30 --nodes 200 --wasm-precision int8 --native-precision int8 --need 0.95)
  set_tests_properties(WasmEngineInt8SameMove PROPERTIES TIMEOUT 120 ENVIRONMENT "KZ_TEST=1")
endif()

# The engine in a Web Worker of headless Chromium (tools/wasm/web_engine_test.py): the page
# build, kumalak-web, served cross-origin isolated; then the same worker from the site in
# a page that is not isolated (the engine without threads, kumalak-web-1t).
add_test(NAME WasmEngineInChromium
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tools/wasm/web_engine_test.py
          --web $<TARGET_FILE_DIR:kumalak-web> --one-thread ${CMAKE_BINARY_DIR}/web-site)
set_tests_properties(WasmEngineInChromium PROPERTIES TIMEOUT 300)

# The page's engine without threads (kumalak-web-1t, the one-thread sub-build) under Node
# as page_worker.js drives it: calls answered at once, jobs run when the host asks.
find_program(KZ_NODE node REQUIRED)
add_test(NAME WasmPageEngineOneThread
  COMMAND ${KZ_NODE} ${CMAKE_SOURCE_DIR}/tools/wasm/page_engine_node_test.js
          ${CMAKE_BINARY_DIR}/one-thread/tools/kumalak-web-1t.js)
set_tests_properties(WasmPageEngineOneThread PROPERTIES TIMEOUT 120)

# The protocol in the page's engine without threads, one line at a time under Node as
# engine_worker.js drives it in a page the browser does not isolate.
add_test(NAME WasmProtocolOneThread
  COMMAND ${KZ_NODE} ${CMAKE_SOURCE_DIR}/tools/wasm/protocol_node_test.js
          ${CMAKE_BINARY_DIR}/one-thread/tools/kumalak-web-1t.js)
set_tests_properties(WasmProtocolOneThread PROPERTIES TIMEOUT 60)

# The static site (tools/wasm/web_site_test.py): a plain static host, the service worker
# and the reload under it, the installable-app check, then with the host gone the page's
# phone checks in four languages, a game kept across a reload, and an update.
add_test(NAME WasmSiteOffline
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tools/wasm/web_site_test.py
          --site ${CMAKE_BINARY_DIR}/web-site --po ${CMAKE_SOURCE_DIR}/tools/po/ru.po)
set_tests_properties(WasmSiteOffline PROPERTIES TIMEOUT 450)

# Every desktop check of the page's browser test (tools/web_test.py) on the site's page,
# whose calls the WebAssembly engine in the page answers, served by the native
# `kumalak serve --site` (the test compares some answers with the server's API); the
# phone in each language is WasmSiteOffline's.
if(KZ_NATIVE_KUMALAK)
  add_test(NAME WasmSitePage
    COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tools/web_test.py --kumalak ${KZ_NATIVE_KUMALAK}
            --models ${CMAKE_SOURCE_DIR}/models --site ${CMAKE_BINARY_DIR}/web-site --timeout 60 --desktop-only)
  set_tests_properties(WasmSitePage PROPERTIES TIMEOUT 450 ENVIRONMENT "KZ_TEST=1")
  # The Run view where `kumalak serve --site --run` serves the site: its files and calls
  # from the server, beside the page whose engine is in the browser.
  add_test(NAME WasmSiteRunView
    COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tools/web_run_test.py --kumalak ${KZ_NATIVE_KUMALAK}
            --run ${CMAKE_SOURCE_DIR}/tests/data/run-view --site ${CMAKE_BINARY_DIR}/web-site)
  set_tests_properties(WasmSiteRunView PROPERTIES TIMEOUT 120 ENVIRONMENT "KZ_TEST=1")
endif()

# kz-forward-speed under Node: the portable forward set against SIMD128's measured peaks,
# the default (its integer path) against the i16 dot product's, fp32 against
# multiply-and-add's.
add_test(NAME WasmForwardSpeedTool
  COMMAND ${KZ_NODE} $<TARGET_FILE:kz-forward-speed> ${CMAKE_SOURCE_DIR}/models/togyz.pt 0.2 8)
set_tests_properties(WasmForwardSpeedTool PROPERTIES TIMEOUT 60 PASS_REGULAR_EXPRESSION
  "^[0-9]+ positions/s, batch 8, precision int8, [0-9.]+ GOP/s, [0-9.]+ of the simd128-i16dot peak [0-9.]+ GOP/s")
add_test(NAME WasmForwardSpeedToolFp32
  COMMAND ${KZ_NODE} $<TARGET_FILE:kz-forward-speed> ${CMAKE_SOURCE_DIR}/models/togyz.pt 0.2 8)
set_tests_properties(WasmForwardSpeedToolFp32 PROPERTIES TIMEOUT 60 ENVIRONMENT "KUMALAK_PRECISION=fp32"
  PASS_REGULAR_EXPRESSION
  "^[0-9]+ positions/s, batch 8, precision fp32, [0-9.]+ GFLOP/s, [0-9.]+ of the simd128 peak [0-9.]+ GFLOP/s")
