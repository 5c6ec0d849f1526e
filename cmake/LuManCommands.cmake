# Writes the help2man include file of lu-host's man page: a COMMANDS section
# holding each subcommand's --help, the subcommands read from `lu-host --help`
# (its command table), so the man page has no list of its own.
#   cmake -DLU_HOST=PATH -DOUTPUT=FILE -P cmake/LuManCommands.cmake
execute_process(COMMAND ${LU_HOST} --help OUTPUT_VARIABLE top RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${LU_HOST} --help exited with ${status}")
endif()
string(FIND "${top}" "\ncommands:\n" start)
string(SUBSTRING "${top}" ${start} -1 listing)
string(REGEX MATCHALL "\n  [a-z-]+ " rows "${listing}")
set(text "[COMMANDS]\n")
foreach(row IN LISTS rows)
  string(STRIP "${row}" command)
  execute_process(COMMAND ${LU_HOST} ${command} --help OUTPUT_VARIABLE help RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${LU_HOST} ${command} --help exited with ${status}")
  endif()
  # roff: a backslash is \e; a line starting with . or ' would be a request.
  string(REPLACE "\\" "\\e" help "${help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
  string(APPEND text ".SS ${command}\n.nf\n${help}.fi\n")
endforeach()
file(WRITE ${OUTPUT} "${text}")
