# The Debian package trunkfield-server (CPack DEB): scripts/package.sh builds it,
# tests/package/deb_install_test.py installs it in a fresh Debian 12. The install rules are the
# package's layout (absolute /etc and /lib paths: they are not meant for `cmake --install` to a
# home folder):
#   /usr/lib/trunkfield/bin/trunkfield-server   the server (/usr/bin/trunkfield-server links to it)
#   /usr/lib/trunkfield/web -> /usr/share/trunkfield/web
#                                               the web client; the server serves
#                                               <folder of the executable>/../web by default
#   /etc/trunkfield/trunkfield.conf             every flag, commented (a conffile)
#   /lib/systemd/system/trunkfield-server.service
#   /usr/share/doc/trunkfield-server/           OPERATING.md and the nginx example
# The maintainer scripts (packaging/debian/) add the trunkfield user and /var/lib/trunkfield.
# The web client needs the WebAssembly build (emscripten): without it no package is configured.
if(NOT TARGET tf_wasm)
  message(STATUS "Debian package: not configured (it needs the WebAssembly build: emscripten)")
  return()
endif()

# Packing installs what server_bundle built (scripts/package.sh builds it first), not the whole
# tree: without this, cpack's install step would first build every test and benchmark.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)
set(_tf_pkg "${CMAKE_SOURCE_DIR}/packaging")
install(TARGETS trunkfield-server RUNTIME DESTINATION lib/trunkfield/bin)
install(DIRECTORY "${CMAKE_BINARY_DIR}/web/" DESTINATION share/trunkfield/web
  PATTERN package.json EXCLUDE)  # only Node reads it (the wasm tests), not browsers
# Relative links, made in the build tree and installed as links.
set(_tf_links "${CMAKE_BINARY_DIR}/packaging-links")
file(MAKE_DIRECTORY "${_tf_links}/bin" "${_tf_links}/lib")
file(CREATE_LINK ../lib/trunkfield/bin/trunkfield-server "${_tf_links}/bin/trunkfield-server" SYMBOLIC)
file(CREATE_LINK ../../share/trunkfield/web "${_tf_links}/lib/web" SYMBOLIC)
install(FILES "${_tf_links}/bin/trunkfield-server" DESTINATION bin)
install(FILES "${_tf_links}/lib/web" DESTINATION lib/trunkfield)
install(FILES "${_tf_pkg}/trunkfield.conf" DESTINATION /etc/trunkfield)
install(FILES "${_tf_pkg}/trunkfield-server.service" DESTINATION /lib/systemd/system)
install(FILES "${CMAKE_SOURCE_DIR}/docs/OPERATING.md" "${_tf_pkg}/nginx-trunkfield.conf"
  DESTINATION share/doc/trunkfield-server)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME trunkfield-server)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "Trunkfield")
set(CPACK_PACKAGE_CONTACT "Trunkfield operators <ops@trunkfield.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "online two-player board game server with its web client")
# The control file's Description: the summary, then this (CPack indents it).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Trunkfield: two herds of elephants cross a field of tree trunks. This package runs
the authoritative game server (WebSocket and TCP, durable SQLite store, history API,
Prometheus metrics) as the systemd service trunkfield-server, and serves the browser
client on its HTTP port. Settings: /etc/trunkfield/trunkfield.conf; games: /var/lib/trunkfield.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # trunkfield-server_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SECTION games)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Shared libraries from dpkg-shlibdeps (libc6, libstdc++6, libsqlite3-0, libspdlog1.10, libfmt9,
# ...), plus what the maintainer scripts run.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  "${_tf_pkg}/debian/postinst;${_tf_pkg}/debian/prerm;${_tf_pkg}/debian/postrm;${_tf_pkg}/debian/conffiles")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY "${CMAKE_BINARY_DIR}/packages")
include(CPack)
