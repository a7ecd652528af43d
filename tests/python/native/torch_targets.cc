// Test targets for the torch operator tests (tests/python/test_torch_*.py): real tvm-ffi C++
// functions that a kwcall operator's kernel calls with DLPack tensor views.
//
//   axpy(x, y, out, alpha)   out = alpha * x + y, float32 tensors of one shape, any strides
//   recorder()               a function of any arity that keeps how each argument arrived;
//                            last_record() returns that
//   fail(x)                  raises ValueError
//   stream_of(t, out)        writes tvm-ffi's environment stream for t's device into out[0]
//   mul64(a, b, out)         out = a * b, float64 tensors of one shape, any strides
//   qstats(q, out, lse)      q: float32 (b, s, h, d); out = 2 * q, lse[b, h, s] = sum_d q
#include <dlpack/dlpack.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace ffi = tvm::ffi;

// The element offset of flat index `i` in `t` (row-major over its shape, through its strides).
int64_t Offset(const DLTensor* t, int64_t i) {
  int64_t offset = 0;
  for (int d = t->ndim - 1; d >= 0; --d) {
    int64_t size = t->shape[d];
    offset += (i % size) * (t->strides ? t->strides[d] : 1);
    i /= size;
  }
  return offset;
}

int64_t Numel(const DLTensor* t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}

bool Contiguous(const DLTensor* t) {
  int64_t expected = 1;
  for (int d = t->ndim - 1; d >= 0; --d) {
    if (t->strides != nullptr && t->shape[d] != 1 && t->strides[d] != expected) return false;
    expected *= t->shape[d];
  }
  return true;
}

std::atomic<int64_t> axpy_calls{0};

void Axpy(DLTensor* tx, DLTensor* ty, DLTensor* to, double alpha) {
  for (const DLTensor* t : {tx, ty, to}) {
    TVM_FFI_CHECK(t->dtype.code == kDLFloat && t->dtype.bits == 32, TypeError)
        << "axpy takes float32 tensors";
    TVM_FFI_CHECK(t->device.device_type == kDLCPU, ValueError) << "axpy runs on the CPU";
    TVM_FFI_CHECK(Numel(t) == Numel(to), ValueError) << "axpy's tensors differ in size";
  }
  auto* px = static_cast<const float*>(tx->data);
  auto* py = static_cast<const float*>(ty->data);
  auto* po = static_cast<float*>(to->data);
  int64_t n = Numel(to);
  if (Contiguous(tx) && Contiguous(ty) && Contiguous(to)) {
    for (int64_t i = 0; i < n; ++i) po[i] = static_cast<float>(alpha) * px[i] + py[i];
    axpy_calls.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    po[Offset(to, i)] = static_cast<float>(alpha) * px[Offset(tx, i)] + py[Offset(ty, i)];
  }
  axpy_calls.fetch_add(1, std::memory_order_relaxed);
}

int64_t AxpyCalls() { return axpy_calls.load(); }

std::mutex record_mutex;
std::vector<std::string> last;

std::string Describe(const ffi::AnyView& value) {
  std::ostringstream os;
  if (value == nullptr) return "None";
  if (auto t = value.try_cast<DLTensor*>()) {
    const DLTensor* d = *t;
    os << "Tensor(" << value.GetTypeKey() << ", ndim=" << d->ndim << ", bits=" << int(d->dtype.bits)
       << ", code=" << int(d->dtype.code);
    if (d->dtype.lanes != 1) os << ", lanes=" << d->dtype.lanes;
    os << ", device=" << d->device.device_type << ")";
  } else if (value.type_index() == ffi::TypeIndex::kTVMFFIBool) {
    os << "bool:" << (value.cast<bool>() ? "True" : "False");
  } else if (value.type_index() == ffi::TypeIndex::kTVMFFIInt) {
    os << "int:" << value.cast<int64_t>();
  } else if (value.type_index() == ffi::TypeIndex::kTVMFFIFloat) {
    os << "float:" << value.cast<double>();
  } else if (auto s = value.try_cast<ffi::String>()) {
    os << "str:" << std::string(*s);
  } else {
    os << "other:" << value.GetTypeKey();
  }
  return os.str();
}

