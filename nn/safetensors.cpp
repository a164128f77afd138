#include "nn/safetensors.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "core/little_endian.h"
#include "nn/model_header.h"

namespace kz {

// The values are copied as they lie in memory: little-endian hosts only (x86-64, ARM as
// Debian runs it, WebAssembly).
static_assert(std::endian::native == std::endian::little);

namespace {

constexpr uint64_t kMaxHeaderBytes = uint64_t(100) << 20;
constexpr int kMaxRank = 8;

size_t element_bytes(TensorDtype dtype) {
  return dtype == TensorDtype::kF32 ? 4 : 8;
}

std::string quoted(const std::string& name) {
  return "tensor '" + name + "'";
}

// One entry of the header, checked but not yet read.
struct Entry {
  std::string name;
  TensorDtype dtype = TensorDtype::kF32;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
};

Entry parse_entry(const std::string& name, const nlohmann::json& e, uint64_t data_bytes,
                  const std::string& where) {
  const std::string what = where + quoted(name) + ": ";
  if (!e.is_object()) throw ModelError(what + "its header entry is not an object");
  Entry entry;
  entry.name = name;
  const auto dtype = e.find("dtype");
  if (dtype == e.end() || !dtype->is_string())
    throw ModelError(what + "no dtype in its header entry");
  const std::string dt = dtype->get<std::string>();
  if (dt == "F32")
    entry.dtype = TensorDtype::kF32;
  else if (dt == "I64")
    entry.dtype = TensorDtype::kI64;
  else
    throw ModelError(what + "dtype " + dt + ", this program reads F32 and I64");
  const auto shape = e.find("shape");
  if (shape == e.end() || !shape->is_array()) throw ModelError(what + "no shape array");
  if (shape->size() > size_t(kMaxRank))
    throw ModelError(what + "a shape of " + std::to_string(shape->size()) + " dimensions");
  // The element count, bounded by the data's size at every step (no overflow).
  uint64_t count = 1;
  for (const auto& d : *shape) {
    if (!d.is_number_unsigned() || d.get<uint64_t>() > data_bytes)
      throw ModelError(what + "shape " + shape->dump() + " is not a list of sizes");
    const uint64_t size = d.get<uint64_t>();
    entry.shape.push_back(int64_t(size));
    count = size == 0 ? 0 : count * size;
    if (count > data_bytes) throw ModelError(what + "shape " + shape->dump() + " exceeds the data");
  }
  const auto offsets = e.find("data_offsets");
  if (offsets == e.end() || !offsets->is_array() || offsets->size() != 2 ||
      !(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned())
    throw ModelError(what + "data_offsets is not a pair of byte offsets");
  entry.begin = (*offsets)[0].get<uint64_t>();
  entry.end = (*offsets)[1].get<uint64_t>();
  if (entry.begin > entry.end || entry.end > data_bytes)
    throw ModelError(what + "data_offsets [" + std::to_string(entry.begin) + ", " +
                     std::to_string(entry.end) + "] outside the " + std::to_string(data_bytes) +
                     " bytes of data");
  if (entry.end - entry.begin != count * element_bytes(entry.dtype))
    throw ModelError(what + "data_offsets span " + std::to_string(entry.end - entry.begin) +
                     " bytes, its dtype and shape " + shape->dump() + " need " +
                     std::to_string(count * element_bytes(entry.dtype)));
  return entry;
}

}  // namespace

const PlainTensor* find_tensor(const NamedTensors& tensors, const std::string& name) {
  for (const auto& [n, t] : tensors)
    if (n == name) return &t;
  return nullptr;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string safetensors_dtype_name(TensorDtype dtype) {
  return dtype == TensorDtype::kF32 ? "F32" : "I64";
}

std::string write_safetensors(const NamedTensors& tensors,
                              const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    const uint64_t bytes = uint64_t(t.numel()) * element_bytes(t.dtype);
    header[name] = {{"dtype", safetensors_dtype_name(t.dtype)},
                    {"shape", t.shape},
                    {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string json = header.dump();
  // The data starts 8-byte aligned, as the reference writer pads it (with spaces).
  json.append((8 - (8 + json.size()) % 8) % 8, ' ');
  std::string out;
  out.reserve(8 + json.size() + offset);
  append_le(out, uint64_t(json.size()));
  out += json;
  for (const auto& [name, t] : tensors) {
    const char* data = t.dtype == TensorDtype::kF32 ? reinterpret_cast<const char*>(t.f32.data())
                                                    : reinterpret_cast<const char*>(t.i64.data());
    const size_t have = t.dtype == TensorDtype::kF32 ? t.f32.size() : t.i64.size();
    if (int64_t(have) != t.numel())
      throw ModelError("writing " + quoted(name) + ": shape " + shape_text(t.shape) + " but " +
                       std::to_string(have) + " values");
    out.append(data, have * element_bytes(t.dtype));
  }
  return out;
}

NamedTensors read_safetensors(std::string_view bytes, const std::string& where,
                              const std::vector<TensorSpec>* expected) {
  if (bytes.size() < 8)
    throw ModelError(where + "weights too short for a safetensors header (" +
                     std::to_string(bytes.size()) + " bytes)");
  const uint64_t header_bytes = get_le<uint64_t>(reinterpret_cast<const uint8_t*>(bytes.data()));
  if (header_bytes > bytes.size() - 8 || header_bytes > kMaxHeaderBytes)
    throw ModelError(where + "safetensors header of " + std::to_string(header_bytes) +
                     " bytes in weights of " + std::to_string(bytes.size()) + " bytes");
  const uint64_t data_bytes = bytes.size() - 8 - header_bytes;
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.substr(8, header_bytes));
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(where + "malformed safetensors header: " + e.what());
  }
  if (!header.is_object()) throw ModelError(where + "the safetensors header is not a JSON object");

  std::vector<Entry> entries;
  for (const auto& [name, e] : header.items()) {
    if (name == "__metadata__") {
      if (!e.is_object()) throw ModelError(where + "safetensors __metadata__ is not an object");
      continue;
    }
    entries.push_back(parse_entry(name, e, data_bytes, where));
  }
  // In the order of the data: no two tensors overlap, and no byte is left unaccounted for.
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin < b.begin || (a.begin == b.begin && a.end < b.end);
  });
  uint64_t covered = 0;
  for (const Entry& e : entries) {
    if (e.begin < covered)
      throw ModelError(where + quoted(e.name) + " overlaps the tensor before it in the data");
    if (e.begin > covered)
      throw ModelError(where + std::to_string(e.begin - covered) + " bytes of the data before " +
                       quoted(e.name) + " belong to no tensor");
    covered = e.end;
  }
  if (covered != data_bytes)
    throw ModelError(where + std::to_string(data_bytes - covered) +
                     " bytes at the end of the data belong to no tensor");

