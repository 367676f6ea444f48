#include "sim/platform_validation.h"

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

#include "sim/platform_checker.h"

namespace fb::sim {
namespace {

// The bytes of a platform file. NotFound / InvalidArgument naming `path`.
StatusOr<std::string> ReadPlatformFile(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) return NotFound("platform file '", path, "' does not exist");
  if (fs::is_directory(st))
    return InvalidArgument("platform file '", path,
                           "' is a directory, expected a SimGrid XML file");
  if (!fs::is_regular_file(st))
    return InvalidArgument("platform file '", path, "' is not a regular file");
  const uintmax_t size = fs::file_size(path, ec);
  if (ec)
    return InvalidArgument("platform file '", path, "': cannot read its size: ", ec.message());
  if (size == 0)
    return InvalidArgument("platform file '", path, "' is empty, expected SimGrid XML");
  if (size > static_cast<uintmax_t>(kMaxPlatformFileBytes))
    return InvalidArgument("platform file '", path, "' has ", size,
                           " bytes, more than the limit of ", kMaxPlatformFileBytes);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return InvalidArgument("platform file '", path, "' cannot be read: ", std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return InvalidArgument("platform file '", path, "': read error");
  return text.str();
}

struct DocDeleter {
  void operator()(xmlDoc* d) const { xmlFreeDoc(d); }
};
struct CtxtDeleter {
  void operator()(xmlParserCtxt* c) const { xmlFreeParserCtxt(c); }
};

// libxml2's message for the parse error of `ctxt`, without its trailing newline, with the line.
std::string ParseErrorText(xmlParserCtxt* ctxt) {
  const xmlError* e = xmlCtxtGetLastError(ctxt);
  if (e == nullptr || e->message == nullptr) return "not well-formed XML";
  std::string msg = e->message;
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  if (msg.find("Excessive depth") != std::string::npos)
    msg = "elements nested too deep (zones may nest at most " + std::to_string(kMaxZoneDepth) +
          " deep)";
  return "line " + std::to_string(e->line) + ": not well-formed XML: " + msg;
}

}  // namespace

Status ValidatePlatformXml(const std::string& xml, const std::string& name) {
  if (xml.empty())
    return InvalidArgument("platform file '", name, "' is empty, expected SimGrid XML");
  if (const size_t nul = xml.find('\0'); nul != std::string::npos)
    return InvalidArgument("platform file '", name, "' is binary (a NUL byte at offset ", nul,
                           "), expected SimGrid XML");
  if (xml.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return InvalidArgument("platform file '", name, "' is too large");
  std::unique_ptr<xmlParserCtxt, CtxtDeleter> ctxt(xmlNewParserCtxt());
  if (!ctxt) return Internal("libxml2 could not allocate a parser for '", name, "'");
  // No network, no external DTD, no entity substitution: the file is read as it is.
  std::unique_ptr<xmlDoc, DocDeleter> doc(
      xmlCtxtReadMemory(ctxt.get(), xml.data(), static_cast<int>(xml.size()), name.c_str(), nullptr,
                        XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING));
  if (!doc || !ctxt->wellFormed)
    return InvalidArgument("platform file '", name, "': ", ParseErrorText(ctxt.get()));
  const xmlNode* root = xmlDocGetRootElement(doc.get());
  if (root == nullptr || std::strcmp(reinterpret_cast<const char*>(root->name), "platform") != 0)
    return InvalidArgument("platform file '", name, "': the root element must be <platform>, got <",
                           root ? reinterpret_cast<const char*>(root->name) : "", ">");
  const xmlDtd* dtd = doc->intSubset;
  if (dtd == nullptr || dtd->name == nullptr ||
      std::strcmp(reinterpret_cast<const char*>(dtd->name), "platform") != 0)
    return InvalidArgument("platform file '", name,
                           "': SimGrid needs <!DOCTYPE platform SYSTEM "
                           "\"https://simgrid.org/simgrid.dtd\"> before <platform>");
  xmlChar* version = xmlGetProp(root, reinterpret_cast<const xmlChar*>("version"));
  const std::string v = version ? reinterpret_cast<const char*>(version) : "";
  xmlFree(version);
  if (v != "4.1")
    return InvalidArgument("platform file '", name, "': line ", xmlGetLineNo(root),
                           ": <platform version=\"4.1\"> expected (SimGrid 3.32), got version '", v,
                           "' (simgrid_update_xml upgrades older files)");
  return PlatformChecker(name).CheckPlatform(root);
}

Status ValidatePlatformFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string xml, ReadPlatformFile(path));
  return ValidatePlatformXml(xml, path);
}

}  // namespace fb::sim
