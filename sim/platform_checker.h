#pragma once
// The element-by-element checks of sim/platform_validation.h over a libxml2 tree (internal to
// sim/: platform_validation.cc parses, PlatformChecker walks).
#include <libxml/tree.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/framework/status.h"
#include "sim/platform_units.h"

namespace fb::sim {

class PlatformChecker {
 public:
  explicit PlatformChecker(std::string file) : file_(std::move(file)) {}

  // Checks the children of <platform> and everything below. InvalidArgument naming the file,
  // the line and the element.
  Status CheckPlatform(const xmlNode* platform);

 private:
  // One zone (<zone>, <cluster> ...) being checked: its members (hosts, routers, child zones)
  // and routes, for the routing checks done when it closes.
  struct Zone {
    const xmlNode* node = nullptr;
    std::string id, routing;
    std::vector<std::string> members;
    std::set<std::pair<std::string, std::string>> routes;  // directed, reverses included
  };

  template <typename... Args>
  Status Error(const xmlNode* n, Args&&... args) const {
    return InvalidArgument("platform file '", file_, "': line ", xmlGetLineNo(n), ": ", Describe(n),
                           ": ", std::forward<Args>(args)...);
  }
  static std::string Describe(const xmlNode* n);
  static std::optional<std::string> Attr(const xmlNode* n, const char* name);

  Status CheckChildren(const xmlNode* n, Zone* zone, int depth);
  Status CheckElement(const xmlNode* n, Zone* zone, int depth);
  Status CheckZone(const xmlNode* n, Zone* parent, int depth);
  Status CloseZone(const Zone& z);
  Status CheckHost(const xmlNode* n, Zone* zone);
  Status CheckLink(const xmlNode* n);
  Status CheckCluster(const xmlNode* n, Zone* parent, int depth);
  Status CheckTopology(const xmlNode* n, int64_t hosts);
  Status CheckPeerOrCabinet(const xmlNode* n, Zone* zone);
  Status CheckRoute(const xmlNode* n, Zone* zone);
  Status CheckHostLink(const xmlNode* n);
  Status CheckDisk(const xmlNode* n);
  Status CheckLinkNamesFree() const;  // declared links against the names SimGrid generates

  // Attribute checks: `required` attributes must be present.
  StatusOr<std::string> Required(const xmlNode* n, const char* attr) const;
  Status CheckId(const xmlNode* n, std::set<std::string>* ids, const char* what);
  // A quantity (a comma-separated list when `list`): every value > 0, or >= 0 when
  // `zero_ok`. Returns the number of values (0 when absent and not required).
  StatusOr<int> CheckQuantity(const xmlNode* n, const char* attr, Quantity kind, bool required,
                              bool zero_ok, bool list = false) const;
  Status CheckCount(const xmlNode* n, const char* attr, int64_t min, int64_t max) const;
  Status CheckEnum(const xmlNode* n, const char* attr, const std::set<std::string>& allowed) const;
  Status CheckNoProfiles(const xmlNode* n) const;
  Status CheckCoordinates(const xmlNode* n, const Zone* zone) const;
  StatusOr<int64_t> AddRadicalHosts(const xmlNode* n, Zone* zone);
  Status AddHost(const xmlNode* n, const std::string& id, Zone* zone);

  std::string file_;
  std::set<std::string> netpoints_, links_, zones_;
  std::vector<std::pair<const xmlNode*, std::pair<std::string, std::string>>> host_links_;
  std::vector<std::pair<std::string, const xmlNode*>> declared_links_;  // <link>, <backbone>
  std::set<std::string> clusters_;           // <cluster> ids
  std::set<std::string> hosts_with_links_;   // hosts of <cabinet>s and <peer>s
  int64_t hosts_ = 0;
};

}  // namespace fb::sim
