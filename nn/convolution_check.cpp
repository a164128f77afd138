#include "nn/convolution_check.h"

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <limits>
#include <mutex>

#include "nn/features.h"

namespace kz {

// y[b, o, t] = sum over c, k of w[o, c, k] * x[b, c, t + k - 1].
at::Tensor conv1d_by_matmul(const at::Tensor& x, const at::Tensor& w) {
  const int64_t B = x.size(0), C = x.size(1), L = x.size(2), O = w.size(0);
  const auto padded = torch::constant_pad_nd(x, {1, 1});
  // patches[b, c, k, t] = padded[b, c, t + k]
  const auto patches =
      torch::stack({padded.narrow(2, 0, L), padded.narrow(2, 1, L), padded.narrow(2, 2, L)}, 2)
          .reshape({B, C * 3, L});
  return torch::matmul(w.reshape({O, C * 3}), patches);  // [O, C*3] x [B, C*3, L]
}

bool onednn_convolution_is_sound() {
  torch::NoGradGuard no_grad;
  const bool was_enabled = at::globalContext().userEnabledMkldnn();
  at::globalContext().setUserEnabledMkldnn(true);
  auto gen = at::detail::createCPUGenerator(20261130);  // leaves the global seed alone
  bool sound = true;
  // Input channel counts of the network's convolutions: the feature planes, and widths
  // that are not multiples of 16 as small configs use them.
  for (const int64_t channels : {int64_t(kNumPlanes), int64_t(8), int64_t(12), int64_t(64)}) {
    for (const int64_t batch : {1, 2, 3, 4, 8, 16, 24}) {
      for (int rep = 0; rep < 2 && sound; ++rep) {
        {
          // Memory the next allocations are likely to reuse, poisoned with NaN: a kernel
          // that reads padding it never wrote then gives NaN instead of a lucky zero.
          auto poison = torch::full({batch * 32 * 18 * 4}, std::numeric_limits<float>::quiet_NaN());
        }
        const auto x = torch::randn({batch, channels, 18}, gen);
        const auto w = torch::randn({16, channels, 3}, gen);
        const auto got = torch::conv1d(x, w, {}, 1, 1);
        const auto want = conv1d_by_matmul(x, w);
        sound =
            bool(torch::isfinite(got).all().item<bool>()) && torch::allclose(got, want, 1e-3, 1e-3);
      }
    }
  }
  at::globalContext().setUserEnabledMkldnn(was_enabled);
  return sound;
}

bool ensure_sound_cpu_convolution() {
  static std::once_flag once;
  static bool enabled = true;
  std::call_once(once, [] {
    if (!at::globalContext().userEnabledMkldnn()) {
      enabled = false;
      return;
    }
    if (!onednn_convolution_is_sound()) {
      spdlog::warn(
          "LibTorch {}: its oneDNN convolution gives wrong results on this CPU (padded "
          "channels left uninitialised); using LibTorch's own convolution instead, which is "
          "slower. See nn/convolution_check.h.",
          TORCH_VERSION);
      at::globalContext().setUserEnabledMkldnn(false);
      enabled = false;
    }
  });
  return enabled;
}

}  // namespace kz
