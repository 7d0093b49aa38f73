// Reads a CSV file (or a gzip-compressed one, e.g. digits.csv.gz) of numbers
// into a Dataset: one element per row, every column but the label column a
// float32 feature, the label column an int32 class label.
//
// Syntax (RFC 4180 on one line per record): fields separated by `delimiter`;
// a field may be quoted with "…", "" inside quotes is a quote; spaces around
// a number are ignored; "\r\n" line ends are accepted; empty lines are
// skipped. Quoted fields cannot span lines.
#ifndef TRAINPKG_TRAINER_RUNTIME_DATA_CSV_READER_H_
#define TRAINPKG_TRAINER_RUNTIME_DATA_CSV_READER_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "trainer_runtime/data/dataset.h"

namespace trainpkg::data {

inline constexpr uint64_t kDefaultMaxCsvBytes = uint64_t{1} << 30;

struct CsvOptions {
  bool has_header = false;  // the first line names the columns (and is not data)
  // The label column: by name (needs has_header) when label_name is set,
  // else by 0-based index, negative counting from the end (-1: the last).
  std::string label_name;
  int label_column = -1;
  char delimiter = ',';
  // The most CSV text read (after gunzip), so that a small gzip file
  // inflating to gigabytes is refused instead of held in memory. The parsed
  // floats take about as much again.
  uint64_t max_bytes = kDefaultMaxCsvBytes;
};

// Errors (InvalidArgument unless said), all starting with "<file>:<line>:<column>:"
// (1-based; column of the field's first character) where a place exists:
// - a field that is not a number ("'abc' is not a number"), an empty field,
//   a label that is not a non-negative integer;
// - a row with a different number of fields than the first row;
// - an unterminated quote; label_name not in the header; label_column out of range;
// - NotFound / DataLoss from reading or gunzipping the file; ResourceExhausted
//   when the text is longer than options.max_bytes.
absl::StatusOr<Dataset> ReadCsv(const std::filesystem::path& path, const CsvOptions& options);

// The same on text already in memory; `name` stands for the file in messages.
absl::StatusOr<Dataset> ParseCsv(std::string_view text, std::string_view name,
                                 const CsvOptions& options);

}  // namespace trainpkg::data

#endif  // TRAINPKG_TRAINER_RUNTIME_DATA_CSV_READER_H_
