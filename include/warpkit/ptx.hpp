#pragma once
/// \file
/// The PTX front end: the module representation, the parser of nvcc-produced PTX and the
/// printer.

#include <warpkit/ptx/float_ops.hpp>
#include <warpkit/ptx/integer_ops.hpp>
#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/kernel.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/lexer.hpp>
#include <warpkit/ptx/names.hpp>
#include <warpkit/ptx/parser.hpp>
#include <warpkit/ptx/printer.hpp>
#include <warpkit/ptx/semantics.hpp>
#include <warpkit/ptx/warp_ops.hpp>
#include <warpkit/ptx/warp_semantics.hpp>
