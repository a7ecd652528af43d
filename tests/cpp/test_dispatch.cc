// Dispatch tables from C++ (kwcall/dispatch.h): key terms, calls, misses, exported tables.
#include <gtest/gtest.h>
#include <kwcall/dispatch.h>
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/tensor.h>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

namespace kwcall {
namespace {

using testing::ErrorOf;

// A DLTensor described by its fields (no data is read: keys look at the description only).
struct TensorDesc {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // empty: none (compact)
  DLDataType dtype{kDLFloat, 32, 1};
  DLDevice device{kDLCPU, 0};
  uintptr_t data = 256;
  DLTensor view() {
    DLTensor t{};
    t.data = reinterpret_cast<void*>(data);
    t.device = device;
    t.ndim = static_cast<int32_t>(shape.size());
    t.dtype = dtype;
    t.shape = shape.data();
    t.strides = strides.empty() ? nullptr : strides.data();
    return t;
  }
};

struct CpuAlloc {
  void AllocData(DLTensor* tensor) { tensor->data = std::malloc(ffi::GetDataSize(*tensor)); }
  void FreeData(DLTensor* tensor) { std::free(tensor->data); }
};

ffi::Tensor CpuTensor(std::vector<int64_t> shape, DLDataType dtype) {
  return ffi::Tensor::FromNDAlloc(CpuAlloc(), ffi::Shape(shape), dtype, {kDLCPU, 0});
}

// def f(x, y=None, *, mode="fast"): entries return their name.
Signature XYMode() {
  return SignatureBuilder("f").Param("x").Param("y", nullptr).KeywordOnly("mode", "fast").Build();
}

ffi::Function Named(std::string name) {
  return ffi::Function::FromPacked(
      [name](ffi::PackedArgs, ffi::Any* result) { *result = ffi::String(name); });
}

std::string Str(const ffi::Any& value) { return std::string(value.cast<ffi::String>()); }

TEST(KeyTerm, WrittenAndReadBack) {
  for (const KeyTerm& term : {key::Dtype("x"), key::Ndim("x"), key::Shape("x", -1),
                              key::Stride("x", 2), key::ZeroStrides("x"), key::Contiguous("x"),
                              key::Divisible("x", 0, 16), key::Aligned("x", 16), key::Device("x"),
                              key::Arch("x"), key::IsNone("y"), key::Value("mode")}) {
    const KeyTerm back = KeyTerm::Parse(term.ToString());
    EXPECT_EQ(back.ToString(), term.ToString());
    EXPECT_EQ(back.kind, term.kind);
  }
  EXPECT_EQ(key::Divisible("x", -1, 16).ToString(), "divisible(x, -1, 16)");
  EXPECT_EQ(KeyTerm::Parse("  shape( x ,-2 ) ").ToString(), "shape(x, -2)");
  EXPECT_NE(ErrorOf([] { KeyTerm::Parse("size(x)"); }).find("no term is called 'size'"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { KeyTerm::Parse("shape(x)"); }).find("shape takes 2 arguments"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { KeyTerm::Parse("shape(x, one)"); }).find("'one' is not an integer"),
            std::string::npos);
}

TEST(DispatchTable, TermsAreCheckedAgainstTheSignature) {
  EXPECT_NE(ErrorOf([] {
              DispatchTable(XYMode(), {key::Dtype("z")});
            }).find("key term dtype(z) reads parameter 'z', which f() does not have"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] {
              DispatchTable(XYMode(), {key::Aligned("x", 12)});
            }).find("must be a power of two"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] {
              DispatchTable(XYMode(), {key::Divisible("x", 0, 0)});
            }).find("must be positive"),
            std::string::npos);
}

