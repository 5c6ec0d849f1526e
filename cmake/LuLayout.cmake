# Where an installation puts lu-host, its plugins and lu-agent: the one place
# that computes it. lu-host finds its plugins relative to its own binary
# (common/install_layout.cpp gets LU_PLUGINDIR_FROM_BINDIR), so the build tree
# (bin/, lib/) and an installation (bin/, <libdir>/liveupdate/) both work.
#
# On a multiarch system (Debian) the library folder is lib/<multiarch> for
# every prefix, not only /usr as GNUInstallDirs has it: the package (prefix
# /usr, cmake/LuPackage.cmake) then comes from the build folder as configured.
# Done once per build folder, a folder configured before included (whose
# cache holds GNUInstallDirs' "lib"); a later -DCMAKE_INSTALL_LIBDIR stays.
if(CMAKE_LIBRARY_ARCHITECTURE AND NOT LU_LIBDIR_CHOSEN)
  if(NOT DEFINED CMAKE_INSTALL_LIBDIR OR CMAKE_INSTALL_LIBDIR STREQUAL "lib")
    set(CMAKE_INSTALL_LIBDIR "lib/${CMAKE_LIBRARY_ARCHITECTURE}" CACHE PATH "Object code libraries" FORCE)
  endif()
  set(LU_LIBDIR_CHOSEN ON CACHE INTERNAL "CMAKE_INSTALL_LIBDIR was given its multiarch default")
endif()
include(GNUInstallDirs)
# The plugins and lu-agent (which the updaters copy into containers; not a
# command for users, so not on PATH).
set(LU_INSTALL_PLUGINDIR "${CMAKE_INSTALL_LIBDIR}/liveupdate")
file(RELATIVE_PATH LU_PLUGINDIR_FROM_BINDIR "/${CMAKE_INSTALL_BINDIR}" "/${LU_INSTALL_PLUGINDIR}")
