#pragma once
/// \file
/// Everything in warpkit/func: functional execution. Device memory, the instruction-source
/// contract the SM timing model reads warps through, and the sources that execute the
/// warpkit ISA, PTX and synthetic instruction streams, with whole-launch functional runs of
/// the first two (the references the timed runs must agree with), the readers of Accel-Sim's
/// SASS traces and the source that replays them through the timing model, with its opcode
/// tables. func/trace_file.hpp (xz and gzip trace files) is left out: it needs liblzma and
/// zlib at link time, which the rest of the library does not.

#include <warpkit/func/accelsim_trace.hpp>
#include <warpkit/func/global_memory.hpp>
#include <warpkit/func/instruction_source.hpp>
#include <warpkit/func/isa_executor.hpp>
#include <warpkit/func/isa_functional.hpp>
#include <warpkit/func/isa_kernel.hpp>
#include <warpkit/func/isa_source.hpp>
#include <warpkit/func/load_globals.hpp>
#include <warpkit/func/ptx_functional.hpp>
#include <warpkit/func/ptx_source.hpp>
#include <warpkit/func/ptx_trace_opcodes.hpp>
#include <warpkit/func/sass_opcodes.hpp>
#include <warpkit/func/synthetic_source.hpp>
#include <warpkit/func/trace_source.hpp>
#include <warpkit/func/warp_storage.hpp>
