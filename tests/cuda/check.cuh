// The checks every test program here makes, CHECK and EXPECT: the ones all CUDA programs of
// the project share (examples/cuda/check.cuh).
#pragma once

#include "../../examples/cuda/check.cuh"
