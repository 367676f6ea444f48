#pragma once
// Checks a SimGrid XML platform before SimGrid reads it. SimGrid 3.32 aborts the process (or
// crashes) on many inputs instead of returning an error: a directory ("input in flex scanner
// failed"), a link of bandwidth 0, zones nested ~1000 deep, a duplicate link or route, a
// Dijkstra zone whose hosts are not connected, a fat tree whose parameters do not match its
// hosts, ... So flowbench parses the file with libxml2 first and accepts only what SimGrid
// handles; what passes may still be refused by SimGrid with an exception, which the caller
// (Simulation::LoadPlatform) turns into a Status.
//
// What is checked (docs/reliability.md):
//  - the file: a readable regular file of at most kMaxPlatformFileBytes, not empty, no NUL byte;
//  - XML: well-formed, a <!DOCTYPE platform ...>, root <platform version="4.1"> holding exactly
//    one <zone> or <cluster> (SimGrid's root zone; none crashes its seal()); only SimGrid's
//    platform elements; no <config> (flowbench configures SimGrid itself), no <actor>/<process>
//    (flowbench creates the actors), no <trace>, <trace_connect> or *_file attributes
//    (availability profiles are not simulated), no <include>;
//  - limits: zones (<zone>, <cluster>, ...) nested at most kMaxZoneDepth deep, at most
//    kMaxPlatformHosts hosts in all (counting the hosts of clusters), at most
//    kMaxFullZoneMembers / kMaxFloydZoneMembers members in a Full / Floyd zone (SimGrid's
//    route table there grows as the square, Floyd's computation as the cube);
//  - values: speeds (each pstate), bandwidths and latencies parse with SimGrid's units and are
//    finite, speeds and bandwidths > 0, latencies >= 0; core counts and pstates in range;
//  - ids: hosts and routers unique, links unique, zones unique; no link named as SimGrid names
//    the links it creates (link_<host>_UP/_DOWN of a cabinet or peer host, '<cluster id>_...');
//    a route (or its symmetrical reverse) declared once per zone; a symmetrical route from a
//    node to itself only in a Full zone (Floyd aborts, Dijkstra crashes);
//  - routing: one of Full, Floyd, Dijkstra, DijkstraCache, Cluster, Vivaldi, None; a None zone
//    holds at most one host and no route; a Dijkstra zone's routes connect all its members;
//    Vivaldi hosts have 3 coordinates; <peer> only in a Vivaldi zone, <cabinet> only in a
//    Cluster zone (SimGrid aborts or corrupts memory elsewhere); cluster radicals and fat-tree / torus / dragonfly
//    parameters match the cluster's hosts; <host_link> names declared links.
// Whether each pair of hosts that a job uses has a route is checked after loading
// (Simulation::Run).
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/framework/status.h"

namespace fb::sim {

inline constexpr int kMaxZoneDepth = 64;                      // nested zones
inline constexpr int64_t kMaxPlatformHosts = 100000;          // hosts in one platform
inline constexpr int64_t kMaxPlatformFileBytes = 64LL << 20;  // platform file size
inline constexpr size_t kMaxFullZoneMembers = 4096;           // hosts, routers, zones of a
inline constexpr size_t kMaxFloydZoneMembers = 1024;          // Full / Floyd zone

// Validates the platform file at `path`. NotFound for a missing file; InvalidArgument for
// anything else listed above. Every message starts with "platform file '<path>'" and names the
// line and the element (host, link, zone ...) by id where there is one.
Status ValidatePlatformFile(const std::string& path);

// Validates platform XML given as text; `name` stands for the file in messages.
Status ValidatePlatformXml(const std::string& xml, const std::string& name);

}  // namespace fb::sim
