/*
 * kwcall: the parameter list of a kernel function, as Python would declare it.
 *
 * A Signature is the C++ form of `def name(p, /, a, b=1, *, k, m=2)`: positional
 * parameters (the first `posonly_count` of them positional-only), then keyword-only
 * parameters, with right-aligned positional defaults and per-name keyword-only defaults.
 * It is immutable and cheap to copy (shared storage), and validated when it is made.
 */
#ifndef KWCALL_SIGNATURE_H_
#define KWCALL_SIGNATURE_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kwcall {

namespace ffi = ::tvm::ffi;

/*! \brief Everything needed to build a Signature; validated by Signature::Make. */
struct SignatureSpec {
  /*! \brief Shown in error messages as `name()`. Empty means "function". */
  std::string name;
  /*! \brief Every positional parameter, in declaration order. */
  std::vector<std::string> arg_names;
  /*! \brief Defaults of the last `arg_defaults.size()` positional parameters. */
  std::vector<ffi::Any> arg_defaults;
  /*! \brief How many leading positional parameters are positional-only. */
  int32_t posonly_count = 0;
  /*! \brief Keyword-only parameters, in declaration order. */
  std::vector<std::string> kwonly_names;
  /*! \brief Defaults of keyword-only parameters, by name. */
  std::vector<std::pair<std::string, ffi::Any>> kwonly_defaults;
  /*! \brief Parameters whose dataclass values are flattened to tuples (Python side). */
  std::vector<std::string> unpack;
};

/*! \brief A validated parameter list. */
class Signature {
 public:
  /*!
   * \brief Validate a spec and build the signature.
   * \throws ffi::Error of kind ValueError or TypeError naming the offending parameter.
   */
  static Signature Make(SignatureSpec spec);

  /*! \brief Read a signature from its map form (see ToMap); validated like Make. */
  static Signature FromMap(const ffi::Map<ffi::String, ffi::Any>& map);
  /*! \brief Read a signature from its JSON form (see ToJson); validated like Make. */
  static Signature FromJson(std::string_view json);

  /*!
   * \brief The map form, readable from every tvm-ffi language:
   *  {"name", "arg_names", "arg_defaults", "posonly_count", "kwonly_names",
   *   "kwonly_defaults", "unpack"}.
   */
  ffi::Map<ffi::String, ffi::Any> ToMap() const;
  /*!
   * \brief The JSON form (the AOT sidecar format).
   * \throws ffi::Error of kind ValueError when a default is not JSON-representable.
   */
  std::string ToJson() const;

  /*! \brief The display name used in error messages ("function" when none was given). */
  const std::string& name() const { return data_->name; }
  /*! \brief Positional parameters, then keyword-only ones. */
  int32_t num_params() const { return static_cast<int32_t>(data_->names.size()); }
  int32_t num_positional() const { return data_->num_positional; }
  int32_t num_kwonly() const { return num_params() - num_positional(); }
  int32_t posonly_count() const { return data_->posonly_count; }
  /*! \brief How many trailing positional parameters have a default. */
  int32_t num_positional_defaults() const { return data_->num_positional_defaults; }
  /*! \brief True when some parameter has a default. */
  bool has_any_default() const { return data_->has_any_default; }

  const std::string& param_name(int32_t i) const { return data_->names[i]; }
  bool has_default(int32_t i) const { return data_->has_default[i] != 0; }
  /*! \brief The default of parameter i; only meaningful when has_default(i). */
  const ffi::Any& default_value(int32_t i) const { return data_->defaults[i]; }
  /*! \brief Index of the parameter with this name, or -1. */
  int32_t FindParam(std::string_view name) const;
  /*! \brief Names of the parameters whose values are flattened from dataclasses. */
  const std::vector<std::string>& unpack() const { return data_->unpack; }

  /*! \brief The spec this signature was made from (normalized). */
  SignatureSpec ToSpec() const;

  /*! \brief How many Signature objects share this one's storage (copies are cheap). */
  long use_count() const { return data_.use_count(); }

 private:
  struct Data {
    std::string name;
    std::vector<std::string> names;
    std::vector<ffi::Any> defaults;
    std::vector<uint8_t> has_default;
    std::vector<std::string> unpack;
    int32_t num_positional = 0;
    int32_t posonly_count = 0;
    int32_t num_positional_defaults = 0;
    bool has_any_default = false;
  };
  explicit Signature(std::shared_ptr<const Data> data) : data_(std::move(data)) {}
  std::shared_ptr<const Data> data_;
};

/*!
 * \brief Builds a Signature in a few readable lines:
 *
 *   Signature sig = SignatureBuilder("saxpy")
 *                       .PositionalOnly("x")
 *                       .Param("y")
 *                       .Param("alpha", 1.0)
 *                       .KeywordOnly("stream", nullptr)
 *                       .Build();
 */
class SignatureBuilder {
 public:
  explicit SignatureBuilder(std::string name = "") { spec_.name = std::move(name); }

  /*! \brief A positional-only parameter (before `/`). */
  SignatureBuilder& PositionalOnly(std::string name) {
    spec_.arg_names.push_back(std::move(name));
    spec_.posonly_count += 1;
    return *this;
  }
  template <typename T>
  SignatureBuilder& PositionalOnly(std::string name, T&& default_value) {
    PositionalOnly(std::move(name));
    spec_.arg_defaults.emplace_back(std::forward<T>(default_value));
    return *this;
  }
  /*! \brief A positional-or-keyword parameter. */
  SignatureBuilder& Param(std::string name) {
    spec_.arg_names.push_back(std::move(name));
    return *this;
  }
  template <typename T>
  SignatureBuilder& Param(std::string name, T&& default_value) {
    Param(std::move(name));
    spec_.arg_defaults.emplace_back(std::forward<T>(default_value));
    return *this;
  }
  /*! \brief A keyword-only parameter (after `*`). */
  SignatureBuilder& KeywordOnly(std::string name) {
    spec_.kwonly_names.push_back(std::move(name));
    return *this;
  }
  template <typename T>
  SignatureBuilder& KeywordOnly(std::string name, T&& default_value) {
    spec_.kwonly_defaults.emplace_back(name, ffi::Any(std::forward<T>(default_value)));
    return KeywordOnly(std::move(name));
  }
  /*! \brief Mark a parameter whose dataclass values are flattened to tuples. */
  SignatureBuilder& Unpack(std::string name) {
    spec_.unpack.push_back(std::move(name));
    return *this;
  }
  /*! \brief Validate and build; throws like Signature::Make. */
  Signature Build() const { return Signature::Make(spec_); }

 private:
  SignatureSpec spec_;
};

}  // namespace kwcall

#endif  // KWCALL_SIGNATURE_H_
