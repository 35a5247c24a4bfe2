#pragma once
/// \file
/// Everything in warpkit/simt: the PDOM and SSY reconvergence stacks, their concepts and
/// stats, and the immediate-post-dominator helper.

#include <warpkit/simt/concepts.hpp>
#include <warpkit/simt/fwd.hpp>
#include <warpkit/simt/ipdom.hpp>
#include <warpkit/simt/pdom_stack.hpp>
#include <warpkit/simt/ssy_stack.hpp>
#include <warpkit/simt/stats.hpp>