TEST(DispatchTable, EveryTermKindReadsItsArgument) {
  DispatchTable table(XYMode(),
                      {key::Dtype("x"), key::Ndim("x"), key::Shape("x", -1), key::Shape("x", 0),
                       key::Stride("x", 0), key::Stride("x", -1), key::ZeroStrides("x"),
                       key::Contiguous("x"), key::Divisible("x", 1, 8), key::Divisible("x", 1, 3),
                       key::Aligned("x", 256), key::Aligned("x", 512), key::Device("x"),
                       key::Arch("x"), key::IsNone("y"), key::Value("mode"), key::Dtype("y")},
                      "every");
  TensorDesc x{{4, 24}, {0, 1}, {kDLBfloat, 16, 1}};
  DLTensor view = x.view();
  ffi::Function key_of = ffi::Function::FromPacked(
      [&](ffi::PackedArgs args, ffi::Any* result) { *result = table.KeyOf(args); });
  Key key = key_of(&view, nullptr, "exact").cast<Key>();
  EXPECT_EQ(Str(key[0]), "bfloat16");
  EXPECT_EQ(key[1].cast<int64_t>(), 2);
  EXPECT_EQ(key[2].cast<int64_t>(), 24);
  EXPECT_EQ(key[3].cast<int64_t>(), 4);
  EXPECT_EQ(key[4].cast<int64_t>(), 0);
  EXPECT_EQ(key[5].cast<int64_t>(), 1);
  EXPECT_EQ(testing::Ints(key[6]), std::vector<int64_t>{0});
  EXPECT_FALSE(key[7].cast<bool>());  // stride 0 over 4 rows is no compact layout
  EXPECT_TRUE(key[8].cast<bool>());
  EXPECT_TRUE(key[9].cast<bool>());
  EXPECT_TRUE(key[10].cast<bool>());
  EXPECT_FALSE(key[11].cast<bool>());
  EXPECT_EQ(Str(key[12]), "cpu:0");
  EXPECT_EQ(key[13].cast<int64_t>(), 0);  // arch of a CPU tensor
  EXPECT_TRUE(key[14].cast<bool>());
  EXPECT_EQ(Str(key[15]), "exact");
  EXPECT_EQ(key[16], nullptr);  // a tensor term of a None argument is None
  // No strides: compact row-major; an ffi::Tensor carries its DLTensor too.
  ffi::Tensor tensor = CpuTensor({3, 5}, {kDLInt, 64, 1});
  key = key_of(tensor, tensor, 7).cast<Key>();
  EXPECT_EQ(Str(key[0]), "int64");
  EXPECT_EQ(key[4].cast<int64_t>(), 5);
  EXPECT_EQ(testing::Ints(key[6]), std::vector<int64_t>{});
  EXPECT_TRUE(key[7].cast<bool>());
  EXPECT_FALSE(key[14].cast<bool>());
  EXPECT_EQ(key[15].cast<int64_t>(), 7);
  EXPECT_EQ(Str(key[16]), "int64");
}

TEST(DispatchTable, ATermThatDoesNotFitItsArgumentIsATypeError) {
  DispatchTable table(XYMode(), {key::Shape("x", 2), key::Value("mode")}, "fit");
  table.Add({2, "fast"}, Named("a"));
  ffi::Function f = table.function();
  EXPECT_EQ(ErrorOf([&] { f(1, nullptr, "fast"); }),
            "TypeError: kwcall.DispatchTable 'fit': key term shape(x, 2) reads a tensor, but 'x' "
            "is int");
  TensorDesc x{{4, 24}};
  DLTensor view = x.view();
  EXPECT_EQ(ErrorOf([&] { f(&view, nullptr, "fast"); }),
            "TypeError: kwcall.DispatchTable 'fit': key term shape(x, 2) reads dimension 2, but "
            "'x' has 2 dimensions");
  TensorDesc x3{{4, 24, 2}};
  DLTensor view3 = x3.view();
  EXPECT_EQ(ErrorOf([&] { f(&view3, nullptr, 1.5); }),
            "TypeError: kwcall.DispatchTable 'fit': key term value(mode) reads a bool, int or str "
            "argument, but 'mode' is float; key a tensor by its terms (dtype, shape, ...)");
}

// A call reads each tensor's terms together; the error is still the first term's in key order.
TEST(DispatchTable, TheFirstTermInKeyOrderThatDoesNotFitIsNamed) {
  Signature xy = SignatureBuilder("f").Param("x").Param("y").Param("n").Build();
  DispatchTable table(
      xy, {key::Dtype("x"), key::Value("n"), key::Shape("y", 5), key::Shape("x", 9)}, "order");
  TensorDesc x{{4, 24}}, y{{4}};
  DLTensor xv = x.view(), yv = y.view();
  ffi::Function f = table.function();
  EXPECT_EQ(ErrorOf([&] { f(&xv, &yv, 1.5); }),
            "TypeError: kwcall.DispatchTable 'order': key term value(n) reads a bool, int or str "
            "argument, but 'n' is float; key a tensor by its terms (dtype, shape, ...)");
  EXPECT_EQ(ErrorOf([&] { f(&xv, &yv, 1); }),
            "TypeError: kwcall.DispatchTable 'order': key term shape(y, 5) reads dimension 5, but "
            "'y' has 1 dimension");
  EXPECT_EQ(ErrorOf([&] { f(&xv, 2, 1); }),
            "TypeError: kwcall.DispatchTable 'order': key term shape(y, 5) reads a tensor, but 'y' "
            "is int");
}

