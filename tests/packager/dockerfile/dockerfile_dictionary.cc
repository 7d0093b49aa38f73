// Pieces of the Dockerfile grammar under fuzz: variable substitution,
// quoting, continuations, directives, instructions and flags.
#include "tests/fuzz/fuzz_dictionary.h"

namespace trainpkg::fuzz {

const FuzzDictionary& Dictionary() {
  static const char* const kTokens[] = {"$",
                                        "${",
                                        "}",
                                        ":-",
                                        ":+",
                                        "?",
                                        "\"",
                                        "'",
                                        "\\",
                                        "`",
                                        "\n",
                                        "\r\n",
                                        " ",
                                        "\t",
                                        "[",
                                        "]",
                                        "\",\"",
                                        "--",
                                        "<<EOF",
                                        "<<-EOT",
                                        "<<'EOF'",
                                        "<<\"EOF\"",
                                        "\nEOF\n",
                                        "\n\tEOT\n",
                                        "<<<",
                                        "#",
                                        "=",
                                        "FROM ",
                                        " AS ",
                                        "COPY ",
                                        "--from=",
                                        "ARG ",
                                        "ENV ",
                                        "**",
                                        "!",
                                        "/..",
                                        "# escape=`\n",
                                        "RUN ",
                                        "ONBUILD ",
                                        "\\\n"};
  static const FuzzDictionary kDictionary{kTokens, 4096};
  return kDictionary;
}

}  // namespace trainpkg::fuzz
