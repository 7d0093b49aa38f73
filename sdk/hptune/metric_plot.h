// A plot of the metric per trial as a standalone SVG document (SVG 1.1,
// text only, no scripts): one point per trial that has measurements, x =
// trial id order, y = the final objective (filled circle) with the trial's
// intermediate measurements as small hollow marks, the best trial in a
// second colour, axes with min/max labels, the metric id and goal in the
// title. Trials without an objective are drawn as a cross on the x axis.
#ifndef TRAINPKG_SDK_HPTUNE_METRIC_PLOT_H_
#define TRAINPKG_SDK_HPTUNE_METRIC_PLOT_H_

#include <string>

#include "jobspec/hyperparameter_tuning_job.h"

namespace trainpkg::sdk::hptune {

std::string MetricPlotSvg(const jobspec::HyperparameterTuningJob& job);

}  // namespace trainpkg::sdk::hptune

#endif  // TRAINPKG_SDK_HPTUNE_METRIC_PLOT_H_