  if (expected) {
    std::set<std::string> wanted;
    for (const TensorSpec& s : *expected) wanted.insert(s.name);
    for (const Entry& e : entries)
      if (!wanted.count(e.name))
        throw ModelError(where + quoted(e.name) +
                         " is not part of the network its metadata describes");
    std::vector<Entry> ordered;
    for (const TensorSpec& s : *expected) {
      const auto it = std::find_if(entries.begin(), entries.end(),
                                   [&](const Entry& e) { return e.name == s.name; });
      if (it == entries.end())
        throw ModelError(where + quoted(s.name) + " is missing from the weights");
      if (it->dtype != s.dtype)
        throw ModelError(where + quoted(s.name) + " is " + safetensors_dtype_name(it->dtype) +
                         ", the network needs " + safetensors_dtype_name(s.dtype));
      if (it->shape != s.shape)
        throw ModelError(where + quoted(s.name) + " has shape " + shape_text(it->shape) +
                         ", the network needs " + shape_text(s.shape));
      ordered.push_back(*it);
    }
    entries = std::move(ordered);
  }

  const char* data = bytes.data() + 8 + header_bytes;
  NamedTensors out;
  out.reserve(entries.size());
  for (const Entry& e : entries) {
    PlainTensor t;
    t.dtype = e.dtype;
    t.shape = e.shape;
    const size_t count = size_t(e.end - e.begin) / element_bytes(e.dtype);
    if (e.dtype == TensorDtype::kF32) {
      t.f32.resize(count);
      std::memcpy(t.f32.data(), data + e.begin, e.end - e.begin);
    } else {
      t.i64.resize(count);
      std::memcpy(t.i64.data(), data + e.begin, e.end - e.begin);
    }
    out.emplace_back(e.name, std::move(t));
  }
  return out;
}

}  // namespace kz
