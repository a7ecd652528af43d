// Reading the argument kinds out of a torch schema. torch parses the schema itself when it is
// registered (and refuses what it cannot read); this only takes out what the kernel unboxes,
// and refuses types the kernel cannot hand to a tvm-ffi function.
#include "torch/op_schema.h"

#include <kwcall/torch.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string_view>

namespace kwcall {
namespace torch {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

bool IsIdentifier(std::string_view text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text.front()))) return false;
  for (char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// The characters the reader models outside quoted defaults: the tokens of an argument list of
// the types kwcall passes. torch's lexer (torch/csrc/jit/frontend/lexer.h) also reads '#'
// comments to the end of a line, '\\' line continuations and triple-quoted strings, each of
// which can hide a comma or a quote from a reader that does not know them, so that torch and
// this reader would see different arguments: an int the caller chooses unboxed as a tensor
// handle. Such text is refused (UnmodelledText), never read.
constexpr std::string_view kModelledPunctuation = "()[],*?!=->.+|";

bool ModelledOutsideQuotes(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == ' ' || c == '\t' || c == '\n' ||
         kModelledPunctuation.find(c) != std::string_view::npos;
}

std::string Describe(char c) {
  if (c == '#') return "'#' (a comment, to torch)";
  if (c == '\\') return "'\\' (a line continuation, to torch)";
  if (c == '\n') return "a line break";
  if (c > ' ' && c < 0x7f) return std::string("'") + c + "'";
  char byte[8];
  std::snprintf(byte, sizeof(byte), "0x%02x", static_cast<unsigned char>(c));
  return std::string("the byte ") + byte;
}

// What in `text` the reader does not model, and where ("" when it models all of it). Inside
// quotes it follows torch's lexer (a backslash escapes the next character; a line break ends the
// string, to torch) and refuses control characters, which torch cannot read there or which
// would cut the C string torch gets.
std::string UnmodelledText(std::string_view text) {
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote == 0) {
      if (c == '\'' || c == '"') {
        if (text.substr(i, 3) == std::string(3, c))
          return "a triple-quoted string at offset " + std::to_string(i);
        quote = c;
      } else if (!ModelledOutsideQuotes(c)) {
        return Describe(c) + " at offset " + std::to_string(i);
      }
      continue;
    }
    if (c == quote) {
      quote = 0;
      continue;
    }
    if (c == '\\' && i + 1 < text.size()) ++i;  // the escaped character, checked as any other
    const unsigned char at = static_cast<unsigned char>(text[i]);
    if ((at < ' ' && at != '\t') || at == 0x7f) {
      return Describe(text[i]) + " in a quoted default at offset " + std::to_string(i);
    }
  }
  return "";
}

// Walks `text` from `from` outside quoted defaults, counting bracket depth (raised after an
// opening bracket, lowered at a closing one), and calls visit(i, c, depth) for each character
// there; the first index where visit returns true, or npos.
template <typename Visit>
size_t ScanOutsideQuotes(std::string_view text, size_t from, Visit visit) {
  int depth = 0;
  char quote = 0;
  for (size_t i = from; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      continue;
    }
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (visit(i, c, depth)) return i;
  }
  return std::string_view::npos;
}

// The index of the parenthesis closing the one at `open`, skipping quoted defaults.
size_t ClosingParen(std::string_view text, size_t open) {
  return ScanOutsideQuotes(
      text, open, [](size_t, char c, int depth) { return (c == ')' || c == ']') && depth == 0; });
}

// The arguments' texts, split at top-level commas.
std::vector<std::string_view> SplitArguments(std::string_view list) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  ScanOutsideQuotes(list, 0, [&](size_t i, char c, int depth) {
    if (c == ',' && depth == 0) {
      parts.push_back(Trim(list.substr(start, i - start)));
      start = i + 1;
    }
    return false;
  });
  std::string_view last = Trim(list.substr(start));
  if (!last.empty() || !parts.empty()) parts.push_back(last);
  return parts;
}

ArgKind KindOf(std::string_view argument) {
  size_t end = 0;
  while (end < argument.size() &&
         (std::isalnum(static_cast<unsigned char>(argument[end])) || argument[end] == '_'))
    ++end;
  std::string_view base = argument.substr(0, end);
  bool optional = false, written = false;
  // A list type ("Tensor[]", "int[2]") keeps its brackets, to be named in the refusal.
  if (end < argument.size() && argument[end] == '[') {
    size_t close = ClosingParen(argument, end);
    if (close != std::string_view::npos) {
      end = close + 1;
      base = argument.substr(0, end);
    }
  }
  // Alias annotations ("(a!)") and the optional mark, in either order.
  while (end < argument.size()) {
    if (argument[end] == '?') {
      optional = true;
      ++end;
    } else if (argument[end] == '(') {
      size_t close = ClosingParen(argument, end);
      if (close == std::string_view::npos) break;
      if (base != "Tensor") break;
      written = written || argument.substr(end, close - end).find('!') != std::string_view::npos;
      end = close + 1;
    } else {
      break;
    }
  }
  std::string_view rest = Trim(argument.substr(end));
  std::string_view name = rest.substr(0, rest.find('='));
  name = Trim(name);
  if (!IsIdentifier(name) || end == 0) {
    TVM_FFI_THROW(ValueError) << "kwcall.torch: cannot read the schema argument '" << argument
                              << "' (expected a type, then a name, as in 'Tensor x')";
  }
  std::string arg_name(name);
  if (base == "Tensor") return {ArgType::kTensor, optional, arg_name, written};
  if (base == "int") return {ArgType::kInt, optional, arg_name};
  if (base == "float") return {ArgType::kFloat, optional, arg_name};
  if (base == "bool") return {ArgType::kBool, optional, arg_name};
  if (base == "str") return {ArgType::kStr, optional, arg_name};
  TVM_FFI_THROW(ValueError) << "kwcall.torch: argument '" << name << "' has the schema type '"
                            << argument.substr(0, end) << "', which kwcall's kernel cannot pass "
                            << "to a tvm-ffi function: use Tensor, int, float, bool or str "
                            << "(each may be optional, 'T?')";
}

}  // namespace

