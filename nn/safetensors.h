// The safetensors format (the plain tensor format of the PyTorch ecosystem), read and
// written by our own code, without LibTorch:
//   u64 N                      little-endian, the header's length
//   N bytes                    a JSON object: for each tensor
//                                "name": {"dtype": "F32", "shape": [32, 28, 3],
//                                         "data_offsets": [begin, end]}
//                              and optionally "__metadata__": {string: string}
//   the data                   each tensor's values, little-endian, row-major, at
//                              [begin, end) from the start of the data
// Python reads the bytes with `safetensors.torch.load(data)` or
// `safetensors.numpy.load(data)` (docs/data-format.md shows how).
//
// Reading checks everything before a tensor's memory is allocated: the header's length
// against the bytes, the JSON, each entry's dtype (F32 and I64 here), shape and offsets
// (inside the data, the length the dtype and shape need, no two tensors overlapping, no
// bytes of the data unaccounted for), and, given an expected layout, that exactly those
// tensors are there with those dtypes and shapes. Every error is a ModelError naming the
// file (`where`) and the tensor.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "nn/plain_tensor.h"

namespace kz {

// What a reader expects one tensor to be.
struct TensorSpec {
  std::string name;
  TensorDtype dtype = TensorDtype::kF32;
  std::vector<int64_t> shape;
};

// The bytes of a safetensors file holding `tensors`, the data in their order (so that a
// network's registration order is also the order of its bytes), with `metadata` as
// "__metadata__" when not empty.
std::string write_safetensors(const NamedTensors& tensors,
                              const std::map<std::string, std::string>& metadata = {});

// The tensors of `bytes`, in the order of their data. With `expected`, exactly those
// tensors (any order in the file), in `expected`'s order. `where` starts every message
// ("model 'x.pt': "). Throws ModelError.
NamedTensors read_safetensors(std::string_view bytes, const std::string& where,
                              const std::vector<TensorSpec>* expected = nullptr);

// "F32", "I64" and back.
std::string safetensors_dtype_name(TensorDtype dtype);

}  // namespace kz
