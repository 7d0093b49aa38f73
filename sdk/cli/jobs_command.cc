#include "sdk/cli/jobs_command.h"

#include <iostream>

#include "absl/strings/str_cat.h"
#include "base/environment.h"
#include "base/status_macros.h"
#include "base/terminal_text.h"
#include "jobspec/job_state.h"
#include "sdk/backend_table.h"
#include "sdk/cli/exit_codes.h"
#include "sdk/cli/job_id_resolver.h"
#include "sdk/cli/job_view.h"
#include "sdk/cli/tuning_job_view.h"
#include "sdk/hptune/tuning_job_store.h"
#include "sdk/job_client.h"
#include "sdk/job_logs.h"
#include "sdk/serve/list_filter.h"

namespace trainpkg::cli {
namespace {

// Long enough for a supervisor to stop replicas after the default 10 s
// grace period.
constexpr absl::Duration kCancelTimeout = absl::Seconds(30);

// Jobs the list table shows without --limit, as the REST list's default page.
constexpr size_t kDefaultTableRows = 100;

// Tuning jobs (sdk/hptune/tuning_job_store.h) share the job ids' namespace
// with CustomJobs: describe and cancel look there first.
absl::Status CancelTuningJob(const sdk::hptune::TuningJobStore& store, const std::string& id,
                             std::ostream& out) {
  TP_RETURN_IF_ERROR(store.RequestCancel(id));
  const absl::Time deadline = absl::Now() + kCancelTimeout;
  TP_ASSIGN_OR_RETURN(jobspec::HyperparameterTuningJob job, store.ReadJob(id));
  while (!jobspec::IsTerminal(job.state) && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(100));
    TP_ASSIGN_OR_RETURN(job, store.ReadJob(id));
  }
  out << "Tuning job " << id << ": " << jobspec::JobStateName(job.state) << "\n";
  return absl::OkStatus();
}

// Credentials for a recorded job's service, read from the flags only when
// its driver asks.
sdk::RecordAccess AccessFromFlags(const JobsFlags& flags) {
  return sdk::RecordAccess{.credentials = [&flags] {
    return AccessTokenCredentialsFromFlags(flags.access_token, base::ProcessEnvironment(),
                                           std::cin);
  }};
}

// The recorded job, refreshed from where its backend runs it when it is not
// terminal; a refresh that fails leaves the record as it was and is noted
// below it.
absl::Status DescribeJob(const sdk::JobClient& client, sdk::JobInfo info, const JobsFlags& flags,
                         std::ostream& out) {
  const sdk::BackendDriver& driver = sdk::JobDriver(info);
  std::string note;
  if (!jobspec::IsTerminal(info.job.state)) {
    absl::StatusOr<jobspec::CustomJob> job =
        driver.Refresh(client.store(), info, AccessFromFlags(flags));
    if (job.ok()) {
      info.job = *std::move(job);
    } else if (std::optional<sdk::RemotePlace> remote = driver.remote()) {
      note = absl::StrCat(
          "  Not refreshed from ", std::string(remote->source), ": ",
          base::TerminalSafe(std::string(job.status().message()), base::TextLayout::kMultiLine),
          "\n");
    }
  }
  out << FormatJobDescription(info, client.store()) << note;
  return absl::OkStatus();
}

sdk::JobLogsOptions LogsOptions(const JobsFlags& flags) {
  return sdk::JobLogsOptions{.replica = flags.replica, .follow = flags.follow};
}

// FailedPrecondition when the job's backend cannot print its logs as asked
// (a Vertex AI job's are in Cloud Logging).
absl::Status CheckLogsHere(const JobsFlags& flags) {
  absl::StatusOr<std::filesystem::path> home = sdk::DefaultJobStoreHome(base::ProcessEnvironment());
  if (!home.ok()) return absl::OkStatus();  // Run() reports it
  absl::StatusOr<sdk::JobInfo> info = sdk::JobClient(sdk::JobStore(*home)).GetJob(flags.id);
  if (!info.ok()) return absl::OkStatus();  // Run() reports it
  return sdk::JobDriver(*info).CheckLogs(*info, LogsOptions(flags));
}

absl::StatusOr<std::string> ResolveIdInDefaultHome(const std::string& id) {
  TP_ASSIGN_OR_RETURN(std::filesystem::path home,
                      sdk::DefaultJobStoreHome(base::ProcessEnvironment()));
  return ResolveJobId(sdk::JobStore(home), sdk::hptune::TuningJobStore(home), id);
}

absl::Status Run(const JobsCommands& commands, const JobsFlags& flags, std::ostream& out) {
  TP_ASSIGN_OR_RETURN(std::filesystem::path home,
                      sdk::DefaultJobStoreHome(base::ProcessEnvironment()));
  // A home an older trainpkg made 0755 is narrowed on first sight; none is created.
  if (std::error_code ec; std::filesystem::is_directory(home, ec)) {
    TP_RETURN_IF_ERROR(sdk::MakeHomePrivate(home));
    if (std::filesystem::is_directory(home / "jobs", ec)) {
      TP_RETURN_IF_ERROR(sdk::MakePrivateDir(home / "jobs", sdk::ExistingDir::kNarrow));
    }
  }
  sdk::JobClient client{sdk::JobStore(home)};
  const sdk::hptune::TuningJobStore tuning_store(home);
  if (commands.list->parsed()) {
    std::vector<sdk::JobInfo> jobs;
    bool more = false;
    const bool table = flags.format != "json" && !flags.quiet;
    if (flags.query.sort_by.empty()) {
      // List order: the store's index picks the page, only its jobs are read.
      TP_ASSIGN_OR_RETURN(sdk::serve::ListFilter filter,
                          sdk::serve::ListFilter::Parse(flags.query.filter));
      sdk::JobListOptions options;
      if (!flags.query.filter.empty()) {
        options.matches = [&filter](const jobspec::CustomJob& job) { return filter.Matches(job); };
      }
      options.limit = static_cast<size_t>(flags.query.limit);
      if (table && !flags.limit_given) options.limit = kDefaultTableRows;
      TP_ASSIGN_OR_RETURN(sdk::JobList list, client.ListJobs(options));
      jobs = std::move(list.jobs);
      more = list.more && table && !flags.limit_given;
    } else {
      TP_ASSIGN_OR_RETURN(std::vector<sdk::JobInfo> all, client.ListJobs());
      TP_ASSIGN_OR_RETURN(jobs, SelectJobs(std::move(all), flags.query));
    }
    if (flags.quiet) {
      for (const sdk::JobInfo& info : jobs) out << base::TerminalSafe(info.id) << "\n";
      return absl::OkStatus();
    }
    out << (flags.format == "json" ? FormatJobListJson(jobs) : FormatJobTable(jobs, absl::Now()));
    if (more) {
      out << "(the newest " << kDefaultTableRows
          << " jobs; --limit N shows N, --limit 0 all, --filter selects)\n";
    }
    const bool queried =
        !flags.query.filter.empty() || !flags.query.sort_by.empty() || flags.query.limit > 0;
    if (flags.format != "json" && !queried) {
      TP_ASSIGN_OR_RETURN(std::vector<std::string> ids, tuning_store.ListJobIds());
      std::vector<jobspec::HyperparameterTuningJob> tuning_jobs;
      for (const std::string& id : ids) {
        TP_ASSIGN_OR_RETURN(jobspec::HyperparameterTuningJob job, tuning_store.ReadJob(id));
        tuning_jobs.push_back(std::move(job));
      }
      out << FormatTuningJobTable(tuning_jobs);
    }
    return absl::OkStatus();
  }
  if (commands.describe->parsed() && tuning_store.Exists(flags.id)) {
    TP_ASSIGN_OR_RETURN(jobspec::HyperparameterTuningJob job, tuning_store.ReadJob(flags.id));
    out << FormatTuningJobDescription(job);
    return absl::OkStatus();
  }
  if (commands.cancel->parsed() && tuning_store.Exists(flags.id)) {
    return CancelTuningJob(tuning_store, flags.id, out);
  }
  if (commands.describe->parsed()) {
    TP_ASSIGN_OR_RETURN(sdk::JobInfo info, client.GetJob(flags.id));
    return DescribeJob(client, std::move(info), flags, out);
  }
  if (commands.logs->parsed()) {
    TP_ASSIGN_OR_RETURN(sdk::JobInfo info, client.GetJob(flags.id));
    return sdk::JobDriver(info).WriteLogs(client.store(), info, LogsOptions(flags), out);
  }
  // Not GetJob: an orphaned job is repaired by the cancel, as CANCELLED.
  TP_ASSIGN_OR_RETURN(sdk::JobInfo info, client.ReadJob(flags.id));
  const sdk::BackendDriver& driver = sdk::JobDriver(info);
  TP_ASSIGN_OR_RETURN(jobspec::CustomJob job,
                      driver.Cancel(client.store(), info, AccessFromFlags(flags), kCancelTimeout));
  out << "Job " << flags.id << ": " << jobspec::JobStateName(job.state) << "\n";
  return absl::OkStatus();
}

}  // namespace

