#include "packager/dockerfile/expand.h"

#include <string>
#include <vector>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/dockerfile/internal/parse_error.h"
#include "packager/dockerfile/port_spec.h"
#include "packager/dockerfile/shell_word.h"

namespace trainpkg::packager::dockerfile {
namespace {

class Expander {
 public:
  Expander(const VarScope& scope, char escape)
      : lookup_([&scope](std::string_view n) { return scope.Lookup(n); }), escape_(escape) {}

  absl::Status Word(std::string& word) const {
    absl::StatusOr<std::string> out = ExpandWord(word, lookup_, escape_);
    if (!out.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("{} in '{}'", std::string(out.status().message()), word));
    }
    word = std::move(*out);
    return absl::OkStatus();
  }

  absl::Status Words(std::vector<std::string>& words) const {
    for (std::string& w : words) TP_RETURN_IF_ERROR(Word(w));
    return absl::OkStatus();
  }

  absl::Status Pairs(std::vector<KeyValue>& kvs) const {
    for (KeyValue& kv : kvs) {
      TP_RETURN_IF_ERROR(Word(kv.key));
      TP_RETURN_IF_ERROR(Word(kv.value));
    }
    return absl::OkStatus();
  }

  absl::Status NonEmpty(std::string& word, std::string_view what) const {
    std::string written = word;
    TP_RETURN_IF_ERROR(Word(word));
    if (word.empty()) {
      return absl::InvalidArgumentError(
          fmt::format("'{}' expanded to an empty {}; set the variable or write a literal {}",
                      written, what, what));
    }
    return absl::OkStatus();
  }

  absl::Status Body(InstructionBody& body) const {
    return std::visit([this](auto& b) { return Expand(b); }, body);
  }

 private:
  absl::Status Expand(FromInstruction& b) const {
    TP_RETURN_IF_ERROR(NonEmpty(b.image, "image"));
    return Word(b.platform);
  }
  absl::Status Expand(ArgInstruction& b) const {
    for (ArgInstruction::Arg& a : b.args) {
      if (a.default_value) TP_RETURN_IF_ERROR(Word(*a.default_value));
    }
    return absl::OkStatus();
  }
  absl::Status Expand(EnvInstruction& b) const {
    TP_RETURN_IF_ERROR(Pairs(b.vars));
    for (const KeyValue& kv : b.vars) {
      if (kv.key.empty()) return absl::InvalidArgumentError("ENV names can not be blank");
    }
    return absl::OkStatus();
  }
  absl::Status Expand(LabelInstruction& b) const { return Pairs(b.labels); }
  absl::Status Expand(WorkdirInstruction& b) const { return NonEmpty(b.path, "path"); }
  absl::Status Expand(UserInstruction& b) const { return NonEmpty(b.user, "user"); }
  absl::Status Expand(StopSignalInstruction& b) const { return NonEmpty(b.signal, "signal"); }
  absl::Status Expand(ExposeInstruction& b) const {
    TP_RETURN_IF_ERROR(Words(b.ports));
    for (const std::string& p : b.ports) TP_RETURN_IF_ERROR(ParsePortSpec(p).status());
    return absl::OkStatus();
  }
  absl::Status Expand(VolumeInstruction& b) const {
    for (std::string& p : b.paths) TP_RETURN_IF_ERROR(NonEmpty(p, "path"));
    return absl::OkStatus();
  }
  absl::Status Expand(CopyInstruction& b) const {
    TP_RETURN_IF_ERROR(Words(b.sources));
    TP_RETURN_IF_ERROR(NonEmpty(b.dest, "destination"));
    TP_RETURN_IF_ERROR(Word(b.from));
    TP_RETURN_IF_ERROR(Word(b.chown));
    TP_RETURN_IF_ERROR(Word(b.chmod));
    for (Heredoc& h : b.heredocs) {
      if (!h.expand) continue;
      absl::StatusOr<std::string> body = ExpandHeredocBody(h.body, lookup_, escape_);
      if (!body.ok()) {
        return absl::InvalidArgumentError(
            fmt::format("heredoc <<{}: {}", h.delimiter, std::string(body.status().message())));
      }
      h.body = *std::move(body);
    }
    for (const std::string& s : b.sources) {
      if (b.is_add && (s.find("://") != std::string::npos || s.rfind("git@", 0) == 0)) {
        return absl::InvalidArgumentError(fmt::format(
            "remote source '{}' is not supported (trainpkg builds offline); download it in a "
            "RUN step or into the build context and COPY it",
            s));
      }
    }
    return absl::OkStatus();
  }
  template <typename T>
  absl::Status Expand(T&) const {
    return absl::OkStatus();  // Docker does not substitute in this instruction
  }

  VarLookup lookup_;
  char escape_;
};

}  // namespace

absl::StatusOr<Instruction> ExpandInstruction(const Instruction& instr, const VarScope& scope,
                                              char escape, std::string_view path) {
  Instruction out = instr;
  absl::Status s = Expander(scope, escape).Body(out.body);
  if (!s.ok())
    return internal::LineError(path, instr.lines, instr.keyword, std::string(s.message()));
  return out;
}

}  // namespace trainpkg::packager::dockerfile
