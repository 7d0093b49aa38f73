#include "trainer_runtime/data/csv_reader.h"

#include <charconv>
#include <cstdint>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "trainer_runtime/data/internal/read_maybe_gzipped.h"

namespace trainpkg::data {
namespace {

struct Field {
  std::string_view text;  // unquoted contents (points into `line` or `scratch`)
  int64_t column = 1;     // 1-based column of the field's first character
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

class CsvParser {
 public:
  CsvParser(std::string_view name, const CsvOptions& options) : name_(name), options_(options) {}

  absl::StatusOr<Dataset> Parse(std::string_view text) {
    int64_t line_no = 0;
    size_t pos = 0;
    bool header_pending = options_.has_header;
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(pos, end - pos);
      pos = end + 1;
      ++line_no;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (Trim(line).empty()) continue;
      if (absl::Status s = SplitLine(line, line_no); !s.ok()) return s;
      if (header_pending) {
        header_pending = false;
        if (absl::Status s = TakeHeader(line_no); !s.ok()) return s;
        continue;
      }
      if (absl::Status s = TakeRow(line_no); !s.ok()) return s;
    }
    const int64_t width = num_columns_ > 0 ? num_columns_ - 1 : 0;
    return Dataset::Create({width}, std::move(features_), std::move(labels_));
  }

 private:
  absl::Status Error(int64_t line, int64_t column, std::string_view what) const {
    return absl::InvalidArgumentError(fmt::format("{}:{}:{}: {}", name_, line, column, what));
  }

  // Splits `line` into fields_ (quotes removed; "" unescaped into scratch_).
  absl::Status SplitLine(std::string_view line, int64_t line_no) {
    fields_.clear();
    scratch_.clear();
    scratch_.reserve(line.size());  // field views into scratch_ stay valid
    size_t i = 0;
    while (true) {
      size_t start = i;
      while (start < line.size() && line[start] == ' ') ++start;
      Field field;
      field.column = static_cast<int64_t>(start) + 1;
      if (start < line.size() && line[start] == '"') {
        const size_t begin = scratch_.size();
        size_t j = start + 1;
        while (true) {
          if (j >= line.size()) return Error(line_no, field.column, "unterminated quoted field");
          if (line[j] == '"') {
            if (j + 1 < line.size() && line[j + 1] == '"') {
              scratch_.push_back('"');
              j += 2;
              continue;
            }
            break;
          }
          scratch_.push_back(line[j++]);
        }
        field.text = std::string_view(scratch_).substr(begin);
        i = j + 1;
        while (i < line.size() && line[i] == ' ') ++i;
        if (i < line.size() && line[i] != options_.delimiter) {
          return Error(line_no, static_cast<int64_t>(i) + 1,
                       fmt::format("expected '{}' after a quoted field", options_.delimiter));
        }
      } else {
        size_t j = line.find(options_.delimiter, start);
        if (j == std::string_view::npos) j = line.size();
        field.text = Trim(line.substr(start, j - start));
        i = j;
      }
      fields_.push_back(field);
      if (i >= line.size()) break;
      ++i;  // the delimiter
    }
    return absl::OkStatus();
  }

  absl::Status ResolveLabel(int64_t line_no) {
    num_columns_ = static_cast<int64_t>(fields_.size());
    if (num_columns_ < 1) return Error(line_no, 1, "no columns");
    int64_t col =
        options_.label_column < 0 ? num_columns_ + options_.label_column : options_.label_column;
    if (col < 0 || col >= num_columns_) {
      return Error(
          line_no, 1,
          fmt::format("label column {} is out of range for {} columns (valid: {}..{})",
                      options_.label_column, num_columns_, -num_columns_, num_columns_ - 1));
    }
    label_index_ = col;
    return absl::OkStatus();
  }

  absl::Status TakeHeader(int64_t line_no) {
    if (absl::Status s = ResolveLabel(line_no); !s.ok()) return s;
    if (options_.label_name.empty()) return absl::OkStatus();
    for (size_t k = 0; k < fields_.size(); ++k) {
      if (fields_[k].text == options_.label_name) {
        label_index_ = static_cast<int64_t>(k);
        return absl::OkStatus();
      }
    }
    return Error(line_no, 1,
                 fmt::format("no column named '{}' in the header", options_.label_name));
  }

  absl::Status TakeRow(int64_t line_no) {
    if (num_columns_ == 0) {
      if (!options_.label_name.empty()) {
        return Error(line_no, 1, "label_name needs a header line (has_header)");
      }
      if (absl::Status s = ResolveLabel(line_no); !s.ok()) return s;
    }
    if (static_cast<int64_t>(fields_.size()) != num_columns_) {
      return Error(
          line_no, 1,
          fmt::format("{} fields, expected {} like the first row", fields_.size(), num_columns_));
    }
    for (int64_t k = 0; k < num_columns_; ++k) {
      const Field& f = fields_[k];
      if (f.text.empty()) return Error(line_no, f.column, fmt::format("empty field {}", k + 1));
      const char* first = f.text.data();
      const char* last = first + f.text.size();
      if (k == label_index_) {
        int32_t label = 0;
        auto [ptr, ec] = std::from_chars(first, last, label);
        if (ec != std::errc() || ptr != last || label < 0) {
          return Error(line_no, f.column,
                       fmt::format("label '{}' is not a non-negative integer", f.text));
        }
        labels_.push_back(label);
        continue;
      }
      float value = 0.0f;
      auto [ptr, ec] = std::from_chars(first, last, value);
      if (ec != std::errc() || ptr != last) {
        return Error(line_no, f.column, fmt::format("'{}' is not a number", f.text));
      }
      features_.push_back(value);
    }
    return absl::OkStatus();
  }

  std::string_view name_;
  const CsvOptions& options_;
  std::vector<Field> fields_;
  std::string scratch_;
  int64_t num_columns_ = 0;
  int64_t label_index_ = 0;
  std::vector<float> features_;
  std::vector<int32_t> labels_;
};

}  // namespace

absl::StatusOr<Dataset> ParseCsv(std::string_view text, std::string_view name,
                                 const CsvOptions& options) {
  return CsvParser(name, options).Parse(text);
}

absl::StatusOr<Dataset> ReadCsv(const std::filesystem::path& path, const CsvOptions& options) {
  absl::StatusOr<std::string> text = internal::ReadMaybeGzipped(path, options.max_bytes);
  if (!text.ok()) return text.status();
  if (text->size() > options.max_bytes) {
    return absl::ResourceExhaustedError(
        fmt::format("{}: more than {} bytes of CSV text (after gunzip); CsvOptions::max_bytes "
                    "sets the cap",
                    path.string(), options.max_bytes));
  }
  return ParseCsv(*text, path.string(), options);
}

}  // namespace trainpkg::data
