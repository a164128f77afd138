// The safetensors format's reader and writer (nn/safetensors.h) without LibTorch: a round
// trip, and every malformed part of a header refused with the file and the tensor named.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/little_endian.h"
#include "nn/model_header.h"
#include "nn/safetensors.h"
#include "tests/test_util.h"

namespace kz {
namespace {

// A safetensors file from a header given as JSON text and `data_bytes` bytes of data.
std::string safetensors_bytes(const std::string& header, size_t data_bytes) {
  std::string out;
  append_le(out, uint64_t(header.size()));
  return out + header + std::string(data_bytes, '\0');
}

NamedTensors two_tensors() {
  NamedTensors t;
  t.emplace_back("a.weight", PlainTensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  PlainTensor steps;
  steps.dtype = TensorDtype::kI64;
  steps.i64 = {42};
  t.emplace_back("a.num_batches_tracked", steps);
  return t;
}

TEST(Safetensors, RoundTripsTensorsInTheirOrder) {
  const std::string bytes = write_safetensors(two_tensors(), {{"format", "pt"}});
  // The data starts 8-byte aligned.
  EXPECT_EQ((8 + get_le<uint64_t>(reinterpret_cast<const uint8_t*>(bytes.data()))) % 8, 0u);
  const NamedTensors back = read_safetensors(bytes, "t: ");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].first, "a.weight");
  EXPECT_EQ(back[0].second.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(back[0].second.f32, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(back[1].second.dtype, TensorDtype::kI64);
  EXPECT_TRUE(back[1].second.shape.empty());
  EXPECT_EQ(back[1].second.i64, (std::vector<int64_t>{42}));
  // Against an expected layout, in the layout's order.
  const std::vector<TensorSpec> specs{{"a.num_batches_tracked", TensorDtype::kI64, {}},
                                      {"a.weight", TensorDtype::kF32, {2, 3}}};
  const NamedTensors ordered = read_safetensors(bytes, "t: ", &specs);
  EXPECT_EQ(ordered[0].first, "a.num_batches_tracked");
}

TEST(Safetensors, RefusesEveryMalformedPartNamingTheTensor) {
  const std::vector<TensorSpec> specs{{"w", TensorDtype::kF32, {2}}};
  struct Case {
    std::string bytes, expected;
  };
  std::string huge_length;
  append_le(huge_length, uint64_t(1) << 40);
  const std::vector<Case> cases{
      {"abc", "too short"},
      {huge_length + "{}", "header of"},
      {safetensors_bytes("{nope", 0), "malformed safetensors header"},
      {safetensors_bytes("[1]", 0), "not a JSON object"},
      {safetensors_bytes(R"({"w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})", 4),
       "tensor 'w': dtype F16"},
      {safetensors_bytes(R"({"w":{"shape":[2],"data_offsets":[0,8]}})", 8), "tensor 'w': no dtype"},
      {safetensors_bytes(R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8),
       "tensor 'w': shape"},
      {safetensors_bytes(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8),
       "tensor 'w': data_offsets span 8 bytes"},
      {safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 8),
       "tensor 'w': data_offsets [4, 12] outside"},
      {safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", 8),
       "outside"},
      {safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                         R"("v":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                         8),
       "overlaps"},
      {safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12),
       "4 bytes of the data before tensor 'w' belong to no tensor"},
      {safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 12),
       "4 bytes at the end"},
      {safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                         R"("x":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                         12),
       "tensor 'x' is not part of the network"},
      {safetensors_bytes(R"({"v":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8),
       "tensor 'v' is not part"},
      {safetensors_bytes(R"({"w":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})", 8),
       "tensor 'w' is I64, the network needs F32"},
      {safetensors_bytes(R"({"w":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]}})", 8),
       "tensor 'w' has shape [1, 2], the network needs [2]"},
      {safetensors_bytes(R"({"__metadata__":[1],"w":{"dtype":"F32","shape":[2],)"
                         R"("data_offsets":[0,8]}})",
                         8),
       "__metadata__ is not an object"},
  };
  for (const Case& c : cases) {
    const std::string why = test::error_message<ModelError>(
        [&] { read_safetensors(c.bytes, "model 'm.pt': ", &specs); });
    EXPECT_NE(why.find("model 'm.pt': "), std::string::npos) << why;
    EXPECT_NE(why.find(c.expected), std::string::npos) << "got: " << why;
  }
  // A missing tensor.
  const std::vector<TensorSpec> two{{"w", TensorDtype::kF32, {2}}, {"b", TensorDtype::kF32, {1}}};
  const std::string one =
      safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8);
  EXPECT_NE(test::error_message<ModelError>([&] {
              read_safetensors(one, "m: ", &two);
            }).find("tensor 'b' is missing"),
            std::string::npos);
}

}  // namespace
}  // namespace kz
