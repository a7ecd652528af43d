// The parameter kinds' table, shared by the signature model (signature.cc) and its map and
// JSON forms (signature_json.cc).
#ifndef KWCALL_SRC_PARAM_KINDS_H_
#define KWCALL_SRC_PARAM_KINDS_H_

#include <kwcall/signature.h>

#include <array>
#include <string_view>

namespace kwcall {

// Each kind: its enum value, its inspect.Parameter name (the map/JSON form) and its name in
// messages. Adding a kind is one row here (and the binder's rules for it).
struct KindInfo {
  ParamKind kind;
  std::string_view inspect_name;
  std::string_view text;
};
inline constexpr std::array<KindInfo, 3> kKinds = {{
    {ParamKind::kPositionalOnly, "POSITIONAL_ONLY", "positional-only"},
    {ParamKind::kPositionalOrKeyword, "POSITIONAL_OR_KEYWORD", "positional-or-keyword"},
    {ParamKind::kKeywordOnly, "KEYWORD_ONLY", "keyword-only"},
}};

inline const KindInfo* FindKind(ParamKind kind) {
  for (const KindInfo& info : kKinds) {
    if (info.kind == kind) return &info;
  }
  return nullptr;
}

// Declaration order of the kinds: positional-only < positional-or-keyword < keyword-only.
inline int KindRank(ParamKind kind) { return static_cast<int>(FindKind(kind) - kKinds.data()); }

}  // namespace kwcall

#endif  // KWCALL_SRC_PARAM_KINDS_H_
