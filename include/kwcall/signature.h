/*!
 * \file kwcall/signature.h
 * \brief The parameter list of a kernel function, as Python would declare it.
 *
 * A Signature is the C++ form of `def name(p, /, a, b=1, *, k, m=2)`: an ordered list of
 * parameters, each positional-only, positional-or-keyword or keyword-only, each with an
 * optional default. It is a tvm-ffi object (type key "kwcall.Signature"): immutable, shared
 * by reference, passed to and from every tvm-ffi language like any other object, and
 * validated once, when it is made.
 */
#ifndef KWCALL_SIGNATURE_H_
#define KWCALL_SIGNATURE_H_

#include <kwcall/visibility.h>
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/string.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kwcall {

namespace ffi = ::tvm::ffi;

/*! \brief How a parameter may be passed. The values are those of `inspect.Parameter.kind`. */
enum class ParamKind : int32_t {
  kPositionalOnly = 0,
  kPositionalOrKeyword = 1,
  kKeywordOnly = 3,
};

// The limits every signature is checked against; exceeding one is a ValueError that names the
// limit.

/*! \brief Parameters in one signature. */
inline constexpr int32_t kMaxParams = 1024;
/*! \brief Bytes (UTF-8) in a parameter name or a display name. */
inline constexpr int32_t kMaxNameBytes = 1024;
/*! \brief Nesting of arrays and maps inside a default value, and of a signature's JSON text. */
inline constexpr int32_t kMaxNestingDepth = 64;
/*!
 * \brief Array items and map entries in a signature's defaults, all levels and all defaults
 *        together: what keeps a signature (an exported one above all) small to hold and copy.
 */
inline constexpr int64_t kMaxDefaultElements = 65536;
/*!
 * \brief Bytes of a signature's JSON text (FromJson refuses longer text before parsing it,
 *        ToJson refuses to write it): room for kMaxParams names of kMaxNameBytes each and
 *        kMaxDefaultElements numbers (about 2.8 MB); long string defaults may not fit.
 */
inline constexpr int64_t kMaxJsonBytes = int64_t{4} << 20;

/*!
 * \brief Parameter names tvm-ffi's make_kwargs_wrapper reserves for the code it generates;
 *        every signature refuses them, so that one valid for kwcall is valid for tvm-ffi.
 */
inline constexpr std::array<std::string_view, 4> kReservedNames = {
    "__i_target_func", "__i_MISSING", "__i_arg_defaults", "__i_unpack"};

/*! \brief One parameter of a signature. */
struct Param {
  /*! \brief A Python identifier (NFKC-normalized, not a keyword, not __debug__). */
  std::string name;
  ParamKind kind = ParamKind::kPositionalOrKeyword;
  /*! \brief The value used when a call leaves the parameter out; none makes it required. */
  std::optional<ffi::Any> default_value;
  /*! \brief Python callers' dataclass values are flattened to tuples (see kwcall.Signature). */
  bool unpack = false;
};

/*! \brief The object behind a Signature. Read it through Signature. */
class SignatureObj : public ffi::Object {
 public:
  /*! \brief Shown in error messages as `name()`; "function" when none was given. */
  const std::string& name() const { return name_; }
  /*! \brief Every parameter in declaration order: positional ones, then keyword-only ones. */
  const std::vector<Param>& params() const { return params_; }
  int32_t num_positional() const { return num_positional_; }
  int32_t posonly_count() const { return posonly_count_; }
  /*! \brief How many trailing positional parameters have a default. */
  int32_t num_positional_defaults() const { return num_positional_defaults_; }
  /*! \brief Whether some parameter is marked for unpacking. */
  bool has_unpack() const { return has_unpack_; }

  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("kwcall.Signature", SignatureObj, ffi::Object);

 private:
  friend class Signature;
  std::string name_;
  std::vector<Param> params_;
  int32_t num_positional_ = 0;
  int32_t posonly_count_ = 0;
  int32_t num_positional_defaults_ = 0;
  bool has_unpack_ = false;
};

/*! \brief A validated parameter list (a reference to an immutable SignatureObj). */
class KWCALL_API Signature : public ffi::ObjectRef {
 public:
  /*!
   * \brief Validate the parameters and build the signature.
   *
   * Names must be distinct Python identifiers (NFKC-normalized, not keywords, not __debug__,
   * which CPython refuses to bind); kinds must come in declaration order (positional-only,
   * positional-or-keyword, keyword-only); no positional parameter without a default may
   * follow one with a default; no name is one of kReservedNames; the limits above hold.
   * \throws ffi::Error of kind ValueError or TypeError naming the offending parameter.
   */
  static Signature Make(std::string name, std::vector<Param> params);

  /*!
   * \brief Read the map form (see ToMap); validated like Make.
   * \throws ffi::Error of kind ValueError or TypeError naming the offending field.
   */
  static Signature FromMap(const ffi::Map<ffi::String, ffi::Any>& map);
  /*!
   * \brief Read the JSON form (see ToJson); validated like Make. Text longer than
   *        kMaxJsonBytes or nested deeper than kMaxNestingDepth is refused before parsing.
   */
  static Signature FromJson(std::string_view json);

  /*!
   * \brief The map form, readable from every tvm-ffi language:
   *   {"version": 1, "name": "f", "params": [{"name": "a", "kind": "POSITIONAL_ONLY",
   *    "default": 1, "unpack": true}, ...]}
   * where "default" and "unpack" are present only when the parameter has them and "kind" is
   * the name of an `inspect.Parameter` kind.
   */
  ffi::Map<ffi::String, ffi::Any> ToMap() const;
  /*!
   * \brief The map form as JSON text: what an ahead-of-time export ships with its code.
   * \throws ffi::Error of kind ValueError when a default is not a JSON value, or when the text
   *         would be longer than kMaxJsonBytes (FromJson could not read it back).
   */
  std::string ToJson() const;

  const std::string& name() const { return get()->name(); }
  int32_t num_params() const { return static_cast<int32_t>(get()->params().size()); }
  int32_t num_positional() const { return get()->num_positional(); }
  int32_t num_kwonly() const { return num_params() - num_positional(); }
  int32_t posonly_count() const { return get()->posonly_count(); }
  int32_t num_positional_defaults() const { return get()->num_positional_defaults(); }
  const Param& param(int32_t i) const { return get()->params()[i]; }
  const std::string& param_name(int32_t i) const { return param(i).name; }
  bool has_default(int32_t i) const { return param(i).default_value.has_value(); }
  /*! \brief The default of parameter i; only valid when has_default(i). */
  const ffi::Any& default_value(int32_t i) const { return *param(i).default_value; }
  bool has_unpack() const { return get()->has_unpack(); }

  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Signature, ffi::ObjectRef, SignatureObj);

 private:
  explicit Signature(ffi::ObjectPtr<SignatureObj> data) : ffi::ObjectRef(std::move(data)) {}
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
  explicit SignatureBuilder(std::string name = "") : name_(std::move(name)) {}

  /*! \brief A positional-only parameter (before `/`), with an optional default value. */
  template <typename... Default>
  SignatureBuilder& PositionalOnly(std::string name, Default&&... value) {
    return Add(std::move(name), ParamKind::kPositionalOnly, std::forward<Default>(value)...);
  }
  /*! \brief A positional-or-keyword parameter, with an optional default value. */
  template <typename... Default>
  SignatureBuilder& Param(std::string name, Default&&... value) {
    return Add(std::move(name), ParamKind::kPositionalOrKeyword, std::forward<Default>(value)...);
  }
  /*! \brief A keyword-only parameter (after `*`), with an optional default value. */
  template <typename... Default>
  SignatureBuilder& KeywordOnly(std::string name, Default&&... value) {
    return Add(std::move(name), ParamKind::kKeywordOnly, std::forward<Default>(value)...);
  }
  /*! \brief Mark the most recently added parameter for dataclass unpacking. */
  SignatureBuilder& Unpack() {
    if (!params_.empty()) params_.back().unpack = true;
    return *this;
  }
  /*! \brief Validate and build; throws like Signature::Make. */
  Signature Build() const { return Signature::Make(name_, params_); }

 private:
  SignatureBuilder& Add(std::string name, ParamKind kind) {
    params_.push_back(kwcall::Param{std::move(name), kind, std::nullopt, false});
    return *this;
  }
  template <typename T>
  SignatureBuilder& Add(std::string name, ParamKind kind, T&& value) {
    params_.push_back(
        kwcall::Param{std::move(name), kind, ffi::Any(std::forward<T>(value)), false});
    return *this;
  }
  std::string name_;
  std::vector<kwcall::Param> params_;
};

}  // namespace kwcall

#endif  // KWCALL_SIGNATURE_H_