// Terms of an absent optional tensor are None between another tensor's terms; None and 0 are
// different keys (the same words but for the None mask).
TEST(DispatchTable, NoneTermsBetweenOthersAndNoneAgainstZero) {
  DispatchTable table(XYMode(),
                      {key::Dtype("x"), key::Dtype("y"), key::Shape("x", 0), key::Shape("y", 0),
                       key::Value("mode")},
                      "optional");
  TensorDesc x{{4, 24}};
  DLTensor xv = x.view();
  table.Add({"float32", nullptr, 4, nullptr, 0}, Named("zero"));
  table.Add({"float32", nullptr, 4, nullptr, nullptr}, Named("none"));
  table.Add({"float32", "float32", 4, 4, 0}, Named("both"));
  ffi::Function f = table.function();
  EXPECT_EQ(Str(f(&xv, nullptr, 0)), "zero");
  EXPECT_EQ(Str(f(&xv, nullptr, nullptr)), "none");
  EXPECT_EQ(Str(f(&xv, &xv, 0)), "both");
  ffi::Function key_of = ffi::Function::FromPacked(
      [&](ffi::PackedArgs args, ffi::Any* result) { *result = table.KeyOf(args); });
  Key key = key_of(&xv, nullptr, nullptr).cast<Key>();
  EXPECT_EQ(Str(key[0]), "float32");
  EXPECT_EQ(key[1], nullptr);
  EXPECT_EQ(key[2].cast<int64_t>(), 4);
  EXPECT_EQ(key[3], nullptr);
  EXPECT_EQ(key[4], nullptr);
}

TEST(DispatchTable, ArchOfACudaTensorNeedsTheDriver) {
  DispatchTable table(XYMode(), {key::Arch("x")}, "arch");
  TensorDesc x{{4}, {}, {kDLFloat, 32, 1}, {kDLCUDA, 0}};
  DLTensor view = x.view();
  ffi::Function key_of = ffi::Function::FromPacked(
      [&](ffi::PackedArgs args, ffi::Any* result) { *result = table.KeyOf(args); });
  try {
    const int64_t arch = key_of(&view, nullptr, "fast").cast<Key>()[0].cast<int64_t>();
    EXPECT_GE(arch, 30);  // a machine with a CUDA device
  } catch (const ffi::Error& error) {
    EXPECT_EQ(std::string(error.kind()), "RuntimeError");
    EXPECT_NE(std::string(error.message())
                  .find("key term arch(x) reads the compute capability of cuda:0, but "),
              std::string::npos)
        << error.message();
  }
  TensorDesc rocm{{4}, {}, {kDLFloat, 32, 1}, {kDLROCM, 1}};
  DLTensor rocm_view = rocm.view();
  EXPECT_NE(ErrorOf([&] { key_of(&rocm_view, nullptr, "fast"); }).find("'x' is on rocm:1"),
            std::string::npos);
}

TEST(DispatchTable, CallsReachTheEntryOfTheirKey) {
  DispatchTable table(XYMode(), {key::Dtype("x"), key::Shape("x", -1), key::Value("mode")}, "t");
  table.Add({"float32", 128, "fast"}, Named("f32-128-fast"));
  table.Add({"bfloat16", 128, "fast"}, Named("bf16-128-fast"));
  table.Add({"float32", 64, "exact"}, Named("f32-64-exact"));
  ffi::Function f = table.function();
  TensorDesc f32{{2, 128}};
  TensorDesc bf16{{2, 128}, {}, {kDLBfloat, 16, 1}};
  TensorDesc f32_64{{64}};
  DLTensor a = f32.view(), b = bf16.view(), c = f32_64.view();
  EXPECT_EQ(Str(f(&a, nullptr, "fast")), "f32-128-fast");
  EXPECT_EQ(Str(f(&b)), "bf16-128-fast");  // defaults bound first
  EXPECT_EQ(Str(Call(f, &c, Kw("mode", "exact"))), "f32-64-exact");
  EXPECT_EQ(Str(Call(f, Kw("x", &b))), "bf16-128-fast");
  ffi::Tensor tensor = CpuTensor({2, 128}, {kDLFloat, 32, 1});
  EXPECT_EQ(Str(f(tensor)), "f32-128-fast");
  EXPECT_EQ(table.size(), 3);
  ASSERT_EQ(table.Keys().size(), 3u);
  EXPECT_EQ(Str(table.Keys()[1][0]), "bfloat16");
  EXPECT_TRUE(table.Get({"float32", 64, "exact"}).has_value());
  EXPECT_FALSE(table.Get({"float32", 64, "fast"}).has_value());
}