constexpr char kIdHelp[] = "Job id, a unique prefix of one, or latest";

JobsCommands AddJobsCommands(CLI::App& app, JobsFlags& flags) {
  JobsCommands commands;
  commands.jobs = app.add_subcommand("jobs", "Inspect and cancel jobs (local, slurm, vertex, k8s)");
  commands.jobs->require_subcommand(1);
  commands.list = commands.jobs->add_subcommand(
      "list",
      "List jobs, newest first, then tuning jobs (only CustomJobs with --filter, --sort-by, "
      "--limit or -q)");
  commands.list->add_option("--format", flags.format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  commands.list->add_option(
      "--filter", flags.query.filter,
      "Only jobs matching terms joined by AND: state=JOB_STATE_RUNNING, displayName:part, "
      "labels.KEY=VALUE, createTime>\"2026-11-27T00:00:00Z\", NOT TERM (Vertex AI's list filter)");
  commands.list->add_option("--sort-by", flags.query.sort_by,
                            "createTime, displayName or state; ~FIELD for descending");
  commands.list->add_option(
      "--limit", flags.query.limit,
      "At most N jobs (after --filter); 0: all. Default: all, but the table shows the newest 100");
  commands.list->add_flag("-q,--quiet", flags.quiet, "Only the job ids, one a line");
  commands.describe =
      commands.jobs->add_subcommand("describe", "Print a job (Vertex JSON) and its processes");
  commands.describe->add_option("id", flags.id, kIdHelp)->required();
  AddAccessTokenFlags(*commands.describe, flags.access_token, "vertex jobs");
  commands.logs = commands.jobs->add_subcommand(
      "logs",
      "Print a job's replica output, every replica prefixed with its name. The output is "
      "printed as the programs wrote it, control characters included (like docker logs); "
      "list and describe show job fields with control characters escaped");
  commands.logs->add_option("id", flags.id, kIdHelp)->required();
  commands.logs->add_option("--replica", flags.replica,
                            "Only this replica (e.g. workerpool1-0), without prefixes");
  commands.logs->add_flag("-f,--follow", flags.follow, "Keep printing until the job ends");
  commands.cancel = commands.jobs->add_subcommand(
      "cancel",
      "Cancel a job: its replicas get SIGTERM, then SIGKILL after the grace period; a "
      "Vertex AI job is cancelled on the service, a Kubernetes job's workload deleted");
  commands.cancel->add_option("id", flags.id, kIdHelp)->required();
  AddAccessTokenFlags(*commands.cancel, flags.access_token, "vertex jobs");
  return commands;
}

int RunJobsCommand(const JobsCommands& commands, const JobsFlags& given, std::ostream& out,
                   std::ostream& err) {
  if (!given.access_token.argv_token.empty()) {  // refused whatever the job: it is in ps now
    return ReportError(
        err,
        AccessTokenCredentialsFromFlags(given.access_token, base::ProcessEnvironment(), std::cin)
            .status(),
        kExitUsage);
  }
  JobsFlags flags = given;
  if (commands.list->parsed()) {  // a malformed --filter / --sort-by is a usage error
    flags.limit_given = commands.list->get_option("--limit")->count() > 0;
    if (absl::Status status = SelectJobs({}, flags.query).status(); !status.ok()) {
      return ReportError(err, status, kExitUsage);
    }
  } else {
    absl::StatusOr<std::string> id = ResolveIdInDefaultHome(given.id);
    if (!id.ok()) {
      return ReportError(err, id.status(),
                         absl::IsInvalidArgument(id.status()) ? kExitUsage : kExitFailed);
    }
    flags.id = *std::move(id);
  }
  if (commands.logs->parsed()) {
    if (absl::Status status = CheckLogsHere(flags); !status.ok()) {
      return ReportError(err, status, kExitUsage);
    }
  }
  absl::Status status = Run(commands, flags, out);
  return status.ok() ? kExitOk : ReportError(err, status, kExitFailed);
}

}  // namespace trainpkg::cli
