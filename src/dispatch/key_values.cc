// Key values (key_values.h).
#include "dispatch/key_values.h"

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/string.h>

#include <charconv>
#include <sstream>
#include <string_view>

#include "compat.h"
#include "dispatch/term_words.h"

namespace kwcall {
namespace {

// tvm-ffi's Python names of DLPack's device types (tvm_ffi.Device).
struct DeviceTypeName {
  DLDeviceType type;
  const char* name;
};
constexpr DeviceTypeName kDeviceNames[] = {
    {kDLCPU, "cpu"},
    {kDLCUDA, "cuda"},
    {kDLCUDAHost, "cuda_host"},
    {kDLCUDAManaged, "cuda_managed"},
    {kDLOpenCL, "opencl"},
    {kDLVulkan, "vulkan"},
    {kDLMetal, "metal"},
    {kDLVPI, "vpi"},
    {kDLROCM, "rocm"},
    {kDLROCMHost, "rocm_host"},
    {kDLExtDev, "ext_dev"},
    {kDLOneAPI, "oneapi"},
    {kDLWebGPU, "webgpu"},
    {kDLHexagon, "hexagon"},
};

bool ParseDevice(std::string_view text, DLDevice* device) {
  const size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  int32_t index = 0;
  if (colon != std::string_view::npos) {
    const std::string_view digits = text.substr(colon + 1);
    auto [ptr, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (digits.empty() || error != std::errc() || ptr != digits.data() + digits.size() ||
        index < 0) {
      return false;
    }
  }
  for (const DeviceTypeName& d : kDeviceNames) {
    if (name == d.name) {
      *device = {d.type, index};
      return true;
    }
  }
  return false;
}

bool IsStr(const ffi::Any& value) {
  const int32_t index = value.type_index();
  return index == ffi::TypeIndex::kTVMFFISmallStr || index == ffi::TypeIndex::kTVMFFIStr;
}

bool IsInt(const ffi::Any& value) {
  const int32_t index = value.type_index();
  return index == ffi::TypeIndex::kTVMFFIInt || index == ffi::TypeIndex::kTVMFFIBool;
}

WordOfValue Expected(const char* what) {
  WordOfValue read;
  read.expected = what;
  return read;
}

WordOfValue Word(uint64_t word, ffi::Any canonical) {
  WordOfValue read;
  read.word = word;
  read.canonical = std::move(canonical);
  return read;
}

}  // namespace

std::string DeviceName(DLDevice device) {
  for (const DeviceTypeName& d : kDeviceNames) {
    if (d.type == device.device_type)
      return std::string(d.name) + ":" + std::to_string(device.device_id);
  }
  return "device type " + std::to_string(device.device_type) + ":" +
         std::to_string(device.device_id);
}

ffi::Any ValueOfWord(KeyTermKind kind, uint64_t word) {
  switch (kind) {
    case KeyTermKind::kDtype: {
      DLDataType dtype{static_cast<uint8_t>(word), static_cast<uint8_t>(word >> 8),
                       static_cast<uint16_t>(word >> 16)};
      return ffi::DLDataTypeToString(dtype);
    }
    case KeyTermKind::kDevice:
      return ffi::String(DeviceName({static_cast<DLDeviceType>(word >> 32),
                                     static_cast<int32_t>(static_cast<uint32_t>(word))}));
    case KeyTermKind::kZeroStrides: {
      ffi::Array<int64_t> dims;
      for (int64_t d = 0; d < 64; ++d) {
        if ((word >> d & 1) != 0) dims.push_back(d);
      }
      return dims;
    }
    case KeyTermKind::kContiguous:
    case KeyTermKind::kDivisible:
    case KeyTermKind::kAligned:
    case KeyTermKind::kIsNone:
      return word != 0;
    default:
      return static_cast<int64_t>(word);
  }
}

ffi::Any ValueOfArgument(const TVMFFIAny& arg) {
  if (arg.type_index == kTVMFFIBool) return arg.v_int64 != 0;
  if (arg.type_index == kTVMFFIInt) return arg.v_int64;
  std::string_view text;
  if (term_words::ReadStr(arg, &text)) return ffi::String(std::string(text));
  return ffi::Any(nullptr);
}

WordOfValue ReadKeyValue(KeyTermKind kind, const ffi::Any& value) {
  if (value == nullptr && kind != KeyTermKind::kIsNone) {
    WordOfValue read = Word(0, ffi::Any(nullptr));
    read.none = true;
    return read;
  }
  switch (kind) {
    case KeyTermKind::kDtype: {
      DLDataType dtype;
      if (value.type_index() == ffi::TypeIndex::kTVMFFIDataType) {
        dtype = value.cast<DLDataType>();
      } else if (!IsStr(value)) {
        return Expected("a dtype as tvm-ffi spells it ('bfloat16') or None");
      } else {
        try {
          dtype = ffi::StringToDLDataType(value.cast<ffi::String>());
        } catch (const ffi::Error&) {
          return Expected("a dtype as tvm-ffi spells it ('bfloat16') or None");
        }
      }
      return Word(term_words::Dtype(dtype), ffi::DLDataTypeToString(dtype));
    }
    case KeyTermKind::kDevice: {
      DLDevice device;
      if (value.type_index() == ffi::TypeIndex::kTVMFFIDevice) {
        device = value.cast<DLDevice>();
      } else if (!IsStr(value) || !ParseDevice(std::string(value.cast<ffi::String>()), &device)) {
        return Expected("a device as tvm-ffi spells it ('cuda:0') or None");
      }
      return Word(term_words::Device(device), ffi::String(DeviceName(device)));
    }
    case KeyTermKind::kNdim:
    case KeyTermKind::kShape:
    case KeyTermKind::kArch: {
      if (!IsInt(value) || value.cast<int64_t>() < 0)
        return Expected("an int of at least 0 or None");
      const int64_t n = value.cast<int64_t>();
      return Word(static_cast<uint64_t>(n), n);
    }
    case KeyTermKind::kStride: {
      if (!IsInt(value)) return Expected("an int or None");
      const int64_t n = value.cast<int64_t>();
      return Word(static_cast<uint64_t>(n), n);
    }
    case KeyTermKind::kZeroStrides: {
      auto dims = value.try_cast<ffi::Array<ffi::Any>>();
      if (!dims.has_value()) return Expected("a tuple of dimensions (0 to 63) or None");
      uint64_t mask = 0;
      for (const ffi::Any& dim : *dims) {
        if (!IsInt(dim) || dim.cast<int64_t>() < 0 || dim.cast<int64_t>() > 63 ||
            (mask >> dim.cast<int64_t>() & 1) != 0) {
          return Expected("a tuple of distinct dimensions (0 to 63) or None");
        }
        mask |= uint64_t{1} << dim.cast<int64_t>();
      }
      return Word(mask, ValueOfWord(kind, mask));
    }
    case KeyTermKind::kContiguous:
    case KeyTermKind::kDivisible:
    case KeyTermKind::kAligned:
    case KeyTermKind::kIsNone: {
      const bool may_be_none = kind != KeyTermKind::kIsNone;
      if (!IsInt(value) || (value.cast<int64_t>() != 0 && value.cast<int64_t>() != 1)) {
        return Expected(may_be_none ? "True, False or None" : "True or False");
      }
      return Word(value.cast<int64_t>(), value.cast<int64_t>() != 0);
    }
    case KeyTermKind::kValue: {
      if (value.type_index() == ffi::TypeIndex::kTVMFFIBool) {
        return Word(value.cast<bool>(), value.cast<bool>());
      }
      if (value.type_index() == ffi::TypeIndex::kTVMFFIInt) {
        return Word(static_cast<uint64_t>(value.cast<int64_t>()), value.cast<int64_t>());
      }
      if (!IsStr(value)) return Expected("a bool, an int, a str or None");
      const ffi::String text = value.cast<ffi::String>();
      WordOfValue read = Word(term_words::Str(std::string_view(text.data(), text.size())), text);
      read.str = true;
      read.text = std::string(text);
      return read;
    }
  }
  return Expected("a value");
}

std::string Repr(const ffi::Any& value) {
  switch (value.type_index()) {
    case ffi::TypeIndex::kTVMFFINone:
      return "None";
    case ffi::TypeIndex::kTVMFFIBool:
      return value.cast<bool>() ? "True" : "False";
    case ffi::TypeIndex::kTVMFFIInt:
      return std::to_string(value.cast<int64_t>());
    case ffi::TypeIndex::kTVMFFIFloat: {
      std::ostringstream os;
      os << value.cast<double>();
      return os.str();
    }
    case ffi::TypeIndex::kTVMFFIDataType:
      return "'" + std::string(ffi::DLDataTypeToString(value.cast<DLDataType>())) + "'";
    case ffi::TypeIndex::kTVMFFIDevice:
      return "'" + DeviceName(value.cast<DLDevice>()) + "'";
    case ffi::TypeIndex::kTVMFFISmallStr:
    case ffi::TypeIndex::kTVMFFIStr: {
      std::string text = "'";
      for (char c : std::string(value.cast<ffi::String>())) {
        if (c == '\\' || c == '\'') text += '\\';
        text += c;
      }
      return text + "'";
    }
    default:
      break;
  }
  if (auto items = value.try_cast<ffi::Array<ffi::Any>>()) {
    std::string text = "(";
    for (size_t i = 0; i < items->size(); ++i) text += (i ? ", " : "") + Repr((*items)[i]);
    return text + (items->size() == 1 ? ",)" : ")");
  }
  return "<" + value.GetTypeKey() + ">";
}

std::string ArgumentTypeName(const TVMFFIAny& arg) {
  switch (arg.type_index) {
    case kTVMFFINone:
      return "None";
    case kTVMFFIDLTensorPtr:
    case kTVMFFITensor:
      return "a tensor";
    default:
      return ffi::TypeIndexToTypeKey(arg.type_index);
  }
}

}  // namespace kwcall
