// What the kernel needs to know of an operator schema: the kind of each argument, in order.
#ifndef KWCALL_SRC_TORCH_OP_SCHEMA_H_
#define KWCALL_SRC_TORCH_OP_SCHEMA_H_

#include <cstdint>
#include <string>
#include <vector>

namespace kwcall {
namespace torch {

enum class ArgType : uint8_t { kTensor, kInt, kFloat, kBool, kStr };

struct ArgKind {
  ArgType type;
  bool optional;  // `T?`: the value comes boxed, or as None
  std::string name;
  bool written = false;  // `Tensor(a!)`: the operator writes into it
};

// The argument kinds of `schema` ("(Tensor x, Tensor(a!) out, *, float alpha=1.0) -> ()").
// Throws ffi::Error (ValueError) naming the argument whose type kwcall's kernel cannot pass,
// or what is wrong with the schema's form (its results must be `num_results` tensors:
// `-> ()`, `-> Tensor`, `-> (Tensor, Tensor)`, ...; one that returns none writes into at least
// one tensor).
std::vector<ArgKind> ParseArgKinds(const std::string& schema, size_t num_results = 0);

// The results of an operator that returns `count` new tensors: "()", "Tensor", "(Tensor, ...)".
std::string ResultsText(size_t count);

// Splits "ns::name" (or "ns::name.overload") into the namespace and the rest; throws
// ffi::Error (ValueError) otherwise.
void SplitQualifiedName(const std::string& qualified_name, std::string* ns, std::string* name);

}  // namespace torch
}  // namespace kwcall

#endif  // KWCALL_SRC_TORCH_OP_SCHEMA_H_
