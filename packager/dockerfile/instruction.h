// The typed AST of one Dockerfile instruction.
//
// Words that Docker expands (see expand.h) are kept here exactly as written,
// quotes and `$VAR` included, so one parse serves every set of build args;
// ExpandInstruction() turns them into final values. Words Docker never
// expands (RUN/CMD/ENTRYPOINT/HEALTHCHECK commands, SHELL) are final as
// parsed. Values are plain data: copyable, no invariants beyond the comments.
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_INSTRUCTION_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_INSTRUCTION_H_

#include <chrono>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace trainpkg::packager::dockerfile {

// 1-based physical lines an instruction spans (continuations included).
struct SourceRange {
  int first_line = 0;
  int last_line = 0;
  bool operator==(const SourceRange&) const = default;
};

// A here-document of RUN, COPY or ADD (BuildKit's Dockerfile syntax 1.4):
// `<<WORD` (or `<<-WORD`) on the instruction line, then the body lines, then
// a line that is exactly WORD. Several may follow one line, bodies in order.
struct Heredoc {
  std::string delimiter;    // WORD with its quotes removed ("EOF" for <<"EOF")
  std::string body;         // the lines before the delimiter line, each ending '\n'
                            // (leading tabs already removed for <<-)
  bool strip_tabs = false;  // `<<-`: leading tabs of body and delimiter lines dropped
  bool expand = true;       // WORD unquoted: COPY/ADD expand ARG/ENV in the body
  SourceRange lines;        // the body lines and the delimiter line
  bool operator==(const Heredoc&) const = default;
};

// RUN/CMD/ENTRYPOINT/HEALTHCHECK command. Exec (JSON) form: `args` is the
// argv. Shell form: `args` holds the single command string, which the builder
// runs with the stage's SHELL (default ["/bin/sh", "-c"]).
struct CommandLine {
  bool exec_form = false;
  std::vector<std::string> args;
  bool operator==(const CommandLine&) const = default;
};

// FROM [--platform=P] IMAGE [AS name]. `image` is unexpanded; what it names
// (scratch, oci:DIR[:REF], an earlier stage, a registry reference) is decided
// after expansion by PlanBuild(). `stage_name` is lowercased ("" if none).
struct FromInstruction {
  std::string image;
  std::string platform;
  std::string stage_name;
  bool operator==(const FromInstruction&) const = default;
};

// ARG name[=default] ... (several per line allowed).
struct ArgInstruction {
  struct Arg {
    std::string name;
    std::optional<std::string> default_value;  // unexpanded
    bool operator==(const Arg&) const = default;
  };
  std::vector<Arg> args;
  bool operator==(const ArgInstruction&) const = default;
};

struct KeyValue {
  std::string key;
  std::string value;
  bool operator==(const KeyValue&) const = default;
};

// ENV k=v ... or the legacy ENV k v (value: the rest of the line).
struct EnvInstruction {
  std::vector<KeyValue> vars;
  bool operator==(const EnvInstruction&) const = default;
};

// LABEL k=v ... (legacy `LABEL k v` accepted like ENV).
struct LabelInstruction {
  std::vector<KeyValue> labels;
  bool operator==(const LabelInstruction&) const = default;
};

struct WorkdirInstruction {
  std::string path;
  bool operator==(const WorkdirInstruction&) const = default;
};

// COPY and ADD. `from` is "" for the build context. `heredocs` are inline
// sources (`COPY <<EOF /etc/app.conf`): each becomes a file named after its
// delimiter (or DEST itself when DEST has no trailing '/' and it is the only
// source), mode 0644 unless --chmod; `sources` holds the other sources. `link` is accepted and
// recorded: every layer we write already holds only the copied files, so it
// changes nothing in the output. ADD of remote URLs is rejected by the parser.
struct CopyInstruction {
  bool is_add = false;
  std::vector<std::string> sources;
  std::vector<Heredoc> heredocs;
  std::string dest;
  std::string from;
  std::string chown;
  std::string chmod;
  bool link = false;
  bool json_form = false;
  bool operator==(const CopyInstruction&) const = default;
};

