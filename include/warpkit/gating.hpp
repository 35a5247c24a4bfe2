#pragma once
/// \file
/// Everything in warpkit/gating: the power-gating controller, its policies (conventional,
/// naive and coordinated Blackout, adaptive idle-detect), the policies by name (policy_kind,
/// selectable), energy accounting, trace replay.

#include <warpkit/gating/adaptive_idle_detect.hpp>
#include <warpkit/gating/concepts.hpp>
#include <warpkit/gating/controller.hpp>
#include <warpkit/gating/controller_ref.hpp>
#include <warpkit/gating/conventional.hpp>
#include <warpkit/gating/coordinated_blackout.hpp>
#include <warpkit/gating/energy.hpp>
#include <warpkit/gating/idle_detect_gating.hpp>
#include <warpkit/gating/idle_detect_tuner.hpp>
#include <warpkit/gating/naive_blackout.hpp>
#include <warpkit/gating/no_gating.hpp>
#include <warpkit/gating/params.hpp>
#include <warpkit/gating/policy_kind.hpp>
#include <warpkit/gating/selectable.hpp>
#include <warpkit/gating/state.hpp>
#include <warpkit/gating/stats.hpp>
#include <warpkit/gating/trace_replay.hpp>
