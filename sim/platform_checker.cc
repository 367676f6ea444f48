#include "sim/platform_checker.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "sim/platform_validation.h"

namespace fb::sim {
namespace {

bool Is(const xmlNode* n, const char* name) {
  return std::strcmp(reinterpret_cast<const char*>(n->name), name) == 0;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);) out.push_back(item);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

// A decimal integer, the whole text. nullopt otherwise (also on overflow).
std::optional<int64_t> ParseInt(const std::string& s) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE) return std::nullopt;
  return v;
}

// Elements flowbench refuses, with the reason.
const std::map<std::string, std::string>& Refused() {
  static const std::map<std::string, std::string> refused{
      {"config", "flowbench configures SimGrid itself (network model CM02, docs/simulator.md)"},
      {"actor", "flowbench creates the actors itself; give no deployment in a platform"},
      {"process", "flowbench creates the actors itself; give no deployment in a platform"},
      {"trace", "availability and speed profiles are not simulated"},
      {"trace_connect", "availability and speed profiles are not simulated"},
      {"include", "<include> is not supported; put everything in one file"},
      {"random", "<random> is not supported by SimGrid 3.32"},
  };
  return refused;
}

const std::set<std::string> kZoneChildren{
    "prop",         "host",      "router",      "link",
    "backbone",     "host_link", "zone",        "AS",
    "cluster",      "cabinet",   "peer",        "route",
    "zoneRoute",    "ASroute",   "bypassRoute", "bypassZoneRoute",
    "bypassASroute"};

}  // namespace

std::string PlatformChecker::Describe(const xmlNode* n) {
  const std::string name = reinterpret_cast<const char*>(n->name);
  if (auto id = Attr(n, "id")) return name + " '" + *id + "'";
  auto src = Attr(n, "src"), dst = Attr(n, "dst");
  if (src && dst) return name + " from '" + *src + "' to '" + *dst + "'";
  return "<" + name + ">";
}

std::optional<std::string> PlatformChecker::Attr(const xmlNode* n, const char* name) {
  xmlChar* v = xmlGetProp(n, reinterpret_cast<const xmlChar*>(name));
  if (v == nullptr) return std::nullopt;
  std::string s(reinterpret_cast<const char*>(v));
  xmlFree(v);
  return s;
}

StatusOr<std::string> PlatformChecker::Required(const xmlNode* n, const char* attr) const {
  auto v = Attr(n, attr);
  if (!v || v->empty()) return Error(n, "attribute '", attr, "' is required");
  return *v;
}

Status PlatformChecker::CheckId(const xmlNode* n, std::set<std::string>* ids, const char* what) {
  ASSIGN_OR_RETURN(std::string id, Required(n, "id"));
  if (!ids->insert(id).second) return Error(n, "a second ", what, " with id '", id, "'");
  return Status::OK();
}

StatusOr<int> PlatformChecker::CheckQuantity(const xmlNode* n, const char* attr, Quantity kind,
                                             bool required, bool zero_ok, bool list) const {
  auto text = Attr(n, attr);
  if (!text) {
    if (required) return Error(n, "attribute '", attr, "' is required");
    return 0;
  }
  const std::vector<std::string> values = list ? Split(*text, ',') : std::vector{*text};
  for (const std::string& v : values) {
    StatusOr<double> x = ParseQuantity(v, kind);
    if (!x.ok()) return Error(n, attr, ": ", x.status().message());
    if (!(*x > 0) && !(zero_ok && *x == 0))
      return Error(n, attr, " must be ", zero_ok ? ">= 0" : "> 0", ", got '", v, "'");
  }
  return static_cast<int>(values.size());
}

Status PlatformChecker::CheckCount(const xmlNode* n, const char* attr, int64_t min,
                                   int64_t max) const {
  auto text = Attr(n, attr);
  if (!text) return Status::OK();
  std::optional<int64_t> v = ParseInt(*text);
  if (!v || *v < min || *v > max)
    return Error(n, attr, " must be an integer in [", min, ", ", max, "], got '", *text, "'");
  return Status::OK();
}

Status PlatformChecker::CheckEnum(const xmlNode* n, const char* attr,
                                  const std::set<std::string>& allowed) const {
  auto text = Attr(n, attr);
  if (!text || allowed.count(*text)) return Status::OK();
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
  return Error(n, attr, " must be one of ", list, ", got '", *text, "'");
}

