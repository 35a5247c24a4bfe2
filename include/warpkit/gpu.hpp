#pragma once
/// \file
/// Everything in warpkit/gpu: functional execution of the warpkit ISA, kernels and memories.

#include <warpkit/gpu/cta_dispatcher.hpp>
#include <warpkit/gpu/functional.hpp>
#include <warpkit/gpu/global_memory.hpp>
#include <warpkit/gpu/isa_executor.hpp>
#include <warpkit/gpu/isa_kernel.hpp>
