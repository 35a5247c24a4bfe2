#pragma once
/// \file
/// The memory-system area: coalescers, pending request table, shared-memory banks, caches,
/// MSHRs and DRAM.

#include <warpkit/mem/cache.hpp>
#include <warpkit/mem/cache_controller.hpp>
#include <warpkit/mem/cc13_coalescer.hpp>
#include <warpkit/mem/coalescing_stats.hpp>
#include <warpkit/mem/concepts.hpp>
#include <warpkit/mem/dram_channel.hpp>
#include <warpkit/mem/dram_params.hpp>
#include <warpkit/mem/dram_scheduler.hpp>
#include <warpkit/mem/inst_access.hpp>
#include <warpkit/mem/line_coalescer.hpp>
#include <warpkit/mem/mshr.hpp>
#include <warpkit/mem/pending_request_table.hpp>
#include <warpkit/mem/sector_coalescer.hpp>
#include <warpkit/mem/shared_memory_banks.hpp>
#include <warpkit/mem/transaction.hpp>
