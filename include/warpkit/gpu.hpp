#pragma once
/// \file
/// Everything in warpkit/gpu: functional execution of the warpkit ISA, the SM timing model,
/// the memory hierarchy behind the SMs, front-end sharing clusters, whole GPUs and their
/// presets.

#include <warpkit/gpu/cluster_member.hpp>
#include <warpkit/gpu/cta_dispatcher.hpp>
#include <warpkit/gpu/functional.hpp>
#include <warpkit/gpu/global_memory.hpp>
#include <warpkit/gpu/gpu.hpp>
#include <warpkit/gpu/instruction_source.hpp>
#include <warpkit/gpu/isa_executor.hpp>
#include <warpkit/gpu/isa_kernel.hpp>
#include <warpkit/gpu/isa_source.hpp>
#include <warpkit/gpu/memory_message.hpp>
#include <warpkit/gpu/memory_params.hpp>
#include <warpkit/gpu/memory_stats.hpp>
#include <warpkit/gpu/memory_system.hpp>
#include <warpkit/gpu/preset_registry.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/gpu/sharing_clusters.hpp>
#include <warpkit/gpu/sm.hpp>
#include <warpkit/gpu/synthetic_source.hpp>
