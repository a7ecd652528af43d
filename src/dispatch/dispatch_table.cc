// kwcall::DispatchTable, the public handle (kwcall/dispatch.h), and the FFI globals that give
// dispatch tables to every tvm-ffi language (Python's kwcall.DispatchTable is built on them).
#include <kwcall/dispatch.h>
#include <kwcall/function.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/reflection/registry.h>

#include "dispatch/key_term.h"
#include "dispatch/saved_table.h"
#include "dispatch/table_object.h"

namespace kwcall {
namespace {

std::vector<KeyTerm> ParseTerms(const ffi::Array<ffi::String>& texts) {
  std::vector<KeyTerm> terms;
  for (const ffi::String& text : texts) {
    terms.push_back(KeyTerm::Parse(std::string_view(text.data(), text.size())));
  }
  return terms;
}

DispatchTableObj& TableOf(const ffi::ObjectRef& object) {
  DispatchTableObj* table = AsTableObject(object);
  if (table == nullptr) {
    TVM_FFI_THROW(TypeError) << "kwcall: expected a kwcall.DispatchTable object, got "
                             << (object.get() != nullptr ? object->GetTypeKey() : "None");
  }
  return *table;
}

}  // namespace

DispatchTable::DispatchTable(Signature signature, std::vector<KeyTerm> terms, std::string name,
                             ffi::Optional<ffi::Function> compile)
    : object_(ffi::make_object<DispatchTableObj>(std::move(signature), std::move(terms),
                                                 std::move(name), std::move(compile))) {}

DispatchTable::DispatchTable(ffi::ObjectRef object) : object_(std::move(object)) {
  TableOf(object_);
}

void DispatchTable::Add(const Key& key, ffi::Function entry) const {
  TableOf(object_).Add(key, std::move(entry), ffi::Any());
}
ffi::Optional<ffi::Function> DispatchTable::Get(const Key& key) const {
  return TableOf(object_).Get(key);
}
std::vector<Key> DispatchTable::Keys() const { return TableOf(object_).Keys(); }
int64_t DispatchTable::size() const { return TableOf(object_).size(); }
Key DispatchTable::KeyOf(ffi::PackedArgs args) const {
  return TableOf(object_).KeyOf(reinterpret_cast<const TVMFFIAny*>(args.data()), args.size());
}
ffi::Function DispatchTable::function() const {
  return MakeFunction(TableOf(object_).Dispatcher(), signature());
}
const Signature& DispatchTable::signature() const { return TableOf(object_).signature(); }
const std::vector<KeyTerm>& DispatchTable::terms() const {
  return TableOf(object_).reader().terms();
}
const std::string& DispatchTable::name() const { return TableOf(object_).name(); }

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = ffi::reflection;
  DispatchTableObj::_GetOrAllocRuntimeTypeIndex();
  refl::GlobalDef()
      .def("kwcall.DispatchTable",
           [](Signature signature, ffi::Array<ffi::String> terms, ffi::String name,
              ffi::Optional<ffi::Function> compile) {
             return DispatchTable(std::move(signature), ParseTerms(terms), std::string(name),
                                  std::move(compile))
                 .object();
           })
      // A term as kwcall.key writes it, checked and written back as C++ writes it.
      .def("kwcall.KeyTermText",
           [](ffi::String text) {
             KeyTerm term = KeyTerm::Parse(std::string_view(text.data(), text.size()));
             CheckTermNumbers(term);
             return ffi::String(term.ToString());
           })
      .def("kwcall.DispatchTableAdd",
           [](ffi::ObjectRef table, Key key, ffi::Function entry, ffi::Any keep_alive) {
             return TableOf(table).Add(key, std::move(entry), std::move(keep_alive));
           })
      .def("kwcall.DispatchTableGet",
           [](ffi::ObjectRef table, Key key) { return TableOf(table).Get(key); })
      .def("kwcall.DispatchTableKeys",
           [](ffi::ObjectRef table) {
             ffi::Array<Key> keys;
             for (const Key& key : TableOf(table).Keys()) keys.push_back(key);
             return keys;
           })
      .def("kwcall.DispatchTableSize", [](ffi::ObjectRef table) { return TableOf(table).size(); })
      // Every parameter in order: the dispatching function and the key of a call.
      .def("kwcall.DispatchTableDispatcher",
           [](ffi::ObjectRef table) { return TableOf(table).Dispatcher(); })
      .def("kwcall.DispatchTableKeyOf",
           [](ffi::ObjectRef table) { return TableOf(table).KeyOfFunction(); })
      .def("kwcall.DispatchTableInfo",
           [](ffi::ObjectRef table) {
             const DispatchTableObj& t = TableOf(table);
             ffi::Array<ffi::String> terms;
             for (const KeyTerm& term : t.reader().terms()) terms.push_back(term.ToString());
             ffi::Map<ffi::String, ffi::Any> info;
             info.Set("name", ffi::String(t.name()));
             info.Set("signature", t.signature());
             info.Set("terms", terms);
             info.Set("has_compile", t.has_compile());
             return info;
           })
      .def("kwcall.DispatchTableDescription",
           [](ffi::ObjectRef table, ffi::Array<ffi::String> functions) {
             return ffi::String(DescribeTable(TableOf(table), functions));
           })
      .def("kwcall.LoadDispatchTable",
           [](ffi::Module mod, ffi::String name) { return LoadDispatchTable(mod, name).object(); });
}

}  // namespace kwcall
