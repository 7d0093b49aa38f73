// Pieces of the three registry grammars under fuzz: references,
// WWW-Authenticate headers and manifest / index JSON.
#include "tests/fuzz/fuzz_dictionary.h"

namespace trainpkg::fuzz {

const FuzzDictionary& Dictionary() {
  static const char* const kTokens[] = {":",
                                        "/",
                                        "@",
                                        "sha256:",
                                        "sha512:",
                                        "localhost",
                                        "docker.io/",
                                        "library/",
                                        ".",
                                        "-",
                                        "__",
                                        "[::1]",
                                        ":5000",
                                        "\"",
                                        "\\",
                                        ",",
                                        "=",
                                        " ",
                                        "Bearer ",
                                        "Basic ",
                                        "realm=",
                                        "scope=\"repository:a:pull,push\"",
                                        "{",
                                        "}",
                                        "[",
                                        "]",
                                        "null",
                                        "true",
                                        "1e999",
                                        "-0",
                                        "\"schemaVersion\":2",
                                        "\"mediaType\":",
                                        "\"digest\":",
                                        "\"size\":",
                                        "\"manifests\":[",
                                        "\"layers\":[",
                                        "\"platform\":{",
                                        "\"annotations\":{",
                                        "\\u0000"};
  static const FuzzDictionary kDictionary{kTokens, 8192};
  return kDictionary;
}

}  // namespace trainpkg::fuzz
