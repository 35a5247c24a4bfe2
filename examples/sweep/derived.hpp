#pragma once
// Derived figures of a sweep spec: parsing an expression of + - * / ( ), numbers and earlier
// columns into postfix code, and evaluating that code over a row's values.

#include "spec_types.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <exception>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sweep {

namespace detail {

// Recursive-descent parser of + - * / ( ) numbers and column names into postfix code.
class expr_parser {
public:
    expr_parser(const spec& s, std::string where, std::string_view text,
                const std::vector<std::string>& columns)
        : s_(s), where_(std::move(where)), t_(text), columns_(columns) {}

    std::vector<expr_op> parse() {
        sum();
        skip();
        if (i_ != t_.size()) throw fail("unexpected '" + std::string(1, t_[i_]) + "'");
        return std::move(code_);
    }

private:
    warpkit::error fail(const std::string& why) const {
        return spec_error(s_, where_,
                          "'" + std::string(t_) + "' at character " + std::to_string(i_ + 1) +
                              ": " + why);
    }
    void skip() {
        while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t'))
            ++i_;
    }
    void sum() {
        product();
        for (;;) {
            skip();
            if (i_ < t_.size() && (t_[i_] == '+' || t_[i_] == '-')) {
                const char op = t_[i_++];
                product();
                code_.push_back({op == '+' ? expr_op::kind::add : expr_op::kind::sub});
            } else {
                return;
            }
        }
    }
    void product() {
        unary();
        for (;;) {
            skip();
            if (i_ < t_.size() && (t_[i_] == '*' || t_[i_] == '/')) {
                const char op = t_[i_++];
                unary();
                code_.push_back({op == '*' ? expr_op::kind::mul : expr_op::kind::div});
            } else {
                return;
            }
        }
    }
    void unary() {
        skip();
        if (++depth_ > 200) throw fail("nested too deeply");
        if (i_ < t_.size() && t_[i_] == '-') {
            ++i_;
            unary();
            code_.push_back({expr_op::kind::neg});
        } else {
            primary();
        }
        --depth_;
    }
    static bool name_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '.';
    }
    void primary() {
        skip();
        if (i_ == t_.size()) throw fail("expected a number, a column or '('");
        const char c = t_[i_];
        if (c == '(') {
            ++i_;
            sum();
            skip();
            if (i_ == t_.size() || t_[i_] != ')') throw fail("expected ')'");
            ++i_;
            return;
        }
        if ((c >= '0' && c <= '9') || c == '.') {
            std::size_t j = i_;
            while (j < t_.size() && ((t_[j] >= '0' && t_[j] <= '9') || t_[j] == '.' ||
                                     t_[j] == 'e' || t_[j] == 'E' ||
                                     ((t_[j] == '+' || t_[j] == '-') && j > i_ &&
                                      (t_[j - 1] == 'e' || t_[j - 1] == 'E'))))
                ++j;
            const std::string num(t_.substr(i_, j - i_));
            std::size_t used = 0;
            double v = 0;
            try {
                v = std::stod(num, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != num.size() || !std::isfinite(v)) throw fail("bad number '" + num + "'");
            code_.push_back({expr_op::kind::number, v});
            i_ = j;
            return;
        }
        if (name_char(c)) {
            std::size_t j = i_;
            while (j < t_.size() && name_char(t_[j]))
                ++j;
            const std::string name(t_.substr(i_, j - i_));
            const auto it = std::find(columns_.begin(), columns_.end(), name);
            if (it == columns_.end()) {
                std::string known;
                for (const auto& k : columns_)
                    known += (known.empty() ? "" : ", ") + k;
                throw fail("'" + name + "' is not a statistic or an earlier derived figure" +
                           (known.empty() ? std::string() : " (known: " + known + ")"));
            }
            code_.push_back(
                {expr_op::kind::column, 0, static_cast<std::size_t>(it - columns_.begin())});
            i_ = j;
            return;
        }
        throw fail("unexpected '" + std::string(1, c) + "'");
    }

    const spec& s_;
    std::string where_;
    std::string_view t_;
    const std::vector<std::string>& columns_;
    std::vector<expr_op> code_;
    std::size_t i_ = 0;
    int depth_ = 0;
};

} // namespace detail

/// `d` evaluated over `values` (statistics then derived figures, as numbers; NaN where a value
/// is not a number). Division by zero and other non-finite results give NaN.
[[nodiscard]] inline double evaluate(const derived_spec& d, const std::vector<double>& values) {
    std::vector<double> stack;
    for (const auto& op : d.code) {
        if (op.k == expr_op::kind::number) {
            stack.push_back(op.number);
            continue;
        }
        if (op.k == expr_op::kind::column) {
            stack.push_back(op.column < values.size() ? values[op.column]
                                                      : std::numeric_limits<double>::quiet_NaN());
            continue;
        }
        if (op.k == expr_op::kind::neg) {
            stack.back() = -stack.back();
            continue;
        }
        const double b = stack.back();
        stack.pop_back();
        double& a = stack.back();
        switch (op.k) {
        case expr_op::kind::add:
            a += b;
            break;
        case expr_op::kind::sub:
            a -= b;
            break;
        case expr_op::kind::mul:
            a *= b;
            break;
        default:
            a = b == 0 ? std::numeric_limits<double>::quiet_NaN() : a / b;
            break;
        }
    }
    const double r = stack.empty() ? std::numeric_limits<double>::quiet_NaN() : stack.back();
    return std::isfinite(r) ? r : std::numeric_limits<double>::quiet_NaN();
}

} // namespace sweep
