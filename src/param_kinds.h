// The parameter kinds kwcall supports, once: inspect.Parameter's kinds, each with its number
// (ParamKind's value, which is inspect.Parameter.kind's), its inspect name (the map and JSON
// form) and its name in messages, in declaration order. Shared by the signature model
// (signature.cc) and its map and JSON forms (signature_json.cc); keyed by number, it needs
// nothing of kwcall. A new kind is a row here (and the binder's rules for it).
#ifndef KWCALL_SRC_PARAM_KINDS_H_
#define KWCALL_SRC_PARAM_KINDS_H_

#include <array>
#include <cstdint>
#include <string_view>

namespace kwcall {

struct KindInfo {
  int32_t number;  // inspect.Parameter.kind, and ParamKind's value
  std::string_view inspect_name;
  std::string_view text;
};

// Declaration order: positional-only < positional-or-keyword < keyword-only.
inline constexpr std::array<KindInfo, 3> kKinds = {{
    {0, "POSITIONAL_ONLY", "positional-only"},
    {1, "POSITIONAL_OR_KEYWORD", "positional-or-keyword"},
    {3, "KEYWORD_ONLY", "keyword-only"},
}};

/*! \brief The kind numbered `number`, or nullptr. */
inline const KindInfo* FindKind(int32_t number) {
  for (const KindInfo& info : kKinds) {
    if (info.number == number) return &info;
  }
  return nullptr;
}

/*! \brief The kind whose inspect name is `name`, or nullptr. */
inline const KindInfo* FindKindByInspectName(std::string_view name) {
  for (const KindInfo& info : kKinds) {
    if (info.inspect_name == name) return &info;
  }
  return nullptr;
}

}  // namespace kwcall

#endif  // KWCALL_SRC_PARAM_KINDS_H_
