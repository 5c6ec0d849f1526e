# Runs COMMAND (words separated by "|") in WORKDIR and checks its exit code against
# EXPECTED_RC and its stdout against EXPECTED_FILE (exact) or EXPECTED_REGEX.
string(REPLACE "|" ";" COMMAND "${COMMAND}")
execute_process(COMMAND ${COMMAND} WORKING_DIRECTORY ${WORKDIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL EXPECTED_RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECTED_RC}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(DEFINED EXPECTED_FILE)
  file(READ ${EXPECTED_FILE} expected)
  if(NOT out STREQUAL expected)
    file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/actual-output.txt "${out}")
    message(FATAL_ERROR "stdout differs from ${EXPECTED_FILE}\n--- got:\n${out}\n--- expected:\n${expected}")
  endif()
endif()
if(DEFINED EXPECTED_REGEX AND NOT out MATCHES "${EXPECTED_REGEX}" AND NOT err MATCHES "${EXPECTED_REGEX}")
  message(FATAL_ERROR "output does not match ${EXPECTED_REGEX}\nstdout:\n${out}\nstderr:\n${err}")
endif()
