# The translations: GNU gettext catalogs tools/po/<code>.po (one per language; English is
# the source, so it has none). Included by the top-level CMakeLists.txt after kz_core:
#  - msgfmt --check compiles each .po into a .mo (a malformed catalog, a bad header or a
#    plural entry without every form fails the build);
#  - the .mo files are embedded into kz_core as byte arrays (embed_catalogs.cmake ->
#    i18n_catalogs.inc, read by core/i18n.cpp), so that every executable speaks every
#    language without installed locales;
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
  OUTPUT ${KZ_I18N_DIR}/i18n_catalogs.inc
  COMMAND ${CMAKE_COMMAND} -DMO_DIR=${KZ_I18N_DIR} -DOUT=${KZ_I18N_DIR}/i18n_catalogs.inc
          -P ${CMAKE_SOURCE_DIR}/tools/po/embed_catalogs.cmake
  DEPENDS ${KZ_MO_FILES} ${CMAKE_SOURCE_DIR}/tools/po/embed_catalogs.cmake
  COMMENT "Embedding the translation catalogs")
target_sources(kz_core PRIVATE ${KZ_I18N_DIR}/i18n_catalogs.inc)
target_include_directories(kz_core PRIVATE ${KZ_I18N_DIR})

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
