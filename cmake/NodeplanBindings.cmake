# Finds what the binding tests and examples need, once:
#   NODEPLAN_PYTHON_OK  a Python with protobuf and pytest (Python3_EXECUTABLE;
#                       build/venv/bin/python from scripts/setup.sh by default)
#   NODEPLAN_GO_OK      go and protoc-gen-go (NODEPLAN_GO, NODEPLAN_PROTOC_GEN_GO)
# Included by examples/ and bindings/ (sibling scopes, so not guarded).
# A missing tool skips those tests with a warning (scripts/test.sh installs
# everything, so CI never skips).

if(NOT DEFINED Python3_EXECUTABLE AND EXISTS ${PROJECT_SOURCE_DIR}/build/venv/bin/python)
  set(Python3_EXECUTABLE ${PROJECT_SOURCE_DIR}/build/venv/bin/python)
endif()
find_package(Python3 COMPONENTS Interpreter)
set(NODEPLAN_PYTHON_OK OFF)
if(Python3_Interpreter_FOUND)
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import google.protobuf, pytest"
    RESULT_VARIABLE _np_py_rc OUTPUT_QUIET ERROR_QUIET)
  if(_np_py_rc EQUAL 0)
    set(NODEPLAN_PYTHON_OK ON)
  endif()
endif()
if(NOT NODEPLAN_PYTHON_OK)
  message(WARNING "No Python with protobuf and pytest: the Python binding is "
    "not tested. Run scripts/setup.sh and configure with "
    "-DPython3_EXECUTABLE=$PWD/build/venv/bin/python")
endif()

set(NODEPLAN_GO_OK OFF)
find_program(NODEPLAN_GO go)
if(NODEPLAN_GO)
  execute_process(COMMAND ${NODEPLAN_GO} env GOPATH OUTPUT_VARIABLE _np_gopath
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  find_program(NODEPLAN_PROTOC_GEN_GO protoc-gen-go HINTS ${_np_gopath}/bin)
  if(NODEPLAN_PROTOC_GEN_GO)
    set(NODEPLAN_GO_OK ON)
  endif()
endif()
if(NOT NODEPLAN_GO_OK)
  message(WARNING "go or protoc-gen-go not found: the Go binding is not "
    "tested. Run scripts/setup.sh")
endif()
