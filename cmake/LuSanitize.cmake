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
