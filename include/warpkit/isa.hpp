#pragma once
/// \file
/// Everything in warpkit/isa: unit classes, opcodes and encodings, the assembler and
/// disassembler, kernel images.

#include <warpkit/isa/assembler.hpp>
#include <warpkit/isa/disassembler.hpp>
#include <warpkit/isa/encoding.hpp>
#include <warpkit/isa/instruction.hpp>
#include <warpkit/isa/kernel_image.hpp>
#include <warpkit/isa/opcode.hpp>
#include <warpkit/isa/program.hpp>
#include <warpkit/isa/semantics.hpp>
#include <warpkit/isa/special_register.hpp>
#include <warpkit/isa/unit_class.hpp>
