#include "registry/progress.h"

namespace trainpkg::registry {

std::string_view BlobActionName(BlobAction action) {
  switch (action) {
    case BlobAction::kExists:
      return "exists";
    case BlobAction::kMounted:
      return "mounted";
    case BlobAction::kPushed:
      return "pushed";
    case BlobAction::kPulled:
      return "pulled";
    case BlobAction::kSkipped:
      return "skipped";
  }
  return "unknown";
}

}  // namespace trainpkg::registry