Status PlatformChecker::CheckNoProfiles(const xmlNode* n) const {
  for (const xmlAttr* a = n->properties; a != nullptr; a = a->next) {
    const std::string name = reinterpret_cast<const char*>(a->name);
    if (name.size() > 5 && name.compare(name.size() - 5, 5, "_file") == 0)
      return Error(n, "attribute '", name,
                   "' is not supported: availability and speed "
                   "profiles are not simulated");
  }
  return Status::OK();
}

Status PlatformChecker::AddHost(const xmlNode* n, const std::string& id, Zone* zone) {
  if (++hosts_ > kMaxPlatformHosts)
    return Error(n, "more than ", kMaxPlatformHosts, " hosts in the platform (the limit)");
  if (!netpoints_.insert(id).second) return Error(n, "a second host or router named '", id, "'");
  if (zone != nullptr) zone->members.push_back(id);
  if (Is(n, "cabinet") || Is(n, "peer")) hosts_with_links_.insert(id);
  return Status::OK();
}

Status PlatformChecker::CheckPlatform(const xmlNode* platform) {
  // SimGrid's platform is one root zone: without one its seal() dereferences a null zone, and a
  // second root has no parent (SimGrid refuses it).
  const xmlNode* root = nullptr;
  for (const xmlNode* c = platform->children; c != nullptr; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || !(Is(c, "zone") || Is(c, "AS") || Is(c, "cluster")))
      continue;
    if (root != nullptr)
      return Error(c, "a second root zone: <platform> holds one <zone> or <cluster> (the root "
                      "zone, which may hold others), the first is at line ",
                   xmlGetLineNo(root));
    root = c;
  }
  RETURN_IF_ERROR(CheckChildren(platform, nullptr, 0));
  RETURN_IF_ERROR(CheckLinkNamesFree());
  if (root == nullptr)
    return Error(platform, "declares no zone: <platform> holds one <zone> or <cluster> with the "
                           "hosts");
  for (const auto& [n, up_down] : host_links_)
    for (const std::string& l : {up_down.first, up_down.second})
      if (!links_.count(l)) return Error(n, "link '", l, "' is not declared");
  return Status::OK();
}

Status PlatformChecker::CheckChildren(const xmlNode* n, Zone* zone, int depth) {
  for (const xmlNode* c = n->children; c != nullptr; c = c->next)
    if (c->type == XML_ELEMENT_NODE) RETURN_IF_ERROR(CheckElement(c, zone, depth));
  return Status::OK();
}

Status PlatformChecker::CheckElement(const xmlNode* n, Zone* zone, int depth) {
  const std::string name = reinterpret_cast<const char*>(n->name);
  if (auto it = Refused().find(name); it != Refused().end())
    return Error(n, "not supported: ", it->second);
  if (zone == nullptr && name != "zone" && name != "AS" && name != "cluster")
    return Error(n, "unexpected here: <platform> holds one <zone> or <cluster>");
  if (zone != nullptr && !kZoneChildren.count(name))
    return Error(n, "unknown element in zone '", zone->id, "'");
  if (name == "zone" || name == "AS") return CheckZone(n, zone, depth + 1);
  if (name == "cluster") return CheckCluster(n, zone, depth + 1);
  if (name == "cabinet" || name == "peer") return CheckPeerOrCabinet(n, zone);
  if (name == "host") return CheckHost(n, zone);
  if (name == "link") return CheckLink(n);
  if (name == "host_link") return CheckHostLink(n);
  if (name == "prop") return Required(n, "id").status();
  if (name == "router") {
    RETURN_IF_ERROR(CheckId(n, &netpoints_, "host or router"));
    zone->members.push_back(*Attr(n, "id"));
    return CheckCoordinates(n, zone);
  }
  if (name == "backbone") {
    RETURN_IF_ERROR(CheckId(n, &links_, "link"));
    declared_links_.emplace_back(*Attr(n, "id"), n);
    RETURN_IF_ERROR(CheckQuantity(n, "bandwidth", Quantity::kBandwidth, true, false).status());
    return CheckQuantity(n, "latency", Quantity::kTime, true, true).status();
  }
  return CheckRoute(n, zone);  // route, zoneRoute, bypass*Route
}

