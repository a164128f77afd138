// Tensors as plain memory, for the parts of the engine that run without LibTorch: the
// weights read from a model file (nn/safetensors.h), the folded network the forward
// runs (nn/folded_network.h). Row-major, contiguous; fp32 for every weight, int64 only
// for the batch norms' step counters the trainer keeps beside them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kz {

enum class TensorDtype { kF32, kI64 };

struct PlainTensor {
  TensorDtype dtype = TensorDtype::kF32;
  std::vector<int64_t> shape;
  std::vector<float> f32;    // the values when dtype is kF32
  std::vector<int64_t> i64;  // the values when dtype is kI64

  PlainTensor() = default;
  PlainTensor(std::vector<int64_t> dims, std::vector<float> values)
      : shape(std::move(dims)), f32(std::move(values)) {}

  // Whether it holds anything (a layer a network does not have is left empty; a
  // scalar has no dimensions and one value).
  bool defined() const { return !f32.empty() || !i64.empty(); }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  int64_t size(size_t dim) const { return dim < shape.size() ? shape[dim] : 1; }
  const float* data() const { return f32.data(); }
  float* data() { return f32.data(); }
};

// Tensors by name, in the order they were written (for a network: registration order,
// parameters then buffers, the order of its weights checksum).
using NamedTensors = std::vector<std::pair<std::string, PlainTensor>>;

// The tensor named `name`, or null.
const PlainTensor* find_tensor(const NamedTensors& tensors, const std::string& name);

// "[32, 28, 3]"
std::string shape_text(const std::vector<int64_t>& shape);

}  // namespace kz
