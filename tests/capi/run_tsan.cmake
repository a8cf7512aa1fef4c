# The C threads test against a ThreadSanitizer build of the library (core,
# shim and generated protos instrumented): configures the project once more
# in BINARY_DIR (tests and benchmarks off), builds only libnodeplan.so, builds
# the test against it and runs it; any race report fails the test.
#   cmake -DSOURCE_DIR= -DBINARY_DIR= -DWORKSHOP= -DCC= -P run_tsan.cmake
# -g1: line tables are all a race report needs, and compile much faster.
set(flags "-fsanitize=thread -g1 -O1")
# RelWithDebInfo's own -O2 -g would come after these and win.
set(config_flags "-DNDEBUG")
# g++ 12 reports false maybe-uninitialized positives inside Abseil's
# InlinedVector once optimizing; this build looks for races, not warnings.
set(cxx_flags "${flags} -Wno-maybe-uninitialized")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BINARY_DIR}
    -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
    -DNODEPLAN_BUILD_TESTS=OFF -DNODEPLAN_BUILD_BENCHMARKS=OFF
    # Read first by every C++ file (first in the PCH), so our code agrees
    # with the uninstrumented libprotobuf.so on protobuf's map-field layout
    # (see the header).
    -DNODEPLAN_FORCE_INCLUDE=${SOURCE_DIR}/tests/capi/tsan_protobuf_layout.h
    -DCMAKE_C_COMPILER=${CC}
    "-DCMAKE_C_FLAGS=${flags}" "-DCMAKE_CXX_FLAGS=${cxx_flags}"
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=${config_flags}"
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=${config_flags}"
    "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread"
    "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread"
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the TSan build failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BINARY_DIR} --target nodeplan_c -j 2
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building libnodeplan.so with TSan failed")
endif()
separate_arguments(flag_list UNIX_COMMAND "${flags}")
execute_process(COMMAND ${CC} ${flag_list} -std=c99 -Wall -Werror
    ${SOURCE_DIR}/tests/capi/c_api_threads_test.c
    -I${SOURCE_DIR}/capi/include -L${BINARY_DIR}/capi -lnodeplan
    -Wl,-rpath,${BINARY_DIR}/capi -lpthread -o ${BINARY_DIR}/c_api_threads_tsan
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the threads test with TSan failed")
endif()
set(ENV{TSAN_OPTIONS} "halt_on_error=1:exitcode=66")
execute_process(COMMAND ${BINARY_DIR}/c_api_threads_tsan ${WORKSHOP}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "threads test under TSan: exit status ${rc}")
endif()