Status PlatformChecker::CheckZone(const xmlNode* n, Zone* parent, int depth) {
  if (depth > kMaxZoneDepth)
    return Error(n, "zones nested deeper than ", kMaxZoneDepth, " (the limit)");
  RETURN_IF_ERROR(CheckId(n, &zones_, "zone"));
  Zone z;
  z.node = n;
  z.id = *Attr(n, "id");
  ASSIGN_OR_RETURN(z.routing, Required(n, "routing"));
  RETURN_IF_ERROR(CheckEnum(
      n, "routing", {"Full", "Floyd", "Dijkstra", "DijkstraCache", "Cluster", "Vivaldi", "None"}));
  if (parent != nullptr) parent->members.push_back(z.id);
  RETURN_IF_ERROR(CheckChildren(n, &z, depth));
  return CloseZone(z);
}

// Routing checks once a zone's members and routes are known: SimGrid aborts on routes in a None
// zone and crashes looking up a route between members that a Dijkstra zone does not connect.
Status PlatformChecker::CloseZone(const Zone& z) {
  if (z.routing == "None" && (z.members.size() > 1 || !z.routes.empty()))
    return Error(z.node, "routing None allows one host and no route, got ", z.members.size(),
                 " members and ", z.routes.size(), " routes (use routing=\"Full\")");
  // Full keeps a members x members table of routes, Floyd computes it in members^3 steps.
  const size_t limit = z.routing == "Full" ? kMaxFullZoneMembers
                       : z.routing == "Floyd" ? kMaxFloydZoneMembers
                                              : SIZE_MAX;
  if (z.members.size() > limit)
    return Error(z.node, "routing ", z.routing, " allows at most ", limit, " members (hosts, "
                 "routers, zones), got ", z.members.size(), " (use a <cluster> or Dijkstra)");
  if ((z.routing != "Dijkstra" && z.routing != "DijkstraCache") || z.members.empty())
    return Status::OK();
  // Strongly connected: every member reachable from the first and the first from every member.
  std::map<std::string, std::vector<std::string>> out, in;
  for (const auto& [src, dst] : z.routes) {
    out[src].push_back(dst);
    in[dst].push_back(src);
  }
  auto reach = [](const std::string& from, std::map<std::string, std::vector<std::string>>& g) {
    std::set<std::string> seen{from};
    std::vector<std::string> frontier{from};
    while (!frontier.empty()) {
      const std::string at = frontier.back();
      frontier.pop_back();
      for (const std::string& next : g[at])
        if (seen.insert(next).second) frontier.push_back(next);
    }
    return seen;
  };
  const std::string& first = z.members.front();
  const std::set<std::string> from_first = reach(first, out), to_first = reach(first, in);
  for (const std::string& m : z.members) {
    const bool forward = from_first.count(m) > 0;
    if (forward && to_first.count(m)) continue;
    return Error(z.node, "routing ", z.routing, ": no path of routes from '", forward ? m : first,
                 "' to '", forward ? first : m, "'");
  }
  return Status::OK();
}

Status PlatformChecker::CheckHost(const xmlNode* n, Zone* zone) {
  ASSIGN_OR_RETURN(std::string id, Required(n, "id"));
  RETURN_IF_ERROR(AddHost(n, id, zone));
  ASSIGN_OR_RETURN(int pstates, CheckQuantity(n, "speed", Quantity::kSpeed, true, false, true));
  RETURN_IF_ERROR(CheckCount(n, "core", 1, 1 << 20));
  RETURN_IF_ERROR(CheckCount(n, "pstate", 0, pstates - 1));
  RETURN_IF_ERROR(CheckNoProfiles(n));
  RETURN_IF_ERROR(CheckCoordinates(n, zone));
  for (const xmlNode* c = n->children; c != nullptr; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    if (Is(c, "prop")) {
      RETURN_IF_ERROR(Required(c, "id").status());
    } else if (Is(c, "disk")) {
      RETURN_IF_ERROR(CheckDisk(c));
    } else {
      return Error(c, "unexpected in host '", id, "' (expected <prop> or <disk>)");
    }
  }
  return Status::OK();
}

Status PlatformChecker::CheckDisk(const xmlNode* n) {
  RETURN_IF_ERROR(Required(n, "id").status());
  RETURN_IF_ERROR(CheckQuantity(n, "read_bw", Quantity::kBandwidth, true, false).status());
  return CheckQuantity(n, "write_bw", Quantity::kBandwidth, true, false).status();
}

