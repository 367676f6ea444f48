#include "sim/emulated_cluster_platform.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "sim/core_sharing_platform.h"

namespace fb::sim {
namespace {

// "<number><unit>" with one of `units` (scale factors); InvalidArgument otherwise.
StatusOr<double> ParseWithUnit(const std::string& text, const char* what, const char* example,
                               const std::vector<std::pair<std::string, double>>& units) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const std::string unit(end);
  for (const auto& [name, scale] : units)
    if (unit == name && end != text.c_str() && std::isfinite(v) && v >= 0 &&
        std::isdigit(static_cast<unsigned char>(text[0])))
      return v * scale;
  return InvalidArgument(what, " must be like ", example, ", got '", text, "'");
}

std::string Num(double x) {
  std::ostringstream s;
  s.precision(12);
  s << x;
  return s.str();
}

std::string CableXml(const std::string& id, double bytes_per_s, double latency_s) {
  return "    <link id=\"" + id + "\" bandwidth=\"" + Num(bytes_per_s) + "Bps\" latency=\"" +
         Num(latency_s) + "s\" sharing_policy=\"SPLITDUPLEX\"/>\n";
}

std::string HostXml(const std::string& id, const DeviceClass& d, const std::string& device,
                    const std::string& extra_props) {
  return "    <host id=\"" + id + "\" speed=\"" + Num(d.flops_per_s) + "f\">\n" +
         "      <prop id=\"device_type\" value=\"" + d.type + "\"/>\n" +
         "      <prop id=\"memory_bandwidth_bytes_per_s\" value=\"" +
         Num(d.memory_bandwidth_bytes_per_s) + "\"/>\n" +
         "      <prop id=\"launch_overhead_ns\" value=\"" + Num(d.launch_overhead_ns) + "\"/>\n" +
         "      <prop id=\"memory_bytes\" value=\"" + Num(d.memory_bytes) + "\"/>\n" +
         "      <prop id=\"device_name\" value=\"" + device + "\"/>\n" + extra_props +
         "    </host>\n";
}

bool IsWord(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// The device names of the ranks, in rank order.
StatusOr<std::vector<std::string>> RankDevices(const EmulatedClusterSpec& spec) {
  auto jobs = spec.jobs;
  if (jobs.empty()) jobs = {{"ps", 1}, {"worker", spec.hosts - 1}};
  std::vector<std::string> devices;
  for (const auto& [job, tasks] : jobs) {
    if (!IsWord(job))
      return InvalidArgument("job name must be a word ([A-Za-z0-9_]+), got '", job, "'");
    if (tasks < 1 || tasks > spec.hosts)
      return InvalidArgument("job '", job, "' needs 1 to ", spec.hosts, " tasks, got ", tasks);
    for (int t = 0; t < tasks; ++t)
      devices.push_back("/job:" + job + "/replica:0/task:" + std::to_string(t) + "/device:CPU:0");
  }
  if (static_cast<int>(devices.size()) != spec.hosts)
    return InvalidArgument("the jobs have ", devices.size(), " tasks, the cluster ", spec.hosts,
                           " hosts: one rank per host");
  return devices;
}

std::string RouteXml(int a, int b, const std::string& topology) {
  auto ctn = [](const std::string& id, const char* dir) {
    return "<link_ctn id=\"" + id + "\" direction=\"" + dir + "\"/>";
  };
  const std::string ha = "host" + std::to_string(a), hb = "host" + std::to_string(b);
  std::string links = ctn(ha + "_cable", "UP");
  const int ra = a / kEmulatedRackSize, rb = b / kEmulatedRackSize;
  if (topology == "two-level" && ra != rb)
    links += ctn("rack" + std::to_string(ra) + "_uplink", "UP") +
             ctn("rack" + std::to_string(rb) + "_uplink", "DOWN");
  links += ctn(hb + "_cable", "DOWN");
  return "    <route src=\"" + ha + "\" dst=\"" + hb + "\" symmetrical=\"NO\">" + links +
         "</route>\n";
}

}  // namespace

StatusOr<double> ParseTcRateBitsPerS(const std::string& text) {
  ASSIGN_OR_RETURN(double v, ParseWithUnit(text, "the rate", "1gbit, 100mbit or 10gbit",
                                           {{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}, {"bit", 1}}));
  if (!(v > 0)) return InvalidArgument("the rate must be > 0, got '", text, "'");
  return v;
}

StatusOr<double> ParseTcDelayS(const std::string& text) {
  return ParseWithUnit(text, "the delay", "50us, 5ms or 0.1s",
                       {{"us", 1e-6}, {"ms", 1e-3}, {"s", 1}});
}

StatusOr<std::string> EmulatedClusterXml(const EmulatedClusterSpec& spec, const DeviceClass& cpu) {
  if (spec.hosts < 2 || spec.hosts > kMaxMpiNodeTasks)
    return InvalidArgument("an emulated cluster needs 2 to ", kMaxMpiNodeTasks, " hosts, got ",
                           spec.hosts);
  if (!std::isfinite(spec.rate_bits_per_s) || !(spec.rate_bits_per_s > 0))
    return InvalidArgument("the rate must be finite and > 0 bit/s, got ", spec.rate_bits_per_s);
  if (!std::isfinite(spec.delay_s) || spec.delay_s < 0)
    return InvalidArgument("the delay must be finite and >= 0 s, got ", spec.delay_s);
  if (spec.topology != "star" && spec.topology != "two-level")
    return InvalidArgument("the topology must be star or two-level, got '", spec.topology, "'");
  RETURN_IF_ERROR(CheckDeviceClass(cpu));
  RETURN_IF_ERROR(CheckSharedCores(spec.sharing, "emulated"));
  const int shared_cores = spec.sharing.cores;
  ASSIGN_OR_RETURN(std::vector<std::string> devices, RankDevices(spec));
  const double bytes_per_s = spec.rate_bits_per_s / 8 * kEmulatedTcpGoodputFraction;
  const double latency_s = spec.delay_s + kEmulatedStackLatencyS;
  std::ostringstream s;
  s << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    << "<!-- Generated by flowbench (sim/emulated_cluster_platform.cc): the network of "
    << "scripts/cluster with " << spec.hosts << " hosts, " << Num(spec.rate_bits_per_s)
    << " bit/s and " << Num(spec.delay_s) << " s per link direction, topology " << spec.topology
    << ". Every emulated host shares this machine's CPUs; "
    << (shared_cores > 0
            ? "here they share the " + std::to_string(shared_cores) + " cores of host 'machine'"
            : std::string("here each has a whole one"))
    << ". -->\n"
    << "<platform version=\"4.1\">\n  <zone id=\"emulated\" routing=\"Full\">\n";
  const std::string share = shared_cores > 0 ? SharesCoresPropsXml(spec.sharing, "      ") : "";
  for (int h = 0; h < spec.hosts; ++h)
    s << HostXml("host" + std::to_string(h), cpu, devices[h], share);
  if (shared_cores > 0) s << SharedMachineHostXml(cpu.flops_per_s, shared_cores, "    ");
  for (int h = 0; h < spec.hosts; ++h)
    s << CableXml("host" + std::to_string(h) + "_cable", bytes_per_s, latency_s);
  if (spec.topology == "two-level")
    for (int r = 0; r * kEmulatedRackSize < spec.hosts; ++r)
      s << CableXml("rack" + std::to_string(r) + "_uplink", bytes_per_s, spec.delay_s);
  for (int a = 0; a < spec.hosts; ++a)
    for (int b = 0; b < spec.hosts; ++b)
      if (a != b) s << RouteXml(a, b, spec.topology);
  s << "  </zone>\n</platform>\n";
  return s.str();
}

}  // namespace fb::sim
