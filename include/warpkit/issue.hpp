#pragma once
/// \file
/// Everything in warpkit/issue: scoreboards and warp schedulers (lrr, rr, gto, two_level,
/// GATES), scheduler banks, and the by-name registry for examples.

#include <warpkit/issue/any_scheduler.hpp>
#include <warpkit/issue/cluster_scoreboard.hpp>
#include <warpkit/issue/concepts.hpp>
#include <warpkit/issue/fwd.hpp>
#include <warpkit/issue/gates.hpp>
#include <warpkit/issue/gto.hpp>
#include <warpkit/issue/issue_list.hpp>
#include <warpkit/issue/lrr.hpp>
#include <warpkit/issue/no_params.hpp>
#include <warpkit/issue/parameterless_scheduler.hpp>
#include <warpkit/issue/registry.hpp>
#include <warpkit/issue/rr.hpp>
#include <warpkit/issue/scheduler_bank.hpp>
#include <warpkit/issue/scheduler_stats.hpp>
#include <warpkit/issue/scoreboard.hpp>
#include <warpkit/issue/two_level.hpp>
#include <warpkit/issue/warp_view.hpp>