TEST(DispatchTable, AddRefusesKeysAndEntriesThatDoNotFit) {
  DispatchTable table(XYMode(), {key::Dtype("x"), key::ZeroStrides("x")}, "t");
  table.Add({"float16", ffi::Array<int64_t>{2, 0}}, Named("a"));
  EXPECT_NE(ErrorOf([&] { table.Add({"float16"}, Named("b")); })
                .find("a key has one value for each of its 2 terms (dtype(x), zero_strides(x)), "
                      "got 1 values"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              table.Add({"float16", ffi::Array<int64_t>{0, 2}}, Named("b"));
            })
                .find("has an entry for the key dtype(x)='float16', zero_strides(x)=(0, 2) "
                      "already"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              table.Add({"half-ish", nullptr}, Named("b"));
            })
                .find("key term dtype(x) gives a dtype as tvm-ffi spells it ('bfloat16') or "
                      "None, not 'half-ish'"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              table.Add({"float16", ffi::Array<int64_t>{64}}, Named("b"));
            }).find("gives a tuple of distinct dimensions (0 to 63) or None, not (64,)"),
            std::string::npos);
  ffi::Function other = MakeFunction(Named("b"), SignatureBuilder("g").Param("x").Build());
  EXPECT_NE(ErrorOf([&] {
              table.Add({"float32", nullptr}, other);
            }).find("is a kwcall function of g(x), not of the table's f(x, y, *, mode)"),
            std::string::npos);
  // A kwcall function with the table's parameters is an entry.
  table.Add({"float32", nullptr}, MakeFunction(Named("c"), XYMode()));
  EXPECT_EQ(table.size(), 2);
}

TEST(DispatchTable, AMissWithoutCompileNamesTheKeyAndTheNearestKeys) {
  DispatchTable table(XYMode(), {key::Dtype("x"), key::Shape("x", -1)}, "rmsnorm");
  ffi::Function f = table.function();
  TensorDesc x{{2, 128}};
  DLTensor view = x.view();
  EXPECT_EQ(ErrorOf([&] { f(&view); }),
            "LookupError: kwcall.DispatchTable 'rmsnorm' has no entry for the key "
            "dtype(x)='float32', shape(x, -1)=128 and no compile function; it has no entries. "
            "Add one with add(key, function), or make the table with a compile function");
  table.Add({"float16", 64}, Named("a"));
  table.Add({"float16", 128}, Named("b"));
  table.Add({"float32", 64}, Named("c"));
  table.Add({"bfloat16", 256}, Named("d"));
  EXPECT_NE(ErrorOf([&] {
              f(&view);
            }).find("its nearest keys: ('float16', 128), ('float32', 64), ('float16', 64)"),
            std::string::npos);
}

// What `call` returns in each of 8 threads started together, so that their calls race.
std::vector<std::string> RaceEightThreads(const std::function<std::string()>& call) {
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  std::vector<std::string> results(8);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      while (!go) std::this_thread::yield();
      results[i] = call();
    });
  }
  go = true;
  for (auto& t : threads) t.join();
  return results;
}

TEST(DispatchTable, AMissCompilesOncePerKeyUnderRacingThreads) {
  std::atomic<int> compiles{0};
  ffi::Function compile = ffi::Function::FromPacked([&](ffi::PackedArgs args, ffi::Any* result) {
    ++compiles;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let the others miss too
    Key key = args[0].cast<Key>();
    *result = Named("compiled-" + std::to_string(key[0].cast<int64_t>()));
  });
  DispatchTable table(XYMode(), {key::Value("x")}, "racy", compile);
  ffi::Function f = table.function();
  std::vector<std::string> results = RaceEightThreads([&] { return Str(f(5)); });
  EXPECT_EQ(compiles.load(), 1);
  for (const std::string& r : results) EXPECT_EQ(r, "compiled-5");
  EXPECT_EQ(table.size(), 1);
  EXPECT_EQ(Str(f(5)), "compiled-5");
  EXPECT_EQ(compiles.load(), 1);
}

