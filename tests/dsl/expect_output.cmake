# Runs COMMAND (arguments separated by '|') in WORKING_DIRECTORY and checks its exit code is
# EXPECTED_CODE and, when EXPECTED_STDERR names a file, that stderr equals its contents.
string(REPLACE "|" ";" command "${COMMAND}")
execute_process(COMMAND ${command} WORKING_DIRECTORY "${WORKING_DIRECTORY}"
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code STREQUAL "${EXPECTED_CODE}")
  message(FATAL_ERROR "exit code ${code}, expected ${EXPECTED_CODE}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(EXPECTED_STDERR)
  file(READ "${EXPECTED_STDERR}" expected)
  if(NOT err STREQUAL expected)
    message(FATAL_ERROR "stderr differs from ${EXPECTED_STDERR}:\n${err}")
  endif()
endif()
