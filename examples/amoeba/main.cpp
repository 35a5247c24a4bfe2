// warpkit-amoeba: AMOEBA's scalability predictor (paper 002, Section 4.1) from the command line.
//   predict  --coeffs table2|FILE --metrics key=value,...   scale_up / scale_out and P(scale up)
//   train    DATA.csv [--l2 LAMBDA]                          fit coefficients to offline data
//   study    [--kernels DIR] [--cuda DIR] [--coeffs ...]       baseline, scale-up, static fuse
// Each subcommand is one add_* function below; main() only registers and dispatches them.
#include "study.hpp"

#include "../common/command_line.hpp"
#include "../common/output.hpp"

#include "../common/tool_main.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>
#include <warpkit/reconfig/coefficient_file.hpp>
#include <warpkit/reconfig/logistic_fit.hpp>
#include <warpkit/reconfig/logistic_regression.hpp>
#include <warpkit/reconfig/predictor.hpp>
#include <warpkit/reconfig/scalability_metrics.hpp>
#include <warpkit/reconfig/training_data.hpp>

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace {

namespace rc = warpkit::reconfig;

/// A mistake in the command line or its inputs (exit code 2).
struct usage_error : warpkit::error {
    using warpkit::error::error;
};

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v)
        s += (s.empty() ? "" : ", ") + x;
    return s;
}

// ---------------------------------------------------------------------------------------------
// predict
// ---------------------------------------------------------------------------------------------

struct predict_options {
    std::string coeffs = "table2";
    std::string metrics;
    bool explain = false;
};

rc::logistic_regression load_coefficients(const std::string& which) {
    if (which == "table2") return rc::scalability_predictor::table2().to_model();
    return rc::read_coefficients(warpkit::read_file(which), which);
}

// "key=value,..." -> one value per model input, in the model's order. Every input must be
// given once; a key the model does not use, a repeated key or a value that is not a number
// (or is outside the metric's range) is an error naming the key.
std::vector<double> parse_metrics(std::string_view text, const rc::logistic_regression& model,
                                  const std::string& coeffs) {
    std::vector<double> x(model.inputs(), 0.0);
    std::vector<bool> given(model.inputs(), false);
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find(',', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view item = trim(text.substr(start, end - start));
        start = end + 1;
        if (item.empty()) {
            if (end == text.size() && !text.empty()) break; // a trailing comma
            throw usage_error("--metrics: empty entry (expected key=value,...)");
        }
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos)
            throw usage_error("--metrics: '" + std::string(item) + "' is not key=value");
        const std::string key(trim(item.substr(0, eq)));
        const std::string_view value = trim(item.substr(eq + 1));
        const auto metric = rc::metric_index(key);
        if (!metric)
            throw usage_error("--metrics: unknown metric '" + key +
                              "' (metrics: " + rc::metric_list() + ")");
        const auto at = model.index_of(key);
        if (!at)
            throw usage_error("--metrics: metric '" + key + "' is not an input of the " + coeffs +
                              " coefficients (inputs: " + join(model.names()) + ")");
        if (given[*at]) throw usage_error("--metrics: metric '" + key + "' is given twice");
        double v = 0;
        std::string_view digits = value;
        if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
        const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
        if (digits.empty() || ec != std::errc{} || p != digits.data() + digits.size())
            throw usage_error("--metrics: metric '" + key + "': '" + std::string(value) +
                              "' is not a number");
        try {
            rc::check_metric(*metric, v);
        } catch (const warpkit::config_error& e) {
            throw usage_error("--metrics: metric '" + key + "' = " + std::string(value) +
                              " is not allowed (" + e.allowed() + ")");
        }
        x[*at] = v;
        given[*at] = true;
    }
    for (std::size_t i = 0; i < model.inputs(); ++i)
        if (!given[i])
            throw usage_error("--metrics: missing metric '" + model.names()[i] + "' (the " +
                              coeffs + " coefficients need: " + join(model.names()) + ")");
    return x;
}

int run_predict(const predict_options& o) {
    const auto model = load_coefficients(o.coeffs);
    const auto x = parse_metrics(o.metrics, model, o.coeffs);
    const auto r = model.predict(x);
    std::printf("%s %.4f\n", r.decision == rc::scale_decision::scale_up ? "scale_up" : "scale_out",
                r.probability);
    if (o.explain) {
        // Figure 20: each term's impact b_i x_i and its share of the total |impact|.
        rc::scalability_metrics m;
        for (std::size_t i = 0; i < model.inputs(); ++i)
            m.*rc::metric_fields[*rc::metric_index(model.names()[i])] = x[i];
        const auto br = rc::scalability_predictor::from(model).impact(m);
        std::printf("logit %.6g (P = %.6g)\n", br.logit, r.probability);
        std::printf("%-18s %12s %8s\n", "term", "impact", "share");
        for (const auto& t : br.terms)
            std::printf("%-18.*s %12.4f %8.4f\n", static_cast<int>(t.name.size()), t.name.data(),
                        t.impact + 0.0, t.share + 0.0); // + 0.0: print -0 as 0
    }
    return 0;
}

