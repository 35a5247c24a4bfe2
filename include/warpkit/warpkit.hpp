#pragma once
/// \file
/// The whole library. Prefer the area headers (<warpkit/core.hpp>, ...) or single component
/// headers in your own code: they compile faster.

#include <warpkit/core.hpp>
#include <warpkit/exec.hpp>
#include <warpkit/func.hpp>
#include <warpkit/gating.hpp>
#include <warpkit/gpu.hpp>
#include <warpkit/host.hpp>
#include <warpkit/isa.hpp>
#include <warpkit/issue.hpp>
#include <warpkit/mem.hpp>
#include <warpkit/noc.hpp>
#include <warpkit/power.hpp>
#include <warpkit/ppa.hpp>
#include <warpkit/ptx.hpp>
#include <warpkit/reconfig.hpp>
#include <warpkit/simt.hpp>
