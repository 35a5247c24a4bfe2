#pragma once
/// \file
/// Everything in warpkit/reconfig: AMOEBA's scalability metrics and predictor (paper 002,
/// Section 4.1), its training and its file formats, the switch controller of its dynamic
/// split (Section 4.3); front-end sharing clusters and their
/// compiler hint (paper 000). reconfig/logistic_fit.hpp pulls in Eigen's QR.

#include <warpkit/reconfig/block_dependence.hpp>
#include <warpkit/reconfig/coefficient_file.hpp>
#include <warpkit/reconfig/front_end_sharing.hpp>
#include <warpkit/reconfig/logistic_fit.hpp>
#include <warpkit/reconfig/logistic_regression.hpp>
#include <warpkit/reconfig/predictor.hpp>
#include <warpkit/reconfig/scalability_metrics.hpp>
#include <warpkit/reconfig/sm_split.hpp>
#include <warpkit/reconfig/training_data.hpp>
