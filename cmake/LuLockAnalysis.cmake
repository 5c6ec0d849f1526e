# Clang proves what the locks of the host, common/, the updaters and the
# plugin's engine say they guard (LU_GUARDED_BY, LU_REQUIRES: common/thread_annotations.hpp,
# docs/threading.md) with -Wthread-safety, which the top CMakeLists sets on
# every clang compile (an error under -Werror). lu_lock_analysis compiles the
# sources of the given libraries, and nothing else, so a clang build that
# cannot build all of their dependencies (scripts/test.sh's fuzz build) still
# checks them:  cmake --build build-fuzz --target lu_lock_analysis

function(lu_lock_analysis)
  add_library(lu_lock_analysis OBJECT EXCLUDE_FROM_ALL)
  # The analysis is part of clang's semantic checks: no code need be made
  # (nothing links these objects), which saves a third to a half of each
  # file's compile time. No object file is written, so each build checks again.
  target_compile_options(lu_lock_analysis PRIVATE -fsyntax-only)
  # Checked as a unity build, up to eight sources of one library to a file, as
  # the sanitizer trees compile them: their shared headers are parsed once for
  # the eight (the analysis is per function, so nothing goes unchecked). A file
  # its library compiles alone in a unity build is checked alone here too.
  set_target_properties(lu_lock_analysis PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  foreach(library ${ARGN})
    get_target_property(folder ${library} SOURCE_DIR)
    get_target_property(sources ${library} SOURCES)
    # Generated sources (absolute, in the build folder) hold no locks.
    list(FILTER sources EXCLUDE REGEX "^/")
    list(TRANSFORM sources PREPEND ${folder}/)
    target_sources(lu_lock_analysis PRIVATE ${sources})
    set(index 0)
    foreach(source ${sources})
      get_source_file_property(alone ${source} DIRECTORY ${folder} SKIP_UNITY_BUILD_INCLUSION)
      if(NOT source MATCHES "\\.(c|cc|cpp|cxx)$" OR alone)
        continue()
      endif()
      math(EXPR batch "${index} / 8")
      set_source_files_properties(${source} PROPERTIES UNITY_GROUP ${library}_${batch})
      math(EXPR index "${index} + 1")
    endforeach()
    # The libraries' own flags, read without linking them (no build order on them).
    target_include_directories(lu_lock_analysis PRIVATE $<TARGET_PROPERTY:${library},INCLUDE_DIRECTORIES>)
    target_compile_definitions(lu_lock_analysis PRIVATE $<TARGET_PROPERTY:${library},COMPILE_DEFINITIONS>)
  endforeach()
endfunction()
