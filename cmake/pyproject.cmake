# The one reader of pyproject.toml, where kwcall's version and the supported apache-tvm-ffi
# range are written (the wheel's metadata and everything CMake builds then agree):
#   KWCALL_VERSION        [project] version
#   KWCALL_TVM_FFI_RANGE  the apache-tvm-ffi requirement in [project] dependencies
#   KWCALL_TVM_FFI_SPEC   its version specifier alone (">=0.1.10,<0.1.16")
file(READ "${CMAKE_CURRENT_LIST_DIR}/../pyproject.toml" _kwcall_pyproject)
string(REGEX MATCH "\nversion = \"([0-9][0-9.]*)\"" _ "${_kwcall_pyproject}")
set(KWCALL_VERSION "${CMAKE_MATCH_1}")
string(REGEX MATCH "dependencies = \\[\"(apache-tvm-ffi[^\"]*)\"" _ "${_kwcall_pyproject}")
set(KWCALL_TVM_FFI_RANGE "${CMAKE_MATCH_1}")
string(REGEX REPLACE "^apache-tvm-ffi" "" KWCALL_TVM_FFI_SPEC "${KWCALL_TVM_FFI_RANGE}")
if(NOT KWCALL_VERSION OR NOT KWCALL_TVM_FFI_SPEC MATCHES "^[<>=!~]")
  message(FATAL_ERROR "pyproject.toml: no [project] version or apache-tvm-ffi version range")
endif()
unset(_kwcall_pyproject)