// SimGrid 3.32 names the links it creates: 'link_<host>_UP' and '_DOWN' for each host of a
// <cabinet> and each <peer>, '<cluster id>_...' for a cluster's (_link_<i>, its _UP/_DOWN,
// _loopback and _limiter, _backbone, and the torus and fat-tree links). A declared link of one of
// those names aborts it ("declared several times"), in whichever order the two appear.
Status PlatformChecker::CheckLinkNamesFree() const {
  for (const auto& [id, n] : declared_links_) {
    for (const char* end : {"_UP", "_DOWN"}) {
      const size_t len = std::strlen(end);
      if (id.size() > 5 + len && id.compare(0, 5, "link_") == 0 &&
          id.compare(id.size() - len, len, end) == 0 &&
          hosts_with_links_.count(id.substr(5, id.size() - 5 - len)))
        return Error(n, "SimGrid names a link of cabinet or peer host '",
                     id.substr(5, id.size() - 5 - len), "' so: choose another id");
    }
    for (size_t p = id.find('_'); p != std::string::npos; p = id.find('_', p + 1))
      if (clusters_.count(id.substr(0, p)))
        return Error(n, "ids starting with '", id.substr(0, p + 1), "' name the links of cluster '",
                     id.substr(0, p), "' in SimGrid: choose another id");
  }
  return Status::OK();
}

Status PlatformChecker::CheckLink(const xmlNode* n) {
  RETURN_IF_ERROR(CheckId(n, &links_, "link"));
  declared_links_.emplace_back(*Attr(n, "id"), n);
  RETURN_IF_ERROR(CheckEnum(n, "sharing_policy", {"SHARED", "SPLITDUPLEX", "FATPIPE"}));
  RETURN_IF_ERROR(CheckQuantity(n, "bandwidth", Quantity::kBandwidth, true, false).status());
  RETURN_IF_ERROR(CheckQuantity(n, "latency", Quantity::kTime, true, true).status());
  return CheckNoProfiles(n);
}

Status PlatformChecker::CheckHostLink(const xmlNode* n) {
  ASSIGN_OR_RETURN(std::string id, Required(n, "id"));
  ASSIGN_OR_RETURN(std::string up, Required(n, "up"));
  ASSIGN_OR_RETURN(std::string down, Required(n, "down"));
  if (!netpoints_.count(id)) return Error(n, "host '", id, "' is not declared");
  host_links_.push_back({n, {up, down}});
  return Status::OK();
}

Status PlatformChecker::CheckRoute(const xmlNode* n, Zone* zone) {
  ASSIGN_OR_RETURN(std::string src, Required(n, "src"));
  ASSIGN_OR_RETURN(std::string dst, Required(n, "dst"));
  RETURN_IF_ERROR(CheckEnum(n, "symmetrical", {"YES", "NO", "yes", "no"}));
  const auto sym = Attr(n, "symmetrical");
  const bool symmetrical = !sym || *sym == "YES" || *sym == "yes";
  if (Is(n, "route") || Is(n, "zoneRoute") || Is(n, "ASroute")) {
    if (!zone->routes.insert({src, dst}).second)
      return Error(n, "a second route from '", src, "' to '", dst, "' in zone '", zone->id,
                   "' (routes are symmetrical unless symmetrical=\"NO\")");
    // Floyd and Dijkstra zones add a symmetrical route's reverse, the same route when src is
    // dst: SimGrid 3.32 aborts (Floyd) or crashes (Dijkstra).
    if (symmetrical && src == dst && zone->routing != "Full")
      return Error(n, "a route from '", src, "' to itself needs symmetrical=\"NO\" in a ",
                   zone->routing, " zone");
    if (symmetrical && src != dst && !zone->routes.insert({dst, src}).second)
      return Error(n, "the reverse route from '", dst, "' to '", src, "' already exists in zone '",
                   zone->id, "' (give symmetrical=\"NO\" to both)");
  }
  for (const xmlNode* c = n->children; c != nullptr; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    if (!Is(c, "link_ctn")) return Error(c, "unexpected in a route (expected <link_ctn>)");
    RETURN_IF_ERROR(Required(c, "id").status());
    RETURN_IF_ERROR(CheckEnum(c, "direction", {"UP", "DOWN", "NONE"}));
  }
  return Status::OK();
}

