# The Debian package `roo-ingest` (CPack DEB). Included from the top-level CMakeLists.txt.
#
#   cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build && (cd build && cpack -G DEB)
#
# Contents: /usr/bin/roo-ingest; its man page /usr/share/man/man1/roo-ingest.1.gz; the Autopsy ingest module in
# /usr/share/roo-ingest/autopsy/; the README, row contract, schema and the module's documentation in
# /usr/share/doc/roo-ingest/. Depends: computed by dpkg-shlibdeps from the binary (libtsk19, libewf2, libsqlite3-0,
# libssl3, libdate-tz3, libstdc++6, libc6 on bookworm), and tzdata, whose /usr/share/zoneinfo --tz reads. packaging/test-package.sh builds, checks, installs and removes it; ctest
# runs that as the test `package` (root only).
if(ROO_CORE_ONLY)
  return()
endif()

# The man page, with the project's version, gzipped (-n: no name or time stamp, so the package is reproducible).
set(ROO_MAN_SRC ${PROJECT_SOURCE_DIR}/packaging/roo-ingest.1)
set(ROO_MAN_GZ ${PROJECT_BINARY_DIR}/packaging/roo-ingest.1.gz)
file(READ ${ROO_MAN_SRC} ROO_MAN_TEXT)
string(REGEX REPLACE "\"roo-ingest [0-9][0-9.]*\"" "\"roo-ingest ${PROJECT_VERSION}\"" ROO_MAN_TEXT "${ROO_MAN_TEXT}")
file(WRITE ${PROJECT_BINARY_DIR}/packaging/roo-ingest.1 "${ROO_MAN_TEXT}")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ROO_MAN_SRC})
find_program(ROO_GZIP gzip REQUIRED)
add_custom_command(OUTPUT ${ROO_MAN_GZ}
                   COMMAND ${ROO_GZIP} -9 -n -c ${PROJECT_BINARY_DIR}/packaging/roo-ingest.1 > ${ROO_MAN_GZ}
                   DEPENDS ${ROO_MAN_SRC}
                   COMMENT "gzip the man page")
add_custom_target(roo_man_page ALL DEPENDS ${ROO_MAN_GZ})
install(FILES ${ROO_MAN_GZ} DESTINATION share/man/man1)

install(FILES ${PROJECT_SOURCE_DIR}/plugin/autopsy/roo_ingest_module.py
              ${PROJECT_SOURCE_DIR}/plugin/autopsy/roo_mapping.py
        DESTINATION share/roo-ingest/autopsy)
# The triage-collector definitions (docs/collectors.md), and roo-collectors, which makes them from the catalog.
install(FILES ${PROJECT_SOURCE_DIR}/packaging/collectors/RooCode.tkape
              ${PROJECT_SOURCE_DIR}/packaging/collectors/Generic.Forensic.RooCode.yaml
              ${PROJECT_SOURCE_DIR}/packaging/collectors/roo_code.yaml
        DESTINATION share/roo-ingest/collectors)
install(TARGETS roo-collectors RUNTIME DESTINATION bin)
file(GLOB ROO_DOC_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md ${PROJECT_SOURCE_DIR}/docs/*.json)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${ROO_DOC_FILES} DESTINATION share/doc/roo-ingest)

# `cpack` and `make install` take what is built and do not build "all" first: the package holds the binary the
# tests ran, and packaging never recompiles a tree that changed since (build first, as the README says).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME roo-ingest)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "roo-ingest")
set(CPACK_PACKAGE_CONTACT "roo-ingest maintainers <roo-ingest@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "find what the Roo Code AI coding agent left on a disk image")
# The synopsis line is CPACK_PACKAGE_DESCRIPTION_SUMMARY; this is the extended description (one string).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "roo-ingest opens disk images (raw, split raw, E01) read-only through The Sleuth\n\
Kit, finds the storage of the Roo Code agent for every user and VS Code-family\n\
editor and of the roo CLI, and writes one row per fact (task, prompt, command\n\
and exit code, file edit, approval, setting, credential present) with its\n\
provenance: JSONL, a mactime body file, Timesketch JSONL, l2tcsv, CSV, SQLite\n\
and an HTML report. An Autopsy ingest module is included.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "tzdata")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "sleuthkit, sqlite3")
include(CPack)

# ctest: build the package, check it, install it with dpkg, run the installed binary, remove it. Root only (the
# script prints SKIP otherwise); not for a sanitizer build, whose binary needs the sanitizer runtime.
if(ROO_TESTS AND NOT ROO_SANITIZE)
  add_test(NAME package COMMAND ${PROJECT_SOURCE_DIR}/packaging/test-package.sh ${PROJECT_BINARY_DIR})
  set_tests_properties(package PROPERTIES LABELS package RUN_SERIAL TRUE TIMEOUT 900
                       SKIP_REGULAR_EXPRESSION "SKIP: ")
endif()
