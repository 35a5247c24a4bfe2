#pragma once
/// \file
/// Everything in warpkit/core: time, masks, queues, reflection, statistics (JSON and CSV), errors, random.

#include <warpkit/core/clock_domains.hpp>
#include <warpkit/core/concepts.hpp>
#include <warpkit/core/cycle.hpp>
#include <warpkit/core/delay_line.hpp>
#include <warpkit/core/error.hpp>
#include <warpkit/core/fifo.hpp>
#include <warpkit/core/histogram.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/core/latch.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/core/stats.hpp>