struct UserInstruction {
  std::string user;
  bool operator==(const UserInstruction&) const = default;
};

// EXPOSE port[-port][/proto] ... (unexpanded words; see ParsePortSpec).
struct ExposeInstruction {
  std::vector<std::string> ports;
  bool operator==(const ExposeInstruction&) const = default;
};

struct VolumeInstruction {
  std::vector<std::string> paths;
  bool operator==(const VolumeInstruction&) const = default;
};

// RUN. With heredocs the command is shell form and `command.args[0]` is
// the text the shell runs: for a RUN that is one heredoc alone (`RUN <<EOF`,
// `script` true) the body itself, run as a script (the builder executes a
// body starting with "#!" directly, as BuildKit does); otherwise the line
// followed by each body and delimiter line, so the shell reads the
// here-documents itself (`RUN python3 <<PY`, `RUN <<EOF bash`).
// `network` is the --network flag's value: "" (absent: the build's
// network), "default" or "none".
struct RunInstruction {
  CommandLine command;
  std::vector<Heredoc> heredocs;
  bool script = false;
  std::string network;
  bool operator==(const RunInstruction&) const = default;
};

struct CmdInstruction {
  CommandLine command;
  bool operator==(const CmdInstruction&) const = default;
};

struct EntrypointInstruction {
  CommandLine command;
  bool operator==(const EntrypointInstruction&) const = default;
};

// SHELL ["exe", "arg", ...] (JSON form only, at least one element).
struct ShellInstruction {
  std::vector<std::string> shell;
  bool operator==(const ShellInstruction&) const = default;
};

struct StopSignalInstruction {
  std::string signal;
  bool operator==(const StopSignalInstruction&) const = default;
};

// HEALTHCHECK NONE | HEALTHCHECK [--interval --timeout --start-period
// --start-interval --retries] CMD command. The builder writes it to the image
// config's Healthcheck (Test ["NONE"], ["CMD", argv...] or ["CMD-SHELL",
// cmd]); zero durations/retries mean "inherit the default".
struct HealthcheckInstruction {
  bool none = false;
  CommandLine test;
  std::chrono::nanoseconds interval{0};
  std::chrono::nanoseconds timeout{0};
  std::chrono::nanoseconds start_period{0};
  std::chrono::nanoseconds start_interval{0};
  int retries = 0;
  bool operator==(const HealthcheckInstruction&) const = default;
};

// MAINTAINER (deprecated): the builder sets the image config's `author`, as
// Docker does; the parser also returns a deprecation warning.
struct MaintainerInstruction {
  std::string name;
  bool operator==(const MaintainerInstruction&) const = default;
};

// ONBUILD TRIGGER: recorded, never run in this build. The builder appends
// `trigger` (the instruction text as written) to the image config's OnBuild.
// The trigger is validated as an instruction when parsed.
struct OnbuildInstruction {
  std::string trigger;
  bool operator==(const OnbuildInstruction&) const = default;
};

using InstructionBody =
    std::variant<FromInstruction, ArgInstruction, EnvInstruction, LabelInstruction,
                 WorkdirInstruction, CopyInstruction, UserInstruction, ExposeInstruction,
                 VolumeInstruction, RunInstruction, CmdInstruction, EntrypointInstruction,
                 ShellInstruction, StopSignalInstruction, HealthcheckInstruction,
                 MaintainerInstruction, OnbuildInstruction>;

struct Instruction {
  std::string keyword;  // uppercase: "COPY", "ADD", ...
  SourceRange lines;
  InstructionBody body;
  bool operator==(const Instruction&) const = default;
};

}  // namespace trainpkg::packager::dockerfile

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_INSTRUCTION_H_
