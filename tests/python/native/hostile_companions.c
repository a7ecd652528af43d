// Companions (`__kwcall_signature_<name>`) that give no signature: one returns None, one an
// int, one raises, one returns text that is not UTF-8 (a parameter's name holds the byte 0xFF).
// test_cute_companion_errors.py links them into CuTeDSL-exported objects, and builds them with
// -DKWCALL_TEST_TARGETS (a target beside each) into a tvm-ffi module.
#include <tvm/ffi/c_api.h>

#define KWCALL_TEST_SAFE_CALL(Symbol)                                                \
  TVM_FFI_DLL_EXPORT int Symbol(void* self, const TVMFFIAny* args, int32_t num_args, \
                                TVMFFIAny* result)

static int ReturnInt(TVMFFIAny* result, int64_t value) {
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = value;
  return 0;
}

KWCALL_TEST_SAFE_CALL(__tvm_ffi___kwcall_signature_returns_none) {
  result->type_index = kTVMFFINone;
  result->zero_padding = 0;
  result->v_int64 = 0;
  return 0;
}

KWCALL_TEST_SAFE_CALL(__tvm_ffi___kwcall_signature_returns_int) { return ReturnInt(result, 7); }

KWCALL_TEST_SAFE_CALL(__tvm_ffi___kwcall_signature_raises) {
  TVMFFIErrorSetRaisedFromCStr("ValueError", "the companion's own failure");
  return -1;
}

KWCALL_TEST_SAFE_CALL(__tvm_ffi___kwcall_signature_returns_bad_utf8) {
  static const char kJson[] =
      "{\"version\":1,\"name\":\"f\",\"params\":[{\"name\":\"a\xff\","
      "\"kind\":\"POSITIONAL_OR_KEYWORD\"}]}";
  TVMFFIByteArray text = {kJson, sizeof(kJson) - 1};
  return TVMFFIStringFromByteArray(&text, result);
}

#ifdef KWCALL_TEST_TARGETS
KWCALL_TEST_SAFE_CALL(__tvm_ffi_returns_none) { return ReturnInt(result, 0); }
KWCALL_TEST_SAFE_CALL(__tvm_ffi_returns_int) { return ReturnInt(result, 0); }
KWCALL_TEST_SAFE_CALL(__tvm_ffi_raises) { return ReturnInt(result, 0); }
KWCALL_TEST_SAFE_CALL(__tvm_ffi_returns_bad_utf8) { return ReturnInt(result, 0); }
#endif
