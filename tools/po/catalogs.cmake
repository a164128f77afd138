# The translations: GNU gettext catalogs tools/po/<code>.po (one per language; English is
# the source, so it has none). Included by the top-level CMakeLists.txt:
#  - msgfmt --check compiles each .po into a .mo (a malformed catalog, a bad header or a
#    plural entry without every form fails the build);
#  - the .mo files become byte arrays in the object library kz_catalogs
#    (embed_catalogs.cmake -> i18n_catalogs.cpp, defining kz_compiled_catalogs of
#    core/i18n.h), which every executable and test links (kz_catalogs below, tools/,
#    tests/), so that each speaks every language without installed locales; core/ itself
#    is built without them;
#  - kz_pot extracts the template of every message id from the sources (extract.sh) into
#    the build folder, which tests/core_i18n_catalogs_test.cpp compares with the catalogs.
find_program(KZ_MSGFMT msgfmt)
find_program(KZ_XGETTEXT xgettext)
if(NOT KZ_MSGFMT OR NOT KZ_XGETTEXT)
  message(FATAL_ERROR "msgfmt/xgettext not found: install gettext (tools/install-deps.sh)")
endif()
set(KZ_I18N_DIR ${CMAKE_BINARY_DIR}/i18n)
file(MAKE_DIRECTORY ${KZ_I18N_DIR})
file(GLOB KZ_PO_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/po/*.po)
set(KZ_MO_FILES "")
foreach(po IN LISTS KZ_PO_FILES)
  get_filename_component(code ${po} NAME_WE)
  add_custom_command(
    OUTPUT ${KZ_I18N_DIR}/${code}.mo
    COMMAND ${KZ_MSGFMT} --check -o ${KZ_I18N_DIR}/${code}.mo ${po}
    DEPENDS ${po}
    COMMENT "msgfmt --check tools/po/${code}.po")
  list(APPEND KZ_MO_FILES ${KZ_I18N_DIR}/${code}.mo)
endforeach()
add_custom_command(
  OUTPUT ${KZ_I18N_DIR}/i18n_catalogs.cpp
  COMMAND ${CMAKE_COMMAND} -DMO_DIR=${KZ_I18N_DIR} -DOUT=${KZ_I18N_DIR}/i18n_catalogs.cpp
          -P ${CMAKE_SOURCE_DIR}/tools/po/embed_catalogs.cmake
  DEPENDS ${KZ_MO_FILES} ${CMAKE_SOURCE_DIR}/tools/po/embed_catalogs.cmake
  COMMENT "Embedding the translation catalogs")
# An object library, so that its one definition is in every executable that links it
# (core/i18n.cpp refers to it weakly, which would not pull it out of an archive).
add_library(kz_catalogs OBJECT ${KZ_I18N_DIR}/i18n_catalogs.cpp)
target_include_directories(kz_catalogs PRIVATE ${CMAKE_SOURCE_DIR})

# The template of every message id in the sources, rebuilt whenever a source changes.
file(GLOB_RECURSE KZ_MESSAGE_SOURCES CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/core/*.cpp ${CMAKE_SOURCE_DIR}/core/*.h
     ${CMAKE_SOURCE_DIR}/mcts/*.cpp ${CMAKE_SOURCE_DIR}/mcts/*.h
     ${CMAKE_SOURCE_DIR}/tools/*.cpp ${CMAKE_SOURCE_DIR}/tools/*.h
     ${CMAKE_SOURCE_DIR}/tools/web/*.js ${CMAKE_SOURCE_DIR}/tools/web/*.html)
add_custom_command(
  OUTPUT ${KZ_I18N_DIR}/kumalak.pot
  COMMAND bash ${CMAKE_SOURCE_DIR}/tools/po/extract.sh ${KZ_I18N_DIR}/kumalak.pot
  DEPENDS ${KZ_MESSAGE_SOURCES} ${CMAKE_SOURCE_DIR}/tools/po/extract.sh
  COMMENT "xgettext: the message ids of the sources")
add_custom_target(kz_pot ALL DEPENDS ${KZ_I18N_DIR}/kumalak.pot)
set(KZ_POT_FILE ${KZ_I18N_DIR}/kumalak.pot)
