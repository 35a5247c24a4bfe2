#pragma once
/// \file
/// `post_dominator_tree`: post-dominators and immediate post-dominators of a small control-flow
/// graph, for kernels whose reconvergence points are not given by SSY instructions. The pc of
/// a branch block's immediate post-dominator is the reconvergence pc a pdom_stack needs.
///
/// Blocks without successors are exits; they all lead to one virtual exit node (index
/// size()). The tree is computed with the iterative algorithm of Cooper, Harvey and Kennedy
/// ("A Simple, Fast Dominance Algorithm") run on the reverse graph rooted at the virtual exit.
/// Built once per kernel: it allocates, and is not meant for the simulated cycle loop.

#include <warpkit/core/error.hpp>
#include <warpkit/simt/fwd.hpp>

#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace warpkit::simt {

/// Post-dominator tree of a control-flow graph given as successor lists.
class post_dominator_tree {
public:
    /// "No block": the immediate post-dominator of a block that cannot reach an exit.
    static constexpr std::size_t none = std::numeric_limits<std::size_t>::max();

    /// Builds the tree of the graph whose block b branches to the blocks in successors[b].
    /// Throws config_error for a successor index that is not a block.
    explicit post_dominator_tree(const std::vector<std::vector<std::size_t>>& successors)
        : n_(successors.size()), ipdom_(successors.size() + 1, none),
          order_(successors.size() + 1, none) {
        const std::size_t exit = n_;
        // Edges of the reverse graph: v -> its original predecessors; the virtual exit -> every
        // block without successors.
        std::vector<std::vector<std::size_t>> rev(n_ + 1);
        for (std::size_t b = 0; b < n_; ++b) {
            if (successors[b].empty()) rev[exit].push_back(b);
            for (std::size_t j = 0; j < successors[b].size(); ++j) {
                const std::size_t s = successors[b][j];
                if (s >= n_)
                    throw config_error("successors[" + std::to_string(b) + "][" +
                                           std::to_string(j) + "]",
                                       std::to_string(s), "< " + std::to_string(n_));
                rev[s].push_back(b);
            }
        }

        // Post-order of the reverse graph from the virtual exit (iterative depth-first walk).
        std::vector<std::size_t> post;
        post.reserve(n_ + 1);
        std::vector<bool> seen(n_ + 1, false);
        std::vector<std::pair<std::size_t, std::size_t>> walk; // node, next edge to follow
        walk.emplace_back(exit, 0);
        seen[exit] = true;
        while (!walk.empty()) {
            auto& [v, next] = walk.back();
            if (next < rev[v].size()) {
                const std::size_t w = rev[v][next++];
                if (!seen[w]) {
                    seen[w] = true;
                    walk.emplace_back(w, 0);
                }
            } else {
                order_[v] = post.size();
                post.push_back(v);
                walk.pop_back();
            }
        }

        // Iterate to the fixed point in reverse post-order. In the reverse graph the
        // predecessors of a block are its original successors (and the exit for exit blocks).
        ipdom_[exit] = exit;
        for (bool changed = true; changed;) {
            changed = false;
            for (std::size_t i = post.size(); i-- > 0;) {
                const std::size_t v = post[i];
                if (v == exit) continue;
                std::size_t pick = successors[v].empty() ? exit : none;
                for (const std::size_t s : successors[v])
                    if (ipdom_[s] != none) pick = pick == none ? s : intersect_(s, pick);
                if (pick != ipdom_[v]) {
                    ipdom_[v] = pick;
                    changed = true;
                }
            }
        }
    }