TEST(DispatchTable, ACompileThatFailsLeavesNoEntryAndEveryWaiterFails) {
  std::atomic<int> compiles{0};
  ffi::Function compile = ffi::Function::FromPacked([&](ffi::PackedArgs args, ffi::Any*) {
    ++compiles;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    TVM_FFI_THROW(ValueError) << "no kernel for this shape";
  });
  DispatchTable table(XYMode(), {key::Value("x")}, "failing", compile);
  ffi::Function f = table.function();
  std::vector<std::string> errors = RaceEightThreads([&] { return ErrorOf([&] { f(3); }); });
  int own = 0, waited = 0;
  for (const std::string& e : errors) {
    if (e == "ValueError: no kernel for this shape") ++own;
    if (e.find("RuntimeError: kwcall.DispatchTable 'failing': compiling the key value(x)=3 "
               "failed in another call: ValueError: no kernel for this shape") == 0) {
      ++waited;
    }
  }
  EXPECT_EQ(own, compiles.load());  // each compile's caller gets its own error
  EXPECT_EQ(own + waited, 8);
  EXPECT_EQ(table.size(), 0);
}

TEST(DispatchTable, ACompileReturningNoFunctionIsATypeError) {
  ffi::Function compile =
      ffi::Function::FromPacked([](ffi::PackedArgs, ffi::Any* result) { *result = 3; });
  DispatchTable table(XYMode(), {key::Value("x")}, "bad", compile);
  EXPECT_EQ(ErrorOf([&] { table.function()(1); }),
            "TypeError: kwcall.DispatchTable 'bad': compile, for the key value(x)=1, returned "
            "int, not a function");
  EXPECT_EQ(table.size(), 0);
}

TEST(DispatchTable, HitsWhileOtherThreadsAdd) {
  // Readers call the entries that exist while a writer adds 200 more (the slots grow several
  // times): every call reaches its own entry.
  DispatchTable table(XYMode(), {key::Value("x")}, "growing");
  for (int64_t k = 0; k < 4; ++k) table.Add({k}, Named(std::to_string(k)));
  ffi::Function f = table.function();
  std::atomic<bool> stop{false};
  std::atomic<int64_t> wrong{0};
  std::vector<std::thread> readers;
  for (int i = 0; i < 4; ++i) {
    readers.emplace_back([&, i] {
      while (!stop) {
        const int64_t k = i % 4;
        if (Str(f(k)) != std::to_string(k)) ++wrong;
      }
    });
  }
  for (int64_t k = 4; k < 204; ++k) table.Add({k}, Named(std::to_string(k)));
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  for (int64_t k = 0; k < 204; ++k) EXPECT_EQ(Str(f(k)), std::to_string(k));
}

TEST(DispatchTable, LoadedFromALibraryWithoutCompiling) {
  ffi::Module kernels = ffi::Module::LoadFromFile(KWCALL_TEST_KERNELS_LIBRARY);
  DispatchTable table = LoadDispatchTable(kernels, "pick");
  EXPECT_EQ(table.name(), "pick");
  EXPECT_EQ(table.size(), 2);
  ffi::Function pick = table.function();
  auto fast = pick(3).cast<ffi::Array<ffi::Any>>();
  EXPECT_EQ(Str(fast[0]), "fast");
  EXPECT_EQ(fast[1].cast<int64_t>(), 3);
  auto exact = Call(pick, 4, Kw("mode", "exact")).cast<ffi::Array<ffi::Any>>();
  EXPECT_EQ(Str(exact[0]), "exact");
  EXPECT_EQ(exact[1].cast<int64_t>(), 4);
  EXPECT_EQ(ErrorOf([&] { LoadDispatchTable(kernels, "pick_missing"); }),
            "AttributeError: kwcall::LoadDispatchTable: the dispatch table exported for "
            "'pick_missing' (__kwcall_dispatch_table_pick_missing) names the entry "
            "'no_such_function', which the module does not export");
  EXPECT_NE(ErrorOf([&] { LoadDispatchTable(kernels, "nothing"); })
                .find("AttributeError: kwcall::LoadDispatchTable: the module exports no dispatch "
                      "table for 'nothing'"),
            std::string::npos);
}

}  // namespace
}  // namespace kwcall
