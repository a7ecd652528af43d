// RegisterOp: a tvm-ffi function as a torch operator, and the handle that unregisters it; the
// FFI global that gives the same to every tvm-ffi language (Python's kwcall.torch uses it).
#include <kwcall/function.h>
#include <kwcall/torch.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <algorithm>
#include <iterator>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "torch/kernel.h"
#include "torch/op_schema.h"
#include "torch/operator_state.h"
#include "torch/output_plan.h"
#include "torch/shim.h"

namespace kwcall {
namespace torch {
namespace {

// The names kwcall has registered and not unregistered, so that a second registration of one
// is refused with kwcall's own message before torch sees it.
std::mutex names_mutex;
std::set<std::string> registered_names;

// torch's reason for a failed shim call (2.13 keeps it), or an empty string.
std::string TorchReason(const Shim& shim) {
  const char* what = shim.exception_what != nullptr ? shim.exception_what() : nullptr;
  return what != nullptr ? std::string(what) : std::string();
}

void CheckRegistration(const Shim& shim, TorchError error, const std::string& what) {
  if (error == kTorchSuccess) return;
  std::string reason = TorchReason(shim);
  // No guess at the cause when torch gives none: a schema torch cannot read and a name taken
  // already fail alike.
  TVM_FFI_THROW(RuntimeError) << "kwcall.torch: torch refused to " << what << ": "
                              << (reason.empty() ? "this torch gives no reason (2.13 and newer "
                                                   "do)"
                                                 : reason);
}

// Whether a TORCH_LIBRARY (torch's own aten, prims, quantized, ... or an extension's) defines
// `ns`: torch lets one such library define a namespace, so opening another fails exactly then.
// A name added there could join an existing operator's overloads (aten::add has add.Tensor,
// add.Scalar, ... and no default overload), which torch's C shim gives no way to look up.
bool NamespaceHasLibrary(const Shim& shim, const std::string& ns) {
  LibraryHandle probe = nullptr;
  if (shim.library_init_def(ns.c_str(), __FILE__, __LINE__, &probe) != kTorchSuccess) return true;
  shim.delete_library_object(probe);
  return false;
}

// The dispatch keys a device kernel is registered for: the backends whose tensors the kernel
// passes. A kernel for an alias or autograd key (CompositeImplicitAutograd, Autograd,
// AutogradCPU, ...) would run before the Meta kernel, so FakeTensorMode would call the
// function with tensors that have no data.
constexpr const char* kDeviceKeys[] = {"CPU", "CUDA"};

void CheckDeviceTypes(const std::vector<std::string>& device_types) {
  for (const std::string& key : device_types) {
    if (std::find(std::begin(kDeviceKeys), std::end(kDeviceKeys), key) != std::end(kDeviceKeys)) {
      continue;
    }
    TVM_FFI_THROW(ValueError) << "kwcall.torch: device_types names '" << key
                              << "': a kwcall operator gets a kernel for 'CPU' and 'CUDA', the "
                              << "devices whose tensors it passes (and a Meta kernel, always); a "
                              << "kernel for another key, an alias or autograd key among them, "
                              << "could run before the Meta kernel and call the function with "
                              << "fake tensors";
  }
}

// The C entry point TVMFFIFunctionCreate was given for `f`, which it made. Every such function
// shares one safe_call, tvm-ffi's detail::ExternCFunctionObjImpl's (tvm/ffi/function.h), which
// calls the given one, kept after the function cell with its handle and deleter; a Python
// callback and a CuTeDSL kernel differ only there.
TVMFFISafeCallType CreatedWith(const ffi::FunctionObj* f) {
  struct ExternCFields {
    void* self;
    TVMFFISafeCallType safe_call;
    void (*deleter)(void*);
  };
  const char* after_cell = reinterpret_cast<const char*>(f) + sizeof(ffi::FunctionObj);
  return reinterpret_cast<const ExternCFields*>(after_cell)->safe_call;
}

// A registered operator as a tvm-ffi object: destroying the object unregisters it.
class OperatorObj : public ffi::Object {
 public:
  explicit OperatorObj(Operator op) : op(std::move(op)) {}
  Operator op;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("kwcall.torch.Operator", OperatorObj, ffi::Object);
};

}  // namespace

OperatorState::~OperatorState() {
  additions.clear();
  // A state that registered nothing (a failed registration before torch was found, the eager
  // call's own copy) needs no shim: none may be loaded.
  if (!libraries.empty()) {
    const Shim& shim = RequireShim();
    // The implementations first, the definition (the first library) last.
    for (auto it = libraries.rbegin(); it != libraries.rend(); ++it) {
      shim.delete_library_object(*it);
    }
  }
  ReleaseSlot(this);
}

Operator::Operator(std::unique_ptr<OperatorState> state) : state_(std::move(state)) {}
Operator::Operator(Operator&&) noexcept = default;
Operator& Operator::operator=(Operator&& other) noexcept {
  if (this != &other) {
    Reset();
    state_ = std::move(other.state_);
  }
  return *this;
}
Operator::~Operator() { Reset(); }

const std::string& Operator::qualified_name() const { return state_->qualified_name(); }
const std::string& Operator::schema() const { return state_->schema(); }

void Operator::Reset() {
  if (state_ == nullptr) return;
  std::string name = state_->qualified_name();
  state_.reset();
  std::lock_guard<std::mutex> lock(names_mutex);
  registered_names.erase(name);
}

std::unique_ptr<OperatorState> MakeOperatorState(ffi::Function function,
                                                 const std::string& qualified_name,
                                                 const std::string& schema,
                                                 std::vector<Output> outputs) {
  std::string ns, name;
  SplitQualifiedName(qualified_name, &ns, &name);
  std::vector<ArgKind> kinds = ParseArgKinds(schema, outputs.size());
  if (function == nullptr) {
    TVM_FFI_THROW(ValueError) << "kwcall.torch: no function to register as " << qualified_name;
  }
  CallPlan plan = PlanCall(function, qualified_name, kinds, outputs);
  if (plan.sources.size() > kMaxOperatorArgs) {
    TVM_FFI_THROW(ValueError) << "kwcall.torch: " << qualified_name << " has "
                              << plan.sources.size() << " arguments and outputs; an operator "
                              << "may have at most " << kMaxOperatorArgs;
  }
  return std::make_unique<OperatorState>(std::move(function), qualified_name, name + schema,
                                         std::move(kinds), std::move(outputs), std::move(plan));
}

namespace {

// Registers s's kernel for each dispatch key in `keys` ("Meta" gets the Meta kernel), keeping
// each library object in s so that its destruction unregisters them.
void RegisterKernels(const Shim& shim, OperatorState& s, const std::vector<std::string>& keys) {
  std::string ns, name;
  SplitQualifiedName(s.qualified_name(), &ns, &name);
  for (const std::string& key : keys) {
    LibraryHandle library = nullptr;
    CheckRegistration(shim,
                      shim.library_init_impl(ns.c_str(), key.c_str(), __FILE__, __LINE__, &library),
                      "open a library for " + ns + " with the dispatch key '" + key + "'");
    s.libraries.push_back(library);
    BoxedKernel kernel = key == "Meta" ? MetaKernel(s) : DeviceKernel(s);
    CheckRegistration(shim, shim.library_impl(library, name.c_str(), kernel, kExtensionVersion),
                      "register the " + key + " kernel of " + s.qualified_name());
    s.device_types.push_back(key);
  }
}

}  // namespace

Operator RegisterOp(ffi::Function function, const std::string& qualified_name,
                    const std::string& schema, std::vector<std::string> device_types,
                    std::vector<Output> outputs) {
  std::unique_ptr<OperatorState> state =
      MakeOperatorState(std::move(function), qualified_name, schema, std::move(outputs));
  CheckDeviceTypes(device_types);
  std::string ns, name;
  SplitQualifiedName(qualified_name, &ns, &name);
  const std::string& full_schema = state->schema();
  const Shim& shim = RequireShim();
  if (NamespaceHasLibrary(shim, ns)) {
    TVM_FFI_THROW(RuntimeError) << "kwcall.torch: the namespace '" << ns << "' of "
                                << qualified_name << " is defined by a TORCH_LIBRARY (torch's "
                                << "own, or an extension's), where the name could join an "
                                << "existing operator's overloads: register kwcall operators in "
                                << "a namespace of your own, as in 'mylib::" << name << "'";
  }
  {
    std::lock_guard<std::mutex> lock(names_mutex);
    if (!registered_names.insert(qualified_name).second) {
      TVM_FFI_THROW(RuntimeError) << "kwcall.torch: the operator " << qualified_name
                                  << " is registered already (by kwcall); unregister it first";
    }
  }
  // From here on the handle owns everything made: a failure unregisters what was done.
  Operator op(std::move(state));
  OperatorState& s = *op.state_;
  AcquireSlot(&s);
  LibraryHandle library = nullptr;
  CheckRegistration(shim, shim.library_init_fragment(ns.c_str(), __FILE__, __LINE__, &library),
                    "open a library fragment for the namespace " + ns);
  s.libraries.push_back(library);
  CheckRegistration(shim, shim.library_def(library, full_schema.c_str()),
                    "define " + qualified_name + schema);
  device_types.push_back("Meta");
  RegisterKernels(shim, s, device_types);
  return op;
}

void Operator::AddKernels(ffi::Function function, std::vector<std::string> device_types) {
  if (state_ == nullptr) {
    TVM_FFI_THROW(ValueError) << "kwcall.torch: AddKernels on an operator handle that holds none";
  }
  CheckDeviceTypes(device_types);
  for (const std::string& key : device_types) {
    bool taken = std::count(state_->device_types.begin(), state_->device_types.end(), key) > 0;
    for (const auto& added : state_->additions) {
      taken = taken || std::count(added->device_types.begin(), added->device_types.end(), key);
    }
    if (taken) {
      TVM_FFI_THROW(ValueError) << "kwcall.torch: " << state_->qualified_name()
                                << " has a kernel for '" << key << "' already";
    }
  }
  std::unique_ptr<OperatorState> added =
      MakeOperatorState(std::move(function), state_->qualified_name(),
                        state_->schema().substr(state_->schema().find('(')), state_->rules());
  AcquireSlot(added.get());
  RegisterKernels(RequireShim(), *added, device_types);  // on failure, `added` unregisters
  state_->additions.push_back(std::move(added));
}

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = ffi::reflection;
  refl::GlobalDef()
      // kwcall.torch.RegisterOp(function, "ns::name", schema, device_types or None[, outputs
      // or None]): outputs, the rules' maps (OutputsFromMaps), may be left out.
      .def_packed(
          "kwcall.torch.RegisterOp",
          [](ffi::PackedArgs args, ffi::Any* result) {
            if (args.size() != 4 && args.size() != 5) {
              TVM_FFI_THROW(TypeError)
                  << "kwcall.torch.RegisterOp(function, qualified_name, schema, "
                  << "device_types, outputs=None) takes 4 or 5 arguments, got " << args.size();
            }
            auto device_types = args[3].cast<ffi::Optional<ffi::Array<ffi::String>>>();
            std::vector<std::string> keys;
            if (device_types.has_value()) {
              for (const ffi::String& key : *device_types) keys.emplace_back(key);
            } else {
              keys = DefaultDeviceTypes();
            }
            OutputMaps outputs = args.size() == 5 ? args[4].cast<OutputMaps>() : OutputMaps();
            Operator op =
                RegisterOp(args[0].cast<ffi::Function>(), std::string(args[1].cast<ffi::String>()),
                           std::string(args[2].cast<ffi::String>()), std::move(keys),
                           OutputsFromMaps(outputs));
            *result = ffi::ObjectRef(ffi::make_object<OperatorObj>(std::move(op)));
          })
      .def("kwcall.torch.AddKernels",
           [](ffi::ObjectRef handle, ffi::Function function, ffi::Array<ffi::String> keys) {
             auto* obj = const_cast<OperatorObj*>(handle.as<OperatorObj>());
             if (obj == nullptr || !obj->op) {
               TVM_FFI_THROW(TypeError) << "kwcall.torch.AddKernels: not an operator";
             }
             std::vector<std::string> device_types;
             for (const ffi::String& key : keys) device_types.emplace_back(key);
             obj->op.AddKernels(std::move(function), std::move(device_types));
           })
      // Whether `f`, followed through the targets of kwcall functions, ends at a function
      // TVMFFIFunctionCreate made with the C entry point `like` was made with: kwcall.torch
      // passes a Python callback, to refuse targets the kernel's DLTensor views would crash.
      .def("kwcall.torch.TargetCreatedLike",
           [](ffi::Function f, ffi::Function like) {
             while (ffi::Optional<ffi::Function> target = GetTarget(f)) f = *target;
             return f->safe_call == like->safe_call &&
                    CreatedWith(f.get()) == CreatedWith(like.get());
           })
      // The oldest torch release whose shim has every function the kernel needs.
      .def("kwcall.torch.MinimumTorch", []() { return ffi::String(kMinimumTorch); });
}

}  // namespace torch
}  // namespace kwcall
