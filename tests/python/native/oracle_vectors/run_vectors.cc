// run_vectors ECHO_LIBRARY VECTORS_JSON: binds each case's call to its signature through
// kwcall::LoadFunction and compares the outcome with CPython's (written by the test). Prints
// each mismatch and a summary; exits 1 on any mismatch.
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/module.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace ffi = tvm::ffi;
using Map = ffi::Map<ffi::String, ffi::Any>;
using List = ffi::Array<ffi::Any>;

// "ok: [1, 2]" or "TypeError: ..." for a call.
std::string Outcome(const ffi::Function& f, const List& pos, const List& kws) {
  std::vector<ffi::Any> values;
  for (const ffi::Any& v : pos) values.push_back(v);
  if (!kws.empty()) {
    values.push_back(kwcall::KwargsSentinel());
    for (const ffi::Any& pair : kws) {
      List kv = pair.cast<List>();
      values.push_back(kv[0]);
      values.push_back(kv[1]);
    }
  }
  std::vector<ffi::AnyView> packed(values.begin(), values.end());
  try {
    ffi::Any rv;
    f.CallPacked(packed.data(), static_cast<int32_t>(packed.size()), &rv);
    std::ostringstream os;
    os << "ok:";
    for (const ffi::Any& item : rv.cast<List>()) os << " " << item.cast<int64_t>();
    return os.str();
  } catch (const ffi::Error& error) {
    return std::string(error.kind()) + ": " + std::string(error.message());
  }
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: run_vectors ECHO_LIBRARY VECTORS_JSON\n";
    return 2;
  }
  ffi::Module echo = ffi::Module::LoadFromFile(argv[1]);
  std::ifstream file(argv[2]);
  std::stringstream text;
  text << file.rdbuf();
  Map root = ffi::json::Parse(text.str()).cast<Map>();
  kwcall::SetKeywordSuggestions(root["suggestions"].cast<bool>());
  int64_t mismatches = 0;
  List cases = root["cases"].cast<List>();
  for (const ffi::Any& item : cases) {
    Map c = item.cast<Map>();
    kwcall::Signature sig =
        kwcall::Signature::FromJson(std::string(c["signature"].cast<ffi::String>()));
    ffi::Function f = kwcall::LoadFunction(echo, "echo", sig);
    std::string got = Outcome(f, c["pos"].cast<List>(), c["kws"].cast<List>());
    std::string want(c["expected"].cast<ffi::String>());
    if (got != want) {
      ++mismatches;
      std::cout << "MISMATCH " << c["describe"].cast<ffi::String>() << "\n  want " << want
                << "\n  got  " << got << "\n";
    }
  }
  std::cout << "cases: " << cases.size() << ", mismatches: " << mismatches << "\n";
  return mismatches ? 1 : 0;
}
