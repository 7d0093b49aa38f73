#include "sdk/hptune/metric_plot.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "fmt/format.h"
#include "sdk/hptune/results_table.h"

namespace trainpkg::sdk::hptune {
namespace {

constexpr double kWidth = 640;
constexpr double kHeight = 400;
constexpr double kLeft = 70;
constexpr double kRight = 20;
constexpr double kTop = 40;
constexpr double kBottom = 50;

// Metric and trial ids are the user's text inside XML.
std::string Escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string MetricPlotSvg(const jobspec::HyperparameterTuningJob& job) {
  const std::string metric_id =
      job.study_spec.metrics.empty() ? std::string() : job.study_spec.metrics.front().metric_id;
  const bool minimize =
      !job.study_spec.metrics.empty() &&
      jobspec::EffectiveGoal(job.study_spec.metrics.front()) == jobspec::GoalType::kMinimize;
  std::optional<double> low;
  std::optional<double> high;
  auto extend = [&](double v) {
    low = low ? std::min(*low, v) : v;
    high = high ? std::max(*high, v) : v;
  };
  for (const jobspec::Trial& trial : job.trials) {
    for (const jobspec::Measurement& m : trial.measurements) {
      if (auto v = jobspec::MetricValue(m, metric_id)) extend(*v);
    }
    if (auto v = TrialObjective(job, trial)) extend(*v);
  }
  if (!low) {
    low = 0;
    high = 1;
  }
  // All values equal: a range of zero would divide by zero in y_of.
  if (*high - *low < 1e-12) {
    *low -= 0.5;
    *high += 0.5;
  }
  const double plot_w = kWidth - kLeft - kRight;
  const double plot_h = kHeight - kTop - kBottom;
  const size_t n = std::max<size_t>(job.trials.size(), 1);
  auto x_of = [&](size_t i) { return kLeft + plot_w * (static_cast<double>(i) + 0.5) / n; };
  auto y_of = [&](double v) { return kTop + plot_h * (1 - (v - *low) / (*high - *low)); };
  const jobspec::Trial* best = BestTrial(job);

  std::string svg = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">{3} per trial ({4})"
      "</text>\n",
      kWidth, kHeight, kWidth / 2, Escape(metric_id), minimize ? "minimize" : "maximize");
  svg += fmt::format(
      "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"black\"/>\n"
      "<line x1=\"{0}\" y1=\"{2}\" x2=\"{3}\" y2=\"{2}\" stroke=\"black\"/>\n",
      kLeft, kTop, kTop + plot_h, kLeft + plot_w);
  svg += fmt::format(
      "<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\">{2:.4g}</text>\n"
      "<text x=\"{0}\" y=\"{3}\" text-anchor=\"end\">{4:.4g}</text>\n"
      "<text x=\"{5}\" y=\"{6}\" text-anchor=\"middle\">trial</text>\n",
      kLeft - 6, kTop + 4, *high, kTop + plot_h + 4, *low, kLeft + plot_w / 2, kHeight - 10);
  for (size_t i = 0; i < job.trials.size(); ++i) {
    const jobspec::Trial& trial = job.trials[i];
    const double x = x_of(i);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x,
                       kTop + plot_h + 18, Escape(trial.id));
    for (const jobspec::Measurement& m : trial.measurements) {
      if (auto v = jobspec::MetricValue(m, metric_id)) {
        svg += fmt::format(
            "<circle cx=\"{}\" cy=\"{:.2f}\" r=\"2.5\" fill=\"none\" stroke=\"#999999\"/>\n", x,
            y_of(*v));
      }
    }
    if (auto v = TrialObjective(job, trial)) {
      svg += fmt::format(
          "<circle cx=\"{}\" cy=\"{:.2f}\" r=\"5\" fill=\"{}\"><title>trial {}: {:.6g}</title>"
          "</circle>\n",
          x, y_of(*v), &trial == best ? "#d62728" : "#1f77b4", Escape(trial.id), *v);
    } else {
      const double y = kTop + plot_h;
      svg += fmt::format(
          "<path d=\"M{0} {1} l8 -8 m-8 0 l8 8\" transform=\"translate(-4 4)\" "
          "stroke=\"#7f7f7f\"><title>trial {2}: {3}</title></path>\n",
          x, y, Escape(trial.id), jobspec::TrialStateName(trial.state));
    }
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace trainpkg::sdk::hptune
