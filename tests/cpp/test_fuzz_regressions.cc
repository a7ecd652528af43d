// Cases the fuzzers in fuzz/ found, kept as plain tests.
#include <kwcall/kwcall.h>

#include <limits>

#include "test_util.h"

namespace kwcall {
namespace {

using testing::ErrorOf;

// fuzz_signature_json: tvm-ffi's JSON writer writes a subnormal number that its reader then
// refuses, so a signature with such a default made JSON text FromJson could not read back.
TEST(FuzzRegressions, SubnormalDefaultsAreNotWrittenAsJson) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  Signature sig = SignatureBuilder("f").Param("x", tiny).Build();
  EXPECT_EQ(ErrorOf([&] { sig.ToJson(); }),
            "ValueError: The default of parameter 'x' of f() is a subnormal float, which JSON "
            "cannot represent");
  Signature nested = SignatureBuilder("f").Param("x", ffi::Array<ffi::Any>({1.5, -tiny})).Build();
  EXPECT_EQ(ErrorOf([&] { nested.ToJson(); }).rfind("ValueError: ", 0), 0u);
  // The smallest normal number still round-trips.
  Signature normal = SignatureBuilder("f").Param("x", std::numeric_limits<double>::min()).Build();
  EXPECT_EQ(Signature::FromJson(normal.ToJson()).ToJson(), normal.ToJson());
}

}  // namespace
}  // namespace kwcall
