// What the dashboard's pages show (docs/adr/2026-11-28-dashboard.md), as
// JSON read from the job store and the tuning job store, without HTTP
// (dashboard_routes.h serves it). Every function reads the stores afresh;
// all are thread-safe.
#ifndef TRAINPKG_SDK_SERVE_DASHBOARD_DATA_H_
#define TRAINPKG_SDK_SERVE_DASHBOARD_DATA_H_

#include <filesystem>
#include <string_view>

#include "nlohmann/json.hpp"
#include "sdk/job_client.h"
#include "sdk/serve/local_job_service.h"

namespace trainpkg::sdk::serve {

// {"jobs": [{"id", "displayName", "state", "backend", "createTime",
// "startTime", "endTime", "error"}], "total", "page", "pageSize"}: every job
// of every backend matching `filter` (list_filter.h), newest first, page
// `page` (from 0) of `page_size` (1..500; "" for 50). 400 for a bad filter,
// page or page size.
RestReply DashboardJobs(const JobClient& client, std::string_view filter,
                        std::string_view page_size, std::string_view page);

// {"id", "backend", "job": <CustomJob JSON>, "replicas": [{"name", "pool",
// "index", "state" (RUNNING, EXITED, NOT_STARTED), "pid", "address",
// "argv", "container", "restarts", "exitCode", "signal"}], "clusterEnv": {replica:
// {VAR: value}} (local jobs: CLUSTER_SPEC, TF_CONFIG, AIP_*, CLOUD_ML_* as
// the local backend makes them from the record; the job secret left out),
// "logs": [replica names with a log file], "tuningJob": id (a trial's)}.
// 404 for an unknown job.
RestReply DashboardJob(const JobClient& client, std::string_view id);

// {"scalars": {tag: [[step, value, wallTime], ...]}, "sources": [files]}:
// the scalars of the job's TensorBoard event files (in
// AIP_TENSORBOARD_LOG_DIR of its local baseOutputDirectory) and of its
// hypertune metric file (CLOUD_ML_HP_METRIC_FILE, tag "hypertune/<metric>"),
// each tag's points by step. Unreadable files are listed in "errors". 404
// for an unknown job.
RestReply DashboardScalars(const JobClient& client, std::string_view id);

// {"tuningJobs": [{"id", "displayName", "state", "createTime", "trials",
// "bestTrialId"}]}, newest first.
RestReply DashboardTuningJobs(const std::filesystem::path& home);

// {"id", "job": <HyperparameterTuningJob JSON>, "results": ResultsJson (what
// results.json holds), "trialJobs": {trial id: CustomJob id}}. 404 for an
// unknown tuning job.
RestReply DashboardTuningJob(const std::filesystem::path& home, std::string_view id);

}  // namespace trainpkg::sdk::serve

#endif  // TRAINPKG_SDK_SERVE_DASHBOARD_DATA_H_
