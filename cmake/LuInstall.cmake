# `cmake --install`: lu-host in bin/, its plugins in lib/ (where lu-host looks:
# ../lib beside its binary, whatever CMAKE_INSTALL_LIBDIR is), and the SDK
# (headers and the CMake package, see sdk/CMakeLists.txt).
include(GNUInstallDirs)
if(TARGET lu-host)
  install(TARGETS lu-host RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
# The docker updater looks for lu-agent in ../bin from its lib/ folder.
install(TARGETS lu-agent RUNTIME DESTINATION bin)
foreach(plugin liveupdate updater_local updater_record updater_docker updater_kubernetes)
  if(TARGET ${plugin})
    install(TARGETS ${plugin} LIBRARY DESTINATION lib)
  endif()
endforeach()
