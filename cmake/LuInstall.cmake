# `cmake --install` and the Debian packages (cmake/LuPackage.cmake): lu-host
# in bin/, its plugins and lu-agent in <libdir>/liveupdate/ (cmake/LuLayout.cmake
# computes where; lu-host finds them from its own binary), the shell completion
# and the man page (component runtime: package liveupdate); the SDK, headers and
# CMake package, is component dev (sdk/CMakeLists.txt; package liveupdate-dev).
if(TARGET lu-host)
  install(TARGETS lu-host RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
endif()
install(TARGETS lu-agent RUNTIME DESTINATION ${LU_INSTALL_PLUGINDIR} COMPONENT runtime)
foreach(plugin liveupdate updater_local updater_record updater_docker updater_kubernetes)
  if(TARGET ${plugin})
    # Not executable: a plugin is loaded, never run (Debian policy 8.1).
    install(TARGETS ${plugin} LIBRARY DESTINATION ${LU_INSTALL_PLUGINDIR} COMPONENT runtime
            PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  endif()
endforeach()

# The completion scripts and the man page, made by the lu-host just built:
# the scripts from its command table, the man page from its --help and each
# subcommand's (cmake/LuManCommands.cmake).
if(TARGET lu-host)
  set(lu_share ${CMAKE_BINARY_DIR}/share)
  set(lu_shell_files ${lu_share}/lu-host.bash ${lu_share}/_lu-host)
  add_custom_command(OUTPUT ${lu_shell_files}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${lu_share}
    COMMAND lu-host completion bash > ${lu_share}/lu-host.bash
    COMMAND lu-host completion zsh > ${lu_share}/_lu-host
    DEPENDS lu-host
    COMMENT "lu-host completion scripts")
  install(FILES ${lu_share}/lu-host.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
          RENAME lu-host COMPONENT runtime)
  install(FILES ${lu_share}/_lu-host DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions COMPONENT runtime)
  find_program(LU_HELP2MAN help2man)
  if(LU_HELP2MAN)
    add_custom_command(OUTPUT ${lu_share}/lu-host.1.gz
      COMMAND ${CMAKE_COMMAND} -DLU_HOST=$<TARGET_FILE:lu-host> -DOUTPUT=${lu_share}/lu-host-commands.h2m
              -P ${PROJECT_SOURCE_DIR}/cmake/LuManCommands.cmake
      COMMAND ${LU_HELP2MAN} --no-info --version-string=${PROJECT_VERSION}
              "--name=live update for container development" --include=${lu_share}/lu-host-commands.h2m
              --output=${lu_share}/lu-host.1 $<TARGET_FILE:lu-host>
      COMMAND gzip -9nf ${lu_share}/lu-host.1
      DEPENDS lu-host ${PROJECT_SOURCE_DIR}/cmake/LuManCommands.cmake
      COMMENT "lu-host man page (help2man)")
    list(APPEND lu_shell_files ${lu_share}/lu-host.1.gz)
    install(FILES ${lu_share}/lu-host.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
  else()
    message(WARNING "help2man not found (scripts/install-deps.sh installs it): no man page for lu-host")
  endif()
  add_custom_target(lu_host_shell_files ALL DEPENDS ${lu_shell_files})
endif()

include(cmake/LuPackage.cmake)
