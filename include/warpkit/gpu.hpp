#pragma once
/// \file
/// Everything in warpkit/gpu: the SM timing model, the memory hierarchy behind the SMs,
/// front-end sharing clusters, whole GPUs and their presets. (Functional execution, which
/// they run kernels through, is warpkit/func.hpp.)

#include <warpkit/gpu/cluster_member.hpp>
#include <warpkit/gpu/cta_dispatcher.hpp>
#include <warpkit/gpu/gpu.hpp>
#include <warpkit/gpu/memory_message.hpp>
#include <warpkit/gpu/memory_params.hpp>
#include <warpkit/gpu/memory_stats.hpp>
#include <warpkit/gpu/memory_system.hpp>
#include <warpkit/gpu/preset_registry.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/gpu/sharing_clusters.hpp>
#include <warpkit/gpu/sm.hpp>
