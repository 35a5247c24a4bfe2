#pragma once
/// \file
/// PTX text -> ptx::module for the subset nvcc 13 emits at -O3 and -G (see ir.hpp for what
/// each field means). Every name is resolved (registers, variables, parameters, labels,
/// functions); anything outside the subset or malformed is a warpkit::parse_error with
/// file, line and column whose message names the instruction, e.g.
/// `unsupported instruction 'tex.2d.v4.f32.f32'`.
///
/// Field conventions beyond ir.hpp:
/// - `t` is the instruction type; mul/mad `.wide` keep the source type (the result is twice
///   as wide); popc/clz/bfind/brev keep the source type (popc, clz, bfind write a .u32);
///   shl/shr/shf take the shift amount as .u32; vote: .pred for all/any/uni, .b32 for ballot.
/// - Two-type instructions: cvt `t` = destination, `t2` = source; set `t` = destination,
///   `t2` = compared type; slct `t` = data type, `t2` = selector type.
/// - `sp` is space::generic for ld / st / ldu / atom / red / prefetch without a state space.
/// - `membar.gl` is scope::gpu; `barrier.sync` is op::bar (`.aligned` dropped); cache-policy
///   qualifiers (`.ca .cg .cs .lu .cv .wb .wt .L2::128B` ...) carry no semantics and are dropped.
/// - Special registers may only be read by mov, symbols (variable and function addresses)
///   only by mov and cvta, as ptxas requires.
/// Register declarations may not be used before they appear. Positions count bytes from 1
/// (a tab is one column).
///
/// The parser's parts are in ptx/parse/: words.hpp (the words it knows), legality.hpp (which
/// modifiers and types each opcode accepts), modifier_rules.hpp (the rules between them),
/// operand_rules.hpp (operand signatures and register types) and the grammar in layers
/// (grammar.hpp lists them).

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>
#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/parse/grammar.hpp>
#include <warpkit/ptx/parse/legality.hpp>
#include <warpkit/ptx/parse/words.hpp>

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

namespace warpkit::ptx {

/// Parses PTX text; `file_name` names it in messages. Throws warpkit::parse_error.
[[nodiscard]] inline module parse_ptx(std::string_view text, std::string file_name = "<ptx>") {
    detail::parser p(text, std::move(file_name));
    return p.run();
}

/// Reads and parses a PTX file. Throws warpkit::error naming the file when it cannot be read,
/// warpkit::parse_error when it is not valid PTX of the subset.
[[nodiscard]] inline module read_ptx(const std::filesystem::path& path) {
    return parse_ptx(read_file(path), path.string());
}

} // namespace warpkit::ptx
