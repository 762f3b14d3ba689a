# cmake -DEXECUTABLE=<file> -DLINKED=<a,b,...> -DEXPECT_DNNL=ON|OFF -P check_dnnl.cmake: fails
# unless the executable's link closure LINKED names DNNL::dnnl, and `ldd` of it lists libdnnl,
# exactly when EXPECT_DNNL is ON.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "," ";" linked "${LINKED}")
if("DNNL::dnnl" IN_LIST linked)
  set(links ON)
else()
  set(links OFF)
endif()
execute_process(COMMAND ldd ${EXECUTABLE} OUTPUT_VARIABLE libraries ERROR_VARIABLE errors
                RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "ldd ${EXECUTABLE} failed (${code}): ${errors}")
endif()
string(REGEX MATCH "libdnnl[^ ]*" loaded "${libraries}")

if(EXPECT_DNNL AND NOT links)
  message(FATAL_ERROR "${EXECUTABLE} does not link DNNL::dnnl; it links ${LINKED}")
elseif(EXPECT_DNNL AND NOT loaded)
  message(FATAL_ERROR "${EXECUTABLE} does not load libdnnl; ldd lists:\n${libraries}")
elseif(NOT EXPECT_DNNL AND links)
  message(FATAL_ERROR "${EXECUTABLE} links DNNL::dnnl (through ${LINKED}), but the rewrite "
                      "path must not link oneDNN")
elseif(NOT EXPECT_DNNL AND loaded)
  message(FATAL_ERROR "${EXECUTABLE} loads ${loaded}, but the rewrite path must not link oneDNN")
endif()
