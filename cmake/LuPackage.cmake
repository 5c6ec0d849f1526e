# The Debian packages, made by `cpack -G DEB` in the build folder:
#   liveupdate      lu-host, its plugins, lu-agent, completion, man page
#   liveupdate-dev  the SDK headers and CMake package (find_package(liveupdate))
# Their dependencies come from the shared libraries (dpkg-shlibdeps);
# tests/packaging/package_test.sh builds them and checks them with lintian.
set(lu_doc ${CMAKE_BINARY_DIR}/packaging)
# Debian wants, in each package, the copyright and a changelog compressed
# without a timestamp (changelog.gz: a native package, its version has no
# Debian revision).
configure_file(${PROJECT_SOURCE_DIR}/packaging/debian/changelog.in ${lu_doc}/changelog @ONLY)
execute_process(COMMAND gzip -9nf ${lu_doc}/changelog RESULT_VARIABLE lu_gzip)
if(NOT lu_gzip EQUAL 0)
  message(FATAL_ERROR "gzip ${lu_doc}/changelog failed: ${lu_gzip}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/packaging/debian/lintian-overrides.in ${lu_doc}/liveupdate @ONLY)
foreach(component_package runtime:liveupdate dev:liveupdate-dev)
  string(REPLACE ":" ";" pair ${component_package})
  list(GET pair 0 component)
  list(GET pair 1 package)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright ${lu_doc}/changelog.gz
          DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package} COMPONENT ${component})
endforeach()
install(FILES ${lu_doc}/liveupdate DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides COMPONENT runtime)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME liveupdate)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "liveupdate maintainers <liveupdate@lists.liveupdate.dev>" CACHE STRING
    "Maintainer of the Debian packages")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME liveupdate)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
# CPack indents the lines after the first (the extended description).
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION "live update for container development
lu-host copies the files a developer changes into the running containers
(Docker, Compose, Kubernetes, local folders) in milliseconds, with the
semantics of Tilt's LiveUpdate, instead of rebuilding the image. This
package holds lu-host, its plugins, lu-agent (copied into containers),
bash and zsh completion and the man page.")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME liveupdate-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DESCRIPTION "live update for container development - plugin SDK
The C ABI headers, a header-only C++ helper and the CMake package
(find_package(liveupdate CONFIG), target liveupdate::sdk) for writing
updater plugins for lu-host out of its source tree.")
include(CPack)
