// The network tests' own copy of Winograd F(4,3)'s matrices (nn/portable_int_convolution.h
// gives them; the kernels write them out as code), apart from the kernels so that a test
// built on them checks the kernels rather than repeating them. Checked against the
// direct correlation in PortableInt.WinogradsMatricesMakeTheDirectCorrelation.
#pragma once

namespace kz::test {

constexpr int kBt[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                           {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
constexpr int kAt[4][6] = {
    {1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
constexpr double kG[6][3] = {{1. / 4, 0, 0},
                             {-1. / 6, -1. / 6, -1. / 6},
                             {-1. / 6, 1. / 6, -1. / 6},
                             {1. / 24, 1. / 12, 1. / 6},
                             {1. / 24, -1. / 12, 1. / 6},
                             {0, 0, 1}};

}  // namespace kz::test
