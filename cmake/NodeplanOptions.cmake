# Compiler flags for nodeplan's own targets (never for generated protobuf code
# or third-party headers).
# The fuzz build uses clang, whose warnings differ from gcc's: it warns but
# does not fail (gcc's -Werror build is the gate).
function(nodeplan_strict_warnings target)
  if(NODEPLAN_FUZZ)
    target_compile_options(${target} PRIVATE -Wall -Wextra)
  else()
    target_compile_options(${target} PRIVATE -Wall -Wextra -Werror)
  endif()
endfunction()

# A GoogleTest binary: nodeplan_add_test(NAME foo_test SOURCES a.cc b.cc)
# links the static core (never the shared C library: see DESIGN.md).
function(nodeplan_add_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE nodeplan_core GTest::gtest_main GTest::gmock ${T_LIBS})
  target_compile_definitions(${T_NAME} PRIVATE
    NODEPLAN_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  nodeplan_strict_warnings(${T_NAME})
  gtest_discover_tests(${T_NAME} DISCOVERY_MODE PRE_TEST
    PROPERTIES ENVIRONMENT "NODEPLAN_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endfunction()

# Folders appear when something real lives in them; the build follows.
macro(nodeplan_optional_subdirectory dir)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/CMakeLists.txt)
    add_subdirectory(${dir})
  endif()
endmacro()
