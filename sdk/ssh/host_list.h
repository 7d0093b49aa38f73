// The SSH backend's host lists and where each replica runs.
//
//   ParseHostList("node1:4,node2:4")      // horovodrun -H syntax
//   ParseHostfile(text, "hosts.txt")      // Open MPI hostfile: "node1 slots=4"
//   PlaceReplicas(hosts, 3)               // {0, 0, 0}: three slots of node1
#ifndef TRAINPKG_SDK_SSH_HOST_LIST_H_
#define TRAINPKG_SDK_SSH_HOST_LIST_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sdk/ssh/ssh_backend_options.h"

namespace trainpkg::sdk::ssh {

// "host[:slots],host[:slots],..." (slots default 1). InvalidArgument naming
// the entry: an empty entry, slots not a number from 1 to 1024, a host name
// ssh would not take (CheckHostName), or a host listed twice.
absl::StatusOr<std::vector<SshHost>> ParseHostList(absl::string_view list);

// An Open MPI hostfile: one host per line, "host [slots=N] [max_slots=M]"
// (max_slots is accepted and ignored; slots default 1), '#' comments and
// blank lines skipped. InvalidArgument naming `file` and the line, as
// ParseHostList; also for a file without hosts.
absl::StatusOr<std::vector<SshHost>> ParseHostfile(absl::string_view text, absl::string_view file);

// OK for a host name ssh is given as its destination: not empty, no
// whitespace or shell metacharacters, not starting with '-' (an ssh option).
absl::Status CheckHostName(absl::string_view name);

// The host (an index into `hosts`) of each of `replicas` replicas in plan
// order: the first host's slots first. InvalidArgument saying how many
// slots the job needs and how many the hosts give, when too few; also with
// no hosts at all.
absl::StatusOr<std::vector<size_t>> PlaceReplicas(const std::vector<SshHost>& hosts,
                                                  size_t replicas);

}  // namespace trainpkg::sdk::ssh

#endif  // TRAINPKG_SDK_SSH_HOST_LIST_H_
