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

# Precompiled headers (option NODEPLAN_PCH): the generated protobuf headers,
# Abseil and the standard library parse in about half of each translation
# unit's compile time, so they are compiled once per kind of target. C
# sources are left alone; a PCH the compiler finds unusable falls back to
# the plain header, so this changes build time only, never the program.
set(NODEPLAN_PCH_HEADERS
  <nodeplan/v1/disrupt.pb.h> <nodeplan/v1/manifest.pb.h> <nodeplan/v1/catalog.pb.h>
  <absl/status/statusor.h> <absl/strings/str_cat.h> <absl/container/flat_hash_map.h>
  <algorithm> <map> <memory> <string> <vector>)

# The PCH list for C++ sources only: one generator expression per header,
# with ">" spelt $<ANGLE-R> so that it does not close the expression.
function(nodeplan_cxx_only out)
  set(result)
  foreach(h ${ARGN})
    string(REPLACE ">" "$<ANGLE-R>" h "${h}")
    list(APPEND result "$<$<COMPILE_LANGUAGE:CXX>:${h}>")
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# GCC 12 loses the system-header mark of headers it reads from a PCH, so
# its -O2 false positives inside libstdc++ and Abseil (-Warray-bounds,
# -Wstringop-*, -Wrestrict; silent for system headers without a PCH) become
# errors. A PCH'd target drops those warnings; configure with
# -DNODEPLAN_PCH=OFF to have them everywhere.
function(nodeplan_pch_warnings target)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE
      "$<$<COMPILE_LANGUAGE:CXX>:-Wno-array-bounds;-Wno-stringop-overread;-Wno-stringop-overflow;-Wno-restrict>")
  endif()
endfunction()

# NODEPLAN_FORCE_INCLUDE, when set, comes before anything else in every C++
# file of the library: first in the PCH, or as -include where there is none.
function(nodeplan_force_include target)
  if(NODEPLAN_FORCE_INCLUDE)
    target_compile_options(${target} PRIVATE
      "$<$<COMPILE_LANGUAGE:CXX>:SHELL:-include ${NODEPLAN_FORCE_INCLUDE}>")
  endif()
endfunction()

# nodeplan_precompile(target [REUSE_FROM other]). A PCH is only reused by a
# target built with the same flags (an executable's -fPIE differs from a
# library's -fPIC).
function(nodeplan_precompile target)
  if(NOT NODEPLAN_PCH)
    nodeplan_force_include(${target})
    return()
  endif()
  nodeplan_pch_warnings(${target})
  cmake_parse_arguments(P "" "REUSE_FROM" "" ${ARGN})
  if(P_REUSE_FROM)
    target_precompile_headers(${target} REUSE_FROM ${P_REUSE_FROM})
  else()
    set(first)
    if(NODEPLAN_FORCE_INCLUDE)
      set(first "\"${NODEPLAN_FORCE_INCLUDE}\"")
    endif()
    nodeplan_cxx_only(headers ${first} ${NODEPLAN_PCH_HEADERS})
    target_precompile_headers(${target} PRIVATE ${headers})
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
  # Every test binary shares one PCH (with GoogleTest in it): the first
  # declared owns it.
  get_property(owner GLOBAL PROPERTY NODEPLAN_TEST_PCH_OWNER)
  if(NODEPLAN_PCH)
    nodeplan_pch_warnings(${T_NAME})
  endif()
  if(NOT NODEPLAN_PCH)
  elseif(owner)
    target_precompile_headers(${T_NAME} REUSE_FROM ${owner})
  else()
    nodeplan_cxx_only(headers ${NODEPLAN_PCH_HEADERS} <gtest/gtest.h> <gmock/gmock.h>)
    target_precompile_headers(${T_NAME} PRIVATE ${headers})
    set_property(GLOBAL PROPERTY NODEPLAN_TEST_PCH_OWNER ${T_NAME})
  endif()
  gtest_discover_tests(${T_NAME} DISCOVERY_MODE PRE_TEST
    PROPERTIES ENVIRONMENT "NODEPLAN_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endfunction()

# Folders appear when something real lives in them; the build follows.
macro(nodeplan_optional_subdirectory dir)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/CMakeLists.txt)
    add_subdirectory(${dir})
  endif()
endmacro()