Status PlatformChecker::CheckCoordinates(const xmlNode* n, const Zone* zone) const {
  if (zone == nullptr || zone->routing != "Vivaldi") return Status::OK();
  auto coords = Attr(n, "coordinates");
  std::vector<std::string> xyz;
  std::stringstream in(coords.value_or(""));
  for (std::string v; in >> v;) xyz.push_back(v);
  bool ok = xyz.size() == 3;
  for (const std::string& v : xyz) ok = ok && ParseQuantity(v, Quantity::kTime).ok();
  if (!ok)
    return Error(n, "a host of Vivaldi zone '", zone->id,
                 "' needs coordinates=\"x y z\" (3 numbers), got '", coords.value_or(""), "'");
  return Status::OK();
}

// The hosts prefix<i>suffix of a cluster's or cabinet's radical ("0-99,120,200-209"). Returns
// their number.
StatusOr<int64_t> PlatformChecker::AddRadicalHosts(const xmlNode* n, Zone* zone) {
  ASSIGN_OR_RETURN(std::string radical, Required(n, "radical"));
  const std::string prefix = Attr(n, "prefix").value_or("");
  const std::string suffix = Attr(n, "suffix").value_or("");
  int64_t count = 0;
  for (const std::string& piece : Split(radical, ',')) {
    const std::vector<std::string> ends = Split(piece, '-');
    std::optional<int64_t> first = ends.empty() ? std::nullopt : ParseInt(ends[0]);
    std::optional<int64_t> last = ends.size() == 2 ? ParseInt(ends[1]) : first;
    if (ends.size() > 2 || !first || !last || *first < 0 || *last < *first)
      return Error(n, "radical must be like '0-99,120' (ranges a-b with 0 <= a <= b), got '",
                   radical, "'");
    if (*last - *first + 1 > kMaxPlatformHosts - hosts_)
      return Error(n, "radical '", radical, "' makes more than ", kMaxPlatformHosts,
                   " hosts in the platform (the limit)");
    for (int64_t i = *first; i <= *last; ++i)
      RETURN_IF_ERROR(AddHost(n, prefix + std::to_string(i) + suffix, zone));
    count += *last - *first + 1;
  }
  return count;
}

Status PlatformChecker::CheckCluster(const xmlNode* n, Zone* parent, int depth) {
  if (depth > kMaxZoneDepth)
    return Error(n, "zones nested deeper than ", kMaxZoneDepth, " (the limit)");
  RETURN_IF_ERROR(CheckId(n, &zones_, "zone"));
  clusters_.insert(*Attr(n, "id"));
  if (parent != nullptr) parent->members.push_back(*Attr(n, "id"));
  RETURN_IF_ERROR(CheckQuantity(n, "speed", Quantity::kSpeed, true, false, true).status());
  RETURN_IF_ERROR(CheckCount(n, "core", 1, 1 << 20));
  RETURN_IF_ERROR(CheckQuantity(n, "bw", Quantity::kBandwidth, true, false).status());
  RETURN_IF_ERROR(CheckQuantity(n, "lat", Quantity::kTime, true, true).status());
  for (const char* bw : {"loopback_bw", "limiter_link", "bb_bw"})
    RETURN_IF_ERROR(CheckQuantity(n, bw, Quantity::kBandwidth, false, false).status());
  for (const char* lat : {"loopback_lat", "bb_lat"})
    RETURN_IF_ERROR(CheckQuantity(n, lat, Quantity::kTime, false, true).status());
  RETURN_IF_ERROR(CheckEnum(n, "sharing_policy", {"SHARED", "SPLITDUPLEX", "FATPIPE"}));
  RETURN_IF_ERROR(CheckEnum(n, "bb_sharing_policy", {"SHARED", "FATPIPE"}));
  RETURN_IF_ERROR(CheckNoProfiles(n));
  for (const xmlNode* c = n->children; c != nullptr; c = c->next)
    if (c->type == XML_ELEMENT_NODE && !Is(c, "prop"))
      return Error(c, "unexpected in cluster '", *Attr(n, "id"), "' (expected <prop>)");
  ASSIGN_OR_RETURN(int64_t hosts, AddRadicalHosts(n, nullptr));
  return CheckTopology(n, hosts);
}

