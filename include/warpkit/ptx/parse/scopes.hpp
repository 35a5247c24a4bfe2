#pragma once
/// \file
/// What the PTX parser has declared so far: module symbols (variables, functions), the current
/// function's symbols and registers in nested `{ }` scopes (with `%r<N>` ranges), its labels
/// and the branches waiting for a label further down. Lookups only; the grammar declares.

#include <warpkit/ptx/ir.hpp>

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace warpkit::ptx::detail {

/// Names visible in nested `{ }` scopes: declare / find / push / pop, shadowing handled.
template <class Value>
class scoped_names {
public:
    struct entry {
        std::string_view name;
        Value value{};
        std::uint32_t depth = 0;
        std::uint32_t shadowed = no_index; ///< the entry this one hides
    };

    void clear() {
        visible_.clear();
        entries_.clear();
        marks_.clear();
    }
    void push() { marks_.push_back(static_cast<std::uint32_t>(entries_.size())); }
    void pop() {
        const std::uint32_t mark = marks_.empty() ? 0 : marks_.back();
        if (!marks_.empty()) marks_.pop_back();
        while (entries_.size() > mark) {
            const entry& e = entries_.back();
            if (e.shadowed == no_index)
                visible_.erase(e.name);
            else
                visible_[e.name] = e.shadowed;
            entries_.pop_back();
        }
    }
    [[nodiscard]] std::uint32_t depth() const noexcept {
        return static_cast<std::uint32_t>(marks_.size());
    }
    /// Declares `name` in the innermost scope; false when it already exists there.
    bool declare(std::string_view name, Value v) {
        auto [it, inserted] = visible_.try_emplace(name, 0U);
        std::uint32_t shadowed = no_index;
        if (!inserted) {
            if (entries_[it->second].depth == depth()) return false;
            shadowed = it->second;
        }
        it->second = static_cast<std::uint32_t>(entries_.size());
        entries_.push_back(entry{name, v, depth(), shadowed});
        return true;
    }
    [[nodiscard]] const entry* find(std::string_view name) const {
        if (visible_.empty()) return nullptr;
        const auto it = visible_.find(name);
        return it == visible_.end() ? nullptr : &entries_[it->second];
    }
    [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }

private:
    std::unordered_map<std::string_view, std::uint32_t> visible_;
    std::vector<entry> entries_;
    std::vector<std::uint32_t> marks_;
};

/// A declared symbol: what it is and its index in the module's or function's list.
struct symbol_ref {
    symbol_kind kind = symbol_kind::module_var;
    std::uint32_t index = no_index;
};

/// `.reg .b32 %r<count>;`: registers prefix0 .. prefix(count-1) from register `base` on,
/// declared at block depth `depth`.
struct register_range {
    std::string_view prefix;
    std::uint32_t base = 0;
    std::uint32_t count = 0;
    std::uint32_t depth = 0;
};

/// A branch to a label not yet defined: patched when the function body ends.
struct label_fixup {
    std::uint32_t instruction_index = 0;
    std::uint8_t operand_index = 0;
    std::string_view name;
    source_pos pos;
};

/// A register name split as a `%r<N>` range names its registers: `%r15` is {"%r", 15}.
struct numbered_name {
    std::string_view prefix;
    std::uint32_t number = 0;
    bool valid = false; ///< false: no digits after a non-empty prefix, a leading 0, > 9 digits
};
[[nodiscard]] constexpr numbered_name split_number(std::string_view name) noexcept {
    std::size_t i = name.size();
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        --i;
    const std::size_t digits = name.size() - i;
    if (digits == 0 || i == 0 || digits > 9 || (digits > 1 && name[i] == '0')) return {};
    std::uint32_t number = 0;
    for (std::size_t j = i; j < name.size(); ++j)
        number = number * 10 + static_cast<std::uint32_t>(name[j] - '0');
    return {name.substr(0, i), number, true};
}

/// The declarations the parser has seen, and the lookups the grammar makes in them.
class declared_names {
protected:
    // A register by name, or no_index. The latest visible declaration wins.
    std::uint32_t find_register(std::string_view n) const {
        std::uint32_t best = no_index;
        if (const auto* e = register_names_.find(n)) best = e->value;
        if (register_ranges_.empty()) return best;
        const numbered_name numbered = split_number(n);
        if (!numbered.valid) return best;
        for (auto r = register_ranges_.rbegin(); r != register_ranges_.rend(); ++r) {
            if (r->prefix != numbered.prefix || numbered.number >= r->count) continue;
            if (best == no_index || r->base + numbered.number > best)
                best = r->base + numbered.number;
            break;
        }
        return best;
    }

    // Whether `%r5` falls in a `%r<N>` range declared in the innermost block.
    bool in_range_here(std::string_view n) const {
        const auto depth = static_cast<std::uint32_t>(open_blocks_.size() - 1);
        const numbered_name numbered = split_number(n);
        if (!numbered.valid) return false;
        for (const auto& r : register_ranges_)
            if (r.depth == depth && r.prefix == numbered.prefix && numbered.number < r.count)
                return true;
        return false;
    }

    symbol_ref find_symbol(std::string_view n) const {
        if (const auto* e = function_symbols_.find(n)) return e->value;
        const auto it = module_symbols_.find(n);
        if (it != module_symbols_.end()) return it->second;
        return {};
    }

    space space_of_symbol(symbol_ref s) const noexcept {
        switch (s.kind) {
        case symbol_kind::module_var:
            return module_->variables[s.index].sp;
        case symbol_kind::function_var:
            return function_->variables[s.index].sp;
        case symbol_kind::param:
        case symbol_kind::result:
            return space::param;
        default:
            return space::none;
        }
    }

    std::uint32_t code_size() const noexcept {
        return static_cast<std::uint32_t>(function_->code.size());
    }

    module* module_ = nullptr;     ///< the module being parsed
    function* function_ = nullptr; ///< the function whose body is being parsed
    std::unordered_map<std::string_view, symbol_ref> module_symbols_;
    scoped_names<symbol_ref> function_symbols_;   ///< parameters, results, body variables
    scoped_names<std::uint32_t> register_names_;  ///< registers declared one by one
    std::vector<register_range> register_ranges_; ///< `%r<N>` declarations, innermost last
    std::unordered_map<std::string_view, std::uint32_t> labels_; ///< label -> instruction
    std::vector<label_fixup> label_fixups_;
    std::vector<std::uint32_t> open_blocks_;       ///< block indices, innermost last
    std::vector<source_pos> open_block_positions_; ///< where each open block's `{` is
};

} // namespace warpkit::ptx::detail