    /// Number of blocks (the virtual exit not included).
    [[nodiscard]] std::size_t size() const noexcept { return n_; }
    /// Index of the virtual exit node.
    [[nodiscard]] std::size_t virtual_exit() const noexcept { return n_; }
    /// Whether some path leads from block `b` to an exit.
    [[nodiscard]] bool reaches_exit(std::size_t b) const {
        WARPKIT_EXPECTS(b <= n_);
        return ipdom_[b] != none;
    }
    /// Immediate post-dominator of block `b`: a block, virtual_exit(), or `none` if `b` cannot
    /// reach an exit.
    [[nodiscard]] std::size_t ipdom(std::size_t b) const {
        WARPKIT_EXPECTS(b < n_);
        return ipdom_[b];
    }
    /// Whether every path from `b` to an exit passes through `a` (reflexive; `a` may be the
    /// virtual exit). A block that cannot reach an exit is post-dominated only by itself.
    [[nodiscard]] bool post_dominates(std::size_t a, std::size_t b) const {
        WARPKIT_EXPECTS(a <= n_ && b <= n_);
        if (a == b) return true;
        if (ipdom_[b] == none) return false;
        for (std::size_t v = b; v != n_;) {
            v = ipdom_[v];
            if (v == a) return true;
        }
        return false;
    }
    /// The post-dominators of `b`, nearest first: b, ipdom(b), ..., virtual_exit().
    [[nodiscard]] std::vector<std::size_t> post_dominators(std::size_t b) const {
        WARPKIT_EXPECTS(b <= n_);
        std::vector<std::size_t> out{b};
        if (ipdom_[b] == none) return out;
        for (std::size_t v = b; v != n_;) {
            v = ipdom_[v];
            out.push_back(v);
        }
        return out;
    }

    /// Reconvergence pc of each block: the start pc of its immediate post-dominator, `no_pc`
    /// when that is the virtual exit or the block cannot reach an exit. `block_pc[b]` is the
    /// pc of the first instruction of block b.
    [[nodiscard]] std::vector<pc_type>
    reconvergence_pcs(const std::vector<pc_type>& block_pc) const {
        if (block_pc.size() != n_)
            throw config_error("block_pc.size()", std::to_string(block_pc.size()),
                               std::to_string(n_) + " (one pc per block)");
        std::vector<pc_type> out(n_, no_pc);
        for (std::size_t b = 0; b < n_; ++b)
            if (ipdom_[b] != none && ipdom_[b] != n_) out[b] = block_pc[ipdom_[b]];
        return out;
    }

private:
    // Walks both fingers up the tree until they meet; a larger post-order number is nearer
    // the virtual exit.
    [[nodiscard]] std::size_t intersect_(std::size_t a, std::size_t b) const noexcept {
        while (a != b) {
            while (order_[a] < order_[b])
                a = ipdom_[a];
            while (order_[b] < order_[a])
                b = ipdom_[b];
        }
        return a;
    }

    std::size_t n_;
    std::vector<std::size_t> ipdom_; // index n_ is the virtual exit
    std::vector<std::size_t> order_; // post-order number in the reverse graph
};

/// The reconvergence pc of every instruction of a program of `n` instructions, for any ISA: the
/// start of the immediate post-dominator of the instruction's basic block, or no_pc when its
/// paths meet only at the program's end. Blocks start at pc 0, at every branch target and after
/// every block-ending instruction. `target(pc)` is the branch target of the instruction at pc
/// when it is a branch (a std::optional); `ends_block(pc)` says whether a block ends after pc
/// (a branch, an exit); `successors(pc, add)` calls add(next) for every pc control may go to
/// after the last instruction of a block, at pc. Pcs at or past `n` leave the program.
template <class Target, class EndsBlock, class Successors>
[[nodiscard]] std::vector<pc_type>
block_reconvergence_pcs(std::size_t n, Target target, EndsBlock ends_block, Successors successors) {
    std::vector<char> leader(n + 1, 0);
    leader[0] = 1;
    for (std::size_t pc = 0; pc < n; ++pc) {
        if (const auto t = target(pc); t && *t < n) leader[*t] = 1;
        if (ends_block(pc)) leader[pc + 1] = 1;
    }
    std::vector<std::size_t> block_of(n, 0);
    std::vector<pc_type> block_pc;
    for (std::size_t pc = 0; pc < n; ++pc) {
        if (leader[pc]) block_pc.push_back(static_cast<pc_type>(pc));
        block_of[pc] = block_pc.size() - 1;
    }
    std::vector<std::vector<std::size_t>> succ(block_pc.size());
    for (std::size_t b = 0; b < block_pc.size(); ++b) {
        const std::size_t last = (b + 1 < block_pc.size() ? block_pc[b + 1] : n) - 1;
        successors(last, [&](std::size_t next) {
            if (next < n) succ[b].push_back(block_of[next]);
        });
    }
    const post_dominator_tree tree(succ);
    const auto block_rpc = tree.reconvergence_pcs(block_pc);
    std::vector<pc_type> out(n, no_pc);
    for (std::size_t pc = 0; pc < n; ++pc)
        out[pc] = block_rpc[block_of[pc]];
    return out;
}

} // namespace warpkit::simt