// SimGrid aborts when a torus's or fat tree's size differs from its cluster's host count, and
// crashes on some dragonfly parameters (which flowbench therefore refuses).
Status PlatformChecker::CheckTopology(const xmlNode* n, int64_t hosts) {
  const std::string topology = Attr(n, "topology").value_or("FLAT");
  RETURN_IF_ERROR(CheckEnum(n, "topology", {"FLAT", "TORUS", "FAT_TREE", "DRAGONFLY"}));
  if (topology == "DRAGONFLY")
    return Error(n,
                 "topology DRAGONFLY is not supported (SimGrid 3.32 crashes on some of its "
                 "parameters); use FAT_TREE or TORUS");
  if (topology == "FLAT") return Status::OK();
  ASSIGN_OR_RETURN(std::string params, Required(n, "topo_parameters"));
  // Positive integers separated by commas, their product capped above `hosts`.
  auto product = [hosts](const std::string& list, size_t* size) -> std::optional<int64_t> {
    int64_t p = 1;
    const std::vector<std::string> items = Split(list, ',');
    *size = items.size();
    for (const std::string& item : items) {
      std::optional<int64_t> v = ParseInt(item);
      if (!v || *v < 1) return std::nullopt;
      p = std::min(p * std::min(*v, hosts + 1), hosts + 1);
    }
    return p;
  };
  size_t size = 0;
  if (topology == "TORUS") {
    std::optional<int64_t> p = product(params, &size);
    if (!p || *p != hosts)
      return Error(n,
                   "TORUS topo_parameters must be positive dimensions whose product is the "
                   "cluster's ",
                   hosts, " hosts, got '", params, "'");
    return Status::OK();
  }
  const std::vector<std::string> parts = Split(params, ';');
  std::optional<int64_t> levels = parts.empty() ? std::nullopt : ParseInt(parts[0]);
  bool ok = parts.size() == 4 && levels && *levels >= 1;
  std::optional<int64_t> down = ok ? product(parts[1], &size) : std::nullopt;
  ok = ok && down && *down == hosts && static_cast<int64_t>(size) == *levels;
  for (int i = 2; ok && i < 4; ++i)
    ok = product(parts[i], &size) && static_cast<int64_t>(size) == *levels;
  if (!ok)
    return Error(n,
                 "FAT_TREE topo_parameters must be 'L;d1,..,dL;u1,..,uL;p1,..,pL' (positive "
                 "integers) with d1 x .. x dL = the cluster's ",
                 hosts, " hosts, got '", params, "'");
  return Status::OK();
}

Status PlatformChecker::CheckPeerOrCabinet(const xmlNode* n, Zone* zone) {
  // SimGrid aborts on a peer outside a Vivaldi zone and treats a cabinet's zone as a cluster
  // (a static_cast: memory corruption in any other zone).
  const char* routing = Is(n, "cabinet") ? "Cluster" : "Vivaldi";
  if (zone->routing != routing)
    return Error(n, "allowed only in a zone with routing=\"", routing, "\", not in zone '",
                 zone->id, "' (routing=\"", zone->routing, "\")");
  RETURN_IF_ERROR(CheckQuantity(n, "speed", Quantity::kSpeed, true, false, true).status());
  RETURN_IF_ERROR(CheckNoProfiles(n));
  if (Is(n, "cabinet")) {
    RETURN_IF_ERROR(CheckQuantity(n, "bw", Quantity::kBandwidth, true, false).status());
    RETURN_IF_ERROR(CheckQuantity(n, "lat", Quantity::kTime, true, true).status());
    return AddRadicalHosts(n, zone).status();
  }
  ASSIGN_OR_RETURN(std::string id, Required(n, "id"));
  RETURN_IF_ERROR(AddHost(n, id, zone));
  RETURN_IF_ERROR(CheckQuantity(n, "bw_in", Quantity::kBandwidth, true, false).status());
  RETURN_IF_ERROR(CheckQuantity(n, "bw_out", Quantity::kBandwidth, true, false).status());
  RETURN_IF_ERROR(CheckQuantity(n, "lat", Quantity::kTime, false, true).status());
  return CheckCoordinates(n, zone);
}

}  // namespace fb::sim
