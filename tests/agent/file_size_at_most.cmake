# cmake -DFILE=PATH -DLIMIT=BYTES -P file_size_at_most.cmake: fails, saying
# both sizes, when FILE holds more than LIMIT bytes.
file(SIZE "${FILE}" size)
if(size GREATER LIMIT)
  message(FATAL_ERROR "${FILE} holds ${size} bytes, more than ${LIMIT}")
endif()
message(STATUS "${FILE}: ${size} bytes (at most ${LIMIT})")