std::string ResultsText(size_t count) {
  if (count == 1) return "Tensor";
  std::string text = "(";
  for (size_t i = 0; i < count; ++i) text += i == 0 ? "Tensor" : ", Tensor";
  return text + ")";
}

std::vector<ArgKind> ParseArgKinds(const std::string& schema, size_t num_results) {
  if (std::string unmodelled = UnmodelledText(schema); !unmodelled.empty()) {
    TVM_FFI_THROW(ValueError) << "kwcall.torch: cannot read the schema '" << schema << "': it has "
                              << unmodelled << ", where torch could read other arguments than "
                              << "kwcall's kernel would pass; write the arguments as 'Type name' "
                              << "or 'Type name=default' without comments, line continuations, "
                              << "triple-quoted strings or control characters";
  }
  std::string_view text = Trim(schema);
  size_t close =
      text.empty() || text.front() != '(' ? std::string_view::npos : ClosingParen(text, 0);
  if (close == std::string_view::npos) {
    TVM_FFI_THROW(ValueError) << "kwcall.torch: the schema '" << schema
                              << "' must be the argument list and its result, as in "
                              << "'(Tensor x, Tensor(a!) out) -> ()' (no operator name)";
  }
  std::string_view result = Trim(text.substr(close + 1));
  const std::string expected = ResultsText(num_results);
  if (result.substr(0, 2) != "->" || Trim(result.substr(2)) != expected) {
    TVM_FFI_THROW(ValueError) << "kwcall.torch: the schema '" << schema << "' must return '"
                              << expected << "': kwcall's operators write into tensors marked "
                              << "as mutated ('Tensor(a!)') and return one new Tensor per "
                              << "output rule (" << num_results << " here)";
  }
  std::vector<ArgKind> kinds;
  bool keyword_only = false;
  for (std::string_view argument : SplitArguments(text.substr(1, close - 1))) {
    if (argument == "*") {
      if (keyword_only)
        TVM_FFI_THROW(ValueError) << "kwcall.torch: '*' twice in '" << schema << "'";
      keyword_only = true;
      continue;
    }
    kinds.push_back(KindOf(argument));
  }
  if (num_results == 0 &&
      std::none_of(kinds.begin(), kinds.end(), [](const ArgKind& k) { return k.written; })) {
    TVM_FFI_THROW(ValueError) << "kwcall.torch: the schema '" << schema << "' returns nothing "
                              << "and writes no tensor: torch.compile takes such an operator "
                              << "for a pure function and may drop its calls; mark each tensor "
                              << "the function writes, as in 'Tensor(a!) out' "
                              << "(kwcall.torch.register: mutates_args=['out'])";
  }
  return kinds;
}

void SplitQualifiedName(const std::string& qualified_name, std::string* ns, std::string* name) {
  size_t colons = qualified_name.find("::");
  if (colons != std::string::npos) {
    *ns = qualified_name.substr(0, colons);
    *name = qualified_name.substr(colons + 2);
  }
  // An overload name follows a dot: "mylib::axpy.out".
  size_t dot = colons == std::string::npos ? std::string::npos : name->find('.');
  bool overload_ok =
      dot == std::string::npos || (IsIdentifier(std::string_view(*name).substr(0, dot)) &&
                                   IsIdentifier(std::string_view(*name).substr(dot + 1)));
  bool base_ok = dot != std::string::npos || IsIdentifier(*name);
  if (colons == std::string::npos || !IsIdentifier(*ns) || !base_ok || !overload_ok) {
    TVM_FFI_THROW(ValueError) << "kwcall.torch: the operator name '" << qualified_name
                              << "' must be 'namespace::name' or 'namespace::name.overload', "
                              << "identifiers (as in 'mylib::axpy' or 'mylib::axpy.out')";
  }
}

namespace {

const char* TypeName(ArgType type) {
  switch (type) {
    case ArgType::kTensor:
      return "Tensor";
    case ArgType::kInt:
      return "int";
    case ArgType::kFloat:
      return "float";
    case ArgType::kBool:
      return "bool";
    case ArgType::kStr:
      return "str";
  }
  return "?";
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  // The kinds RegisterOp's kernel would unbox for `schema`, as "Type name" ("int? o"), or the
  // reader's refusal: what kwcall.cute.export_to_c checks before it writes a schema.
  ffi::reflection::GlobalDef().def("kwcall.torch.ArgumentKinds", [](ffi::String schema) {
    ffi::Array<ffi::String> kinds;
    for (const ArgKind& kind : ParseArgKinds(std::string(schema))) {
      kinds.push_back(std::string(TypeName(kind.type)) + (kind.optional ? "? " : " ") + kind.name);
    }
    return kinds;
  });
}

}  // namespace torch
}  // namespace kwcall