void Record(ffi::PackedArgs args, ffi::Any* result) {
  std::vector<std::string> seen;
  for (int i = 0; i < args.size(); ++i) seen.push_back(Describe(args[i]));
  std::lock_guard<std::mutex> lock(record_mutex);
  last = std::move(seen);
}

ffi::Array<ffi::String> LastRecord() {
  std::lock_guard<std::mutex> lock(record_mutex);
  ffi::Array<ffi::String> out;
  for (const std::string& s : last) out.push_back(ffi::String(s));
  return out;
}

// record as a function of any arity (packed functions have no typed export).
ffi::Function Recorder() { return ffi::Function::FromPacked(Record); }

void Fail(DLTensor* x) { TVM_FFI_THROW(ValueError) << "fail() was called, as asked"; }

// out[0] = the address of tvm-ffi's environment stream for on_device's device (out: an int64
// CPU tensor): what a kernel launched for on_device would run on.
void StreamOf(DLTensor* on_device, DLTensor* out) {
  void* stream = TVMFFIEnvGetStream(on_device->device.device_type, on_device->device.device_id);
  *static_cast<int64_t*>(out->data) = reinterpret_cast<int64_t>(stream);
}

void Mul64(DLTensor* ta, DLTensor* tb, DLTensor* to) {
  for (const DLTensor* t : {ta, tb, to}) {
    TVM_FFI_CHECK(t->dtype.code == kDLFloat && t->dtype.bits == 64, TypeError)
        << "mul64 takes float64 tensors";
    TVM_FFI_CHECK(t->device.device_type == kDLCPU, ValueError) << "mul64 runs on the CPU";
    TVM_FFI_CHECK(Numel(t) == Numel(to), ValueError) << "mul64's tensors differ in size";
  }
  auto* pa = static_cast<const double*>(ta->data);
  auto* pb = static_cast<const double*>(tb->data);
  auto* po = static_cast<double*>(to->data);
  for (int64_t i = 0; i < Numel(to); ++i) {
    po[Offset(to, i)] = pa[Offset(ta, i)] * pb[Offset(tb, i)];
  }
}

// Writes two results of different shapes, as an attention forward writes out and lse.
void QStats(DLTensor* tq, DLTensor* to, DLTensor* tl) {
  TVM_FFI_CHECK(tq->ndim == 4, ValueError) << "qstats takes q of 4 dimensions, got " << tq->ndim;
  TVM_FFI_CHECK(Contiguous(to) && Contiguous(tl), ValueError) << "qstats writes contiguous results";
  const int64_t b = tq->shape[0], s = tq->shape[1], h = tq->shape[2], d = tq->shape[3];
  TVM_FFI_CHECK(tl->ndim == 3 && tl->shape[0] == b && tl->shape[1] == h && tl->shape[2] == s,
                ValueError)
      << "qstats' lse must be (b, h, s)";
  auto* pq = static_cast<const float*>(tq->data);
  auto* po = static_cast<float*>(to->data);
  auto* pl = static_cast<float*>(tl->data);
  for (int64_t i = 0; i < Numel(tq); ++i) po[i] = 2.0f * pq[Offset(tq, i)];
  for (int64_t ib = 0; ib < b; ++ib)
    for (int64_t ih = 0; ih < h; ++ih)
      for (int64_t is = 0; is < s; ++is) {
        float sum = 0;
        for (int64_t id = 0; id < d; ++id) sum += pq[Offset(tq, ((ib * s + is) * h + ih) * d + id)];
        pl[(ib * h + ih) * s + is] = sum;
      }
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(mul64, Mul64);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(qstats, QStats);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(axpy, Axpy);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(axpy_calls, AxpyCalls);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(recorder, Recorder);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(last_record, LastRecord);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(fail, Fail);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(stream_of, StreamOf);
