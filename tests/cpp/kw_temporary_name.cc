// Compiled by CTest (tests/cpp/CMakeLists.txt): kwcall::Kw views its name, so building one
// from a temporary string must not compile (issue 18.10). Without KWCALL_TEMPORARY_NAME this
// file builds as part of the tests, which shows the failure comes from that form alone.
#include <kwcall/kwargs.h>

#include <string>

int main() {
  const std::string name = "alpha_long_name";
  auto named = kwcall::Kw(name, 7);  // fine: `name` outlives the Kw
#ifdef KWCALL_TEMPORARY_NAME
  auto dangling = kwcall::Kw(std::string("alpha_long_name"), 7);  // the string dies here
#endif
  return named.value == 7 ? 0 : 1;
}
