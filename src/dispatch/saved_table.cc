// Saved tables (saved_table.h): the description written, and read back by LoadDispatchTable.
#include "dispatch/saved_table.h"

#include <kwcall/dispatch.h>
#include <kwcall/export.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/error.h>

#include "companion.h"

namespace kwcall {
namespace {

// tvm-ffi's JSON reader and writer, through their FFI globals (as signature_json.cc uses them).
std::string Stringify(const ffi::Any& value) {
  static const ffi::Function stringify = ffi::Function::GetGlobalRequired("ffi.json.Stringify");
  return std::string(stringify(value, /*indent=*/nullptr).cast<ffi::String>());
}

ffi::Any Parse(const ffi::String& text) {
  static const ffi::Function parse = ffi::Function::GetGlobalRequired("ffi.json.Parse");
  return parse(text);
}

[[noreturn]] void ThrowInvalid(const std::string& what, const std::string& why) {
  TVM_FFI_THROW(ValueError) << "kwcall::LoadDispatchTable: " << what << " is not valid: " << why;
}

template <typename T>
T Field(const ffi::Map<ffi::String, ffi::Any>& map, const char* field, const std::string& what) {
  auto found = map.find(field);
  if (found == map.end()) ThrowInvalid(what, std::string("it has no \"") + field + "\"");
  auto value = (*found).second.try_cast<T>();
  if (!value.has_value())
    ThrowInvalid(what, std::string("its \"") + field + "\" has the wrong type");
  return *value;
}

}  // namespace

std::string DescribeTable(const DispatchTableObj& table, const ffi::Array<ffi::String>& functions) {
  const std::vector<Key> keys = table.Keys();
  if (keys.size() != functions.size()) {
    TVM_FFI_THROW(ValueError) << "kwcall.DispatchTable '" << table.name() << "' has " << keys.size()
                              << " entries, but " << functions.size()
                              << " function names were given";
  }
  ffi::Array<ffi::String> terms;
  for (const KeyTerm& term : table.reader().terms()) terms.push_back(term.ToString());
  ffi::Array<ffi::Any> entries;
  for (size_t i = 0; i < keys.size(); ++i) {
    ffi::Map<ffi::String, ffi::Any> entry;
    entry.Set("key", keys[i]);
    entry.Set("function", functions[i]);
    entries.push_back(entry);
  }
  ffi::Map<ffi::String, ffi::Any> description;
  description.Set("version", kTableDescriptionVersion);
  description.Set("name", ffi::String(table.name()));
  description.Set("signature", table.signature().ToMap());
  description.Set("key", terms);
  description.Set("entries", entries);
  return Stringify(description);
}

DispatchTable LoadDispatchTable(const ffi::Module& mod, const ffi::String& name) {
  ffi::Optional<ffi::Function> companion = FindCompanion(mod, kDispatchTableCompanion, name);
  if (!companion.has_value()) {
    ThrowNoCompanion("kwcall::LoadDispatchTable", kDispatchTableCompanion, name,
                     "save the table with DispatchTable.save");
  }
  const std::string what = CompanionWhat(kDispatchTableCompanion, name);
  const ffi::String text = CompanionText((*companion)(), what, kDispatchTableCompanion);
  ffi::Any parsed;
  try {
    parsed = Parse(text);
  } catch (const ffi::Error& error) {
    ThrowInvalid(what, error.message());
  }
  auto map = parsed.try_cast<ffi::Map<ffi::String, ffi::Any>>();
  if (!map.has_value()) ThrowInvalid(what, "it is no JSON object");
  if (Field<int64_t>(*map, "version", what) != kTableDescriptionVersion) {
    ThrowInvalid(what, "its version is not " + std::to_string(kTableDescriptionVersion) +
                           ", the one this kwcall reads");
  }
  std::vector<KeyTerm> terms;
  for (const ffi::Any& term : Field<ffi::Array<ffi::Any>>(*map, "key", what)) {
    auto text = term.try_cast<ffi::String>();
    if (!text.has_value()) ThrowInvalid(what, "a key term is no string");
    terms.push_back(KeyTerm::Parse(std::string_view(text->data(), text->size())));
  }
  DispatchTable table(
      Signature::FromMap(Field<ffi::Map<ffi::String, ffi::Any>>(*map, "signature", what)),
      std::move(terms), std::string(Field<ffi::String>(*map, "name", what)));
  for (const ffi::Any& item : Field<ffi::Array<ffi::Any>>(*map, "entries", what)) {
    auto entry = item.try_cast<ffi::Map<ffi::String, ffi::Any>>();
    if (!entry.has_value()) ThrowInvalid(what, "an entry is no JSON object");
    const ffi::String function = Field<ffi::String>(*entry, "function", what);
    ffi::Optional<ffi::Function> found = mod->GetFunction(function);
    if (!found.has_value()) {
      TVM_FFI_THROW(AttributeError) << "kwcall::LoadDispatchTable: " << what << " names the entry '"
                                    << function << "', which the module does not export";
    }
    AsTableObject(table.object())
        ->Add(Field<Key>(*entry, "key", what), *std::move(found), ffi::Any(mod));
  }
  return table;
}

}  // namespace kwcall