void add_predict(CLI::App& app, std::function<int()>& run) {
    auto o = std::make_shared<predict_options>();
    auto* sub = app.add_subcommand(
        "predict", "predict scale_up (fuse SMs) or scale_out for a kernel's sampled metrics");
    sub->add_option("--coeffs", o->coeffs,
                    "'table2' (paper 002, Table 2) or a coefficient file written by 'train'")
        ->capture_default_str();
    sub->add_option("--metrics", o->metrics,
                    "key=value,... for every input of the coefficients; keys: " + rc::metric_list())
        ->required();
    sub->add_flag("--explain", o->explain,
                  "also print the logit and the Figure 20 impact breakdown");
    sub->callback([o, &run] { run = [o] { return run_predict(*o); }; });
}

// ---------------------------------------------------------------------------------------------
// train
// ---------------------------------------------------------------------------------------------

struct train_options {
    std::string data;
    rc::fit_params fit;
    bool summary = false;
};

int run_train(const train_options& o) {
    const auto set = rc::read_training_csv(warpkit::read_file(o.data), o.data);
    rc::fit_result r;
    try {
        r = rc::fit_logistic_regression(set, o.fit);
    } catch (const rc::fit_error& e) {
        switch (e.kind()) {
        case rc::fit_failure::separable:
            throw usage_error(o.data + ": " + e.headline() + "; use --l2 LAMBDA (" + e.reason() +
                              ")");
        case rc::fit_failure::singular:
        case rc::fit_failure::too_few_rows:
            throw usage_error(o.data + ": " + e.headline() + ": " + e.reason() +
                              "; drop columns, add rows or use --l2 LAMBDA");
        case rc::fit_failure::not_converged:
            throw usage_error(o.data + ": " + e.headline() + " (" + e.reason() +
                              "); raise --max-iterations or use --l2 LAMBDA");
        case rc::fit_failure::one_class:
            break;
        }
        throw usage_error(o.data + ": " + e.what());
    }
    std::fputs(rc::write_coefficients(r.model).c_str(), stdout);
    if (o.summary) {
        std::fprintf(stderr,
                     "%zu rows, %u Newton iterations, log-likelihood %.6g, %zu (%.1f%%) "
                     "classified correctly\n",
                     set.rows(), r.iterations, r.log_likelihood, r.correct,
                     100.0 * static_cast<double>(r.correct) / static_cast<double>(set.rows()));
        std::fprintf(stderr, "%-18s %14s %14s\n", "coefficient", "value", "std.error");
        std::fprintf(stderr, "%-18s %14.6g %14.6g\n", "constant", r.model.intercept(),
                     r.standard_errors[0]);
        for (std::size_t i = 0; i < r.model.inputs(); ++i)
            std::fprintf(stderr, "%-18s %14.6g %14.6g\n", r.model.names()[i].c_str(),
                         r.model.weights()[i], r.standard_errors[i + 1]);
    }
    return 0;
}

void add_train(CLI::App& app, std::function<int()>& run) {
    auto o = std::make_shared<train_options>();
    auto* sub = app.add_subcommand(
        "train", "fit the predictor to offline data; prints 'name value' lines for --coeffs");
    sub->add_option("data", o->data,
                    "CSV: a header of metric keys then 'label', one row per kernel, label 1 = "
                    "faster on scale-up SMs")
        ->required();
    sub->add_option("--l2", o->fit.l2, "L2 penalty lambda on the weights (not the constant)")
        ->capture_default_str();
    sub->add_option("--tolerance", o->fit.tolerance, "Newton convergence tolerance")
        ->capture_default_str();
    sub->add_option("--max-iterations", o->fit.max_iterations, "Newton iterations at most")
        ->capture_default_str();
    sub->add_flag("--summary", o->summary, "print iterations, fit and standard errors to stderr");
    sub->callback([o, &run] { run = [o] { return run_train(*o); }; });
}

int tool_main(int argc, char** argv) {
    CLI::App app{"warpkit-amoeba: AMOEBA's scalability predictor (paper 002): whether a kernel "
                 "runs better on fused (scale-up) or baseline (scale-out) SMs"};
    app.require_subcommand(1);
    std::function<int()> run;
    add_predict(app, run);
    add_train(app, run);
    add_study(app, run, example::record_header("warpkit-amoeba", argc, argv));
    if (const auto code = example::parse_command_line(app, argc, argv)) return *code;
    try {
        return run();
    } catch (const warpkit::sim_error& e) {
        // A run of 'study' that could not go on: exit code 1. Every other error (bad input,
        // a file that cannot be read) reaches guarded_main: exit code 2.
        std::cerr << "warpkit-amoeba: " << e.what() << '\n';
        return 1;
    }
}

} // namespace

int main(int argc, char** argv) {
    return example::guarded_main("warpkit-amoeba", [&] { return tool_main(argc, argv); });
}
