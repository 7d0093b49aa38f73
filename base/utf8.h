// UTF-8 as RFC 3629 defines it (no overlong forms, no surrogates, nothing
// beyond U+10FFFF): what every reader of outside text checks before the text
// reaches a JSON value (nlohmann's dump() throws on invalid UTF-8) or a
// terminal.
#ifndef TRAINPKG_BASE_UTF8_H_
#define TRAINPKG_BASE_UTF8_H_

#include <cstddef>
#include <optional>
#include <string_view>

namespace trainpkg::base {

// The length (1-4) of the valid UTF-8 sequence at the start of `text`, or 0
// when `text` is empty or its first bytes do not form one.
size_t Utf8SequenceLength(std::string_view text);

// The byte offset of the first byte of `text` that is not part of a valid
// UTF-8 sequence; nullopt when all of `text` is valid UTF-8.
std::optional<size_t> FirstInvalidUtf8(std::string_view text);

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_UTF8_H_
