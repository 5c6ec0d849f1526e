# Sanitizers for the whole build, chosen with LU_SANITIZE:
#   OFF (default), ON or "address": AddressSanitizer + UndefinedBehaviorSanitizer
#   "thread": ThreadSanitizer (scripts/test.sh builds only the threaded suites with it)
# Any sanitizer leaves plugins' runtime symbols to the executable that loads
# them, so plugins are not linked with --no-undefined then (top CMakeLists).
if(LU_SANITIZE STREQUAL "thread")
  # GCC warns (-Wtsan) that TSan does not model std::atomic_thread_fence,
  # which Boost.Asio uses; the warning is about Asio's internals, not ours.
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer $<$<CXX_COMPILER_ID:GNU>:-Wno-tsan>)
  add_link_options(-fsanitize=thread)
elseif(LU_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined -fno-sanitize-recover=all)
endif()
if(LU_BUILD_FUZZ)
  # A fuzzer finds a problem by the run it ends: no sanitizer may report and go on.
  add_compile_options(-fno-sanitize-recover=all)
endif()
# A sanitizer's report exits with a code of its own, never 1 (what the tests
# that expect a failing lu-host wait for): ctest, run in a sanitized build
# folder, sets it before any test starts. An exitcode already in the
# environment wins.
if(LU_SANITIZE OR LU_BUILD_FUZZ)
  set(lu_sanitizer_environment ${CMAKE_BINARY_DIR}/lu_sanitizer_environment.cmake)
  file(WRITE ${lu_sanitizer_environment} [=[
set(ENV{ASAN_OPTIONS} "exitcode=86:$ENV{ASAN_OPTIONS}")
set(ENV{UBSAN_OPTIONS} "exitcode=87:$ENV{UBSAN_OPTIONS}")
set(ENV{TSAN_OPTIONS} "exitcode=88:$ENV{TSAN_OPTIONS}")
]=])
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${lu_sanitizer_environment})
endif()
