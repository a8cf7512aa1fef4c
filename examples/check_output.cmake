# cmake "-DCOMMAND=prog;arg..." "-DEXPECT=regex;regex..." [-DWORKDIR=dir]
#       -P check_output.cmake
# Runs an example, requires exit status 0 and every regex to match its
# standard output (ctest's PASS_REGULAR_EXPRESSION would ignore the status).
if(NOT WORKDIR)
  set(WORKDIR .)
endif()
execute_process(COMMAND ${COMMAND} WORKING_DIRECTORY ${WORKDIR}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit status ${rc}\n${err}")
endif()
foreach(re IN LISTS EXPECT)
  if(NOT out MATCHES "${re}")
    message(FATAL_ERROR "output does not match: ${re}\n${err}")
  endif()
endforeach()
