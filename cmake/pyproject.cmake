# The one reader of pyproject.toml, where kwcall's version and the supported apache-tvm-ffi
# range are written (the wheel's metadata and everything CMake builds then agree):
#   KWCALL_VERSION        [project] version
#   KWCALL_TVM_FFI_RANGE  the apache-tvm-ffi requirement in [project] dependencies
file(READ "${CMAKE_CURRENT_LIST_DIR}/../pyproject.toml" _kwcall_pyproject)
string(REGEX MATCH "\nversion = \"([0-9][0-9.]*)\"" _ "${_kwcall_pyproject}")
set(KWCALL_VERSION "${CMAKE_MATCH_1}")
string(REGEX MATCH "dependencies = \\[\"(apache-tvm-ffi[^\"]*)\"" _ "${_kwcall_pyproject}")
set(KWCALL_TVM_FFI_RANGE "${CMAKE_MATCH_1}")
if(NOT KWCALL_VERSION OR NOT KWCALL_TVM_FFI_RANGE)
  message(FATAL_ERROR "pyproject.toml: no [project] version or apache-tvm-ffi dependency")
endif()
unset(_kwcall_pyproject)
