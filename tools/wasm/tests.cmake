# The WebAssembly engine end to end under Node (included by tests/CMakeLists.txt in the
# WebAssembly build), beside the native `kumalak` named by KZ_NATIVE_KUMALAK (tools/test.sh
# passes the player's build's): perft and the protocol's answers compared between the two.
set(KZ_NATIVE_KUMALAK "" CACHE FILEPATH "The native kumalak the WebAssembly one is compared with")
add_test(NAME WasmEngineUnderNode
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tools/wasm/engine_node_test.py
          --wasm $<TARGET_FILE:kumalak> --native "${KZ_NATIVE_KUMALAK}"
          --source ${CMAKE_SOURCE_DIR} --shared-data ${KZ_SHARED_DATA})
set_tests_properties(WasmEngineUnderNode PROPERTIES TIMEOUT 900 ENVIRONMENT "KZ_TEST=1")

# The engine in a Web Worker of headless Chromium (tools/wasm/web_engine_test.py): the page
# build, kumalak-web, served cross-origin isolated.
add_test(NAME WasmEngineInChromium
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tools/wasm/web_engine_test.py
          --web $<TARGET_FILE_DIR:kumalak-web>)
set_tests_properties(WasmEngineInChromium PROPERTIES TIMEOUT 300)
