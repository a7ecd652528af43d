// C++ callers of a dispatch table (python -m kwcall.bench's routes X0-X8, without Python): an
// entry attn(q, k, v, out, causal) that does nothing, called directly and through tables of 16
// keys whose key has 1, 4 and 8 terms. Each call passes DLTensor views of four bfloat16 tensors
// (1x128x8x64, 1x128x2x64, 1x128x2x64, 1x128x8x64), as kwcall's torch kernel and C++ programs do.
//
// Timed: bench/cpp_table.py build/cpp/bench/kwcall_dispatch_bench. Counted (instructions a call,
// repeatable on a loaded machine): valgrind --tool=callgrind build/cpp/bench/kwcall_dispatch_bench
// --benchmark_filter=ROUTE --benchmark_min_time=0.01 (docs/benchmarks.md, "Dispatch tables").
#include <benchmark/benchmark.h>
#include <kwcall/dispatch.h>
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/tensor.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace {

namespace ffi = tvm::ffi;

void Entry(DLTensor* q, DLTensor* k, DLTensor* v, DLTensor* out, bool causal) {}

ffi::Function EntryFunction() {
  static ffi::Function entry = ffi::Function::FromTyped(Entry);
  return entry;
}

kwcall::Signature Attn() {
  return kwcall::SignatureBuilder("attn")
      .Param("q")
      .Param("k")
      .Param("v")
      .Param("out")
      .Param("causal")
      .Build();
}

// The four tensors' descriptions (no data is read).
struct Tensors {
  std::vector<int64_t> wide{1, 128, 8, 64}, narrow{1, 128, 2, 64};
  std::vector<int64_t> wide_strides{65536, 512, 64, 1}, narrow_strides{16384, 128, 64, 1};
  alignas(64) char data[64] = {};
  DLTensor views[4];

  Tensors() {
    const DLDataType bf16{kDLBfloat, 16, 1};
    auto view = [&](std::vector<int64_t>& shape, std::vector<int64_t>& strides) {
      return DLTensor{data, {kDLCPU, 0}, 4, bf16, shape.data(), strides.data(), 0};
    };
    views[0] = view(wide, wide_strides);
    views[1] = view(narrow, narrow_strides);
    views[2] = view(narrow, narrow_strides);
    views[3] = view(wide, wide_strides);
  }
};

Tensors& Views() {
  static Tensors tensors;
  return tensors;
}

// A table over `terms` holding the call's key and 15 others (each int term moved by 1..15).
ffi::Function Table(std::vector<kwcall::KeyTerm> terms) {
  kwcall::DispatchTable table(Attn(), std::move(terms), "bench");
  DLTensor* v = Views().views;
  const kwcall::Key real = table.KeyOf(
      ffi::PackedArgs(std::vector<ffi::AnyView>{&v[0], &v[1], &v[2], &v[3], true}.data(), 5));
  for (int64_t i = 1; i <= 15; ++i) {
    kwcall::Key other;
    for (const ffi::Any& value : real) {
      if (auto n = value.try_cast<int64_t>(); n && value.type_index() == kTVMFFIInt) {
        other.push_back(*n + i);
      } else if (value.type_index() >= kTVMFFIStaticObjectBegin &&
                 value.try_cast<ffi::String>().has_value()) {
        other.push_back(ffi::String(i % 2 ? "float16" : "float32"));
      } else {
        other.push_back(value);
      }
    }
    if (!table.Get(other).has_value()) table.Add(other, EntryFunction());
  }
  table.Add(real, EntryFunction());
  return table.function();
}

void Run(benchmark::State& state, const ffi::Function& f) {
  DLTensor* v = Views().views;
  for (auto _ : state) f(&v[0], &v[1], &v[2], &v[3], true);
}

// X0: the entry, directly.
void EntryDirect(benchmark::State& state) { Run(state, EntryFunction()); }

// X1: 1 term over 1 tensor.
void TableOneTerm(benchmark::State& state) {
  static ffi::Function f = Table({kwcall::key::Dtype("q")});
  Run(state, f);
}

// X4: 4 terms over 3 tensors.
void TableFourTerms(benchmark::State& state) {
  static ffi::Function f = Table({kwcall::key::Dtype("q"), kwcall::key::Shape("q", -1),
                                  kwcall::key::Shape("k", -2), kwcall::key::Divisible("v", -1, 8)});
  Run(state, f);
}

// X8: 8 terms over 3 tensors and a bool.
void TableEightTerms(benchmark::State& state) {
  static ffi::Function f = Table({kwcall::key::Dtype("q"), kwcall::key::Shape("q", -1),
                                  kwcall::key::Shape("k", -1), kwcall::key::Shape("k", -2),
                                  kwcall::key::Contiguous("q"), kwcall::key::Contiguous("k"),
                                  kwcall::key::Aligned("v", 16), kwcall::key::Value("causal")});
  Run(state, f);
}

BENCHMARK(EntryDirect);
BENCHMARK(TableOneTerm);
BENCHMARK(TableFourTerms);
BENCHMARK(TableEightTerms);

}  // namespace

BENCHMARK_MAIN();
