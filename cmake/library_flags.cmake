# The build flags of kwcall's own binaries, libkwcall and the Python extension: hidden
# visibility, so that each exports only what is marked KWCALL_API (include/kwcall/visibility.h)
# or PyInit, and calls inside it bind locally instead of going through the PLT; link-time optimization for Release builds where the toolchain supports it.
option(KWCALL_LTO "Link-time optimization of libkwcall and the extension in Release builds" ON)
if(KWCALL_LTO)
  include(CheckIPOSupported)
  check_ipo_supported(RESULT KWCALL_LTO_SUPPORTED OUTPUT _kwcall_lto_why LANGUAGES CXX)
  if(NOT KWCALL_LTO_SUPPORTED)
    message(STATUS "kwcall: no link-time optimization: ${_kwcall_lto_why}")
  endif()
endif()

# kwcall_library_flags(TARGET): hidden visibility, and LTO in Release builds.
function(kwcall_library_flags target)
  set_target_properties(${target} PROPERTIES CXX_VISIBILITY_PRESET hidden
                                             VISIBILITY_INLINES_HIDDEN ON)
  if(KWCALL_LTO AND KWCALL_LTO_SUPPORTED)
    set_target_properties(${target} PROPERTIES INTERPROCEDURAL_OPTIMIZATION_RELEASE ON)
  endif()
endfunction()
