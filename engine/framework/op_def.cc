#include "engine/framework/op_def.h"

#include <algorithm>
#include <regex>

#include <nlohmann/json.hpp>

#include "engine/framework/echo_input.h"

namespace fb {

namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "a: T", "a: float", "a: N * T", "a: Ref(T)"
StatusOr<ArgDef> ParseArg(const std::string& spec) {
  size_t colon = spec.find(':');
  if (colon == std::string::npos) return InvalidArgument("arg spec '", spec, "' has no ':'");
  ArgDef arg;
  arg.name = Trim(spec.substr(0, colon));
  std::string type = Trim(spec.substr(colon + 1));
  if (size_t star = type.find('*'); star != std::string::npos) {
    arg.number_attr = Trim(type.substr(0, star));
    type = Trim(type.substr(star + 1));
  }
  if (type.rfind("Ref(", 0) == 0 && type.back() == ')') {
    arg.is_ref = true;
    type = Trim(type.substr(4, type.size() - 5));
  }
  auto fixed = DataTypeFromString(type);
  if (fixed.ok()) arg.type = *fixed; else arg.type_attr = type;
  return arg;
}

// "name: type", "name: type = default", "T: {float, double}", "N: int >= 1"
StatusOr<AttrDef> ParseAttr(const std::string& spec) {
  size_t colon = spec.find(':');
  if (colon == std::string::npos) return InvalidArgument("attr spec '", spec, "' has no ':'");
  AttrDef attr;
  attr.name = Trim(spec.substr(0, colon));
  std::string rest = Trim(spec.substr(colon + 1));
  std::string default_text;
  if (size_t eq = rest.find(" = "); eq != std::string::npos) {
    default_text = Trim(rest.substr(eq + 3));
    rest = Trim(rest.substr(0, eq));
  }
  if (size_t ge = rest.find(">="); ge != std::string::npos) {
    attr.minimum = std::stoll(Trim(rest.substr(ge + 2)));
    rest = Trim(rest.substr(0, ge));
  }
  if (!rest.empty() && rest.front() == '{') {
    attr.type = AttrType::kType;
    std::string inner = rest.substr(1, rest.find('}') - 1);
    size_t pos = 0;
    while (pos <= inner.size()) {
      size_t comma = inner.find(',', pos);
      std::string name = Trim(inner.substr(pos, comma - pos));
      ASSIGN_OR_RETURN(DataType dt, DataTypeFromString(name));
      attr.allowed_types.push_back(dt);
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  } else {
    ASSIGN_OR_RETURN(attr.type, AttrTypeFromString(rest));
  }
  if (!default_text.empty()) {
    nlohmann::json j;
    if (attr.type == AttrType::kType || attr.type == AttrType::kString) {
      std::string unquoted = default_text;
      if (unquoted.size() >= 2 && unquoted.front() == '"') unquoted = unquoted.substr(1, unquoted.size() - 2);
      j = unquoted;
    } else {
      j = nlohmann::json::parse(default_text, nullptr, false);
      if (j.is_discarded()) return InvalidArgument("bad default '", default_text, "'");
    }
    ASSIGN_OR_RETURN(AttrValue v, AttrValueFromJson(j, &attr.type));
    attr.default_value = v;
  }
  return attr;
}

}  // namespace

const AttrDef* OpDef::FindAttr(const std::string& name) const {
  for (const auto& a : attrs)
    if (a.name == name) return &a;
  return nullptr;
}

OpDefBuilder::OpDefBuilder(std::string name) : name_(std::move(name)) {}
OpDefBuilder& OpDefBuilder::Input(std::string spec) { inputs_.push_back(std::move(spec)); return *this; }
OpDefBuilder& OpDefBuilder::Output(std::string spec) { outputs_.push_back(std::move(spec)); return *this; }
OpDefBuilder& OpDefBuilder::Attr(std::string spec) { attrs_.push_back(std::move(spec)); return *this; }
OpDefBuilder& OpDefBuilder::SetIsStateful() { stateful_ = true; return *this; }
OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeFn fn) { shape_fn_ = std::move(fn); return *this; }
OpDefBuilder& OpDefBuilder::Doc(std::string doc) { doc_ = std::move(doc); return *this; }

StatusOr<OpDef> OpDefBuilder::Finalize() const {
  OpDef op;
  op.name = name_;
  op.is_stateful = stateful_;
  op.shape_fn = shape_fn_;
  op.doc = doc_;
  for (const auto& s : attrs_) {
    ASSIGN_OR_RETURN(AttrDef a, ParseAttr(s));
    op.attrs.push_back(a);
  }
  auto check_arg = [&](const ArgDef& a) -> Status {
    if (!a.type_attr.empty() && !op.FindAttr(a.type_attr))
      return InvalidArgument("op ", name_, ": arg '", a.name, "' uses undeclared attr '",
                             a.type_attr, "'");
    if (!a.number_attr.empty() && !op.FindAttr(a.number_attr))
      return InvalidArgument("op ", name_, ": arg '", a.name, "' uses undeclared attr '",
                             a.number_attr, "'");
    const AttrDef* type_attr = a.type_attr.empty() ? nullptr : op.FindAttr(a.type_attr);
    if (type_attr && type_attr->type == AttrType::kListType && !a.number_attr.empty())
      return InvalidArgument("op ", name_, ": arg '", a.name, "' has list(type) attr '",
                             a.type_attr, "' and cannot also be repeated by '", a.number_attr,
                             "'");
    return Status::OK();
  };
  for (const auto& s : inputs_) {
    ASSIGN_OR_RETURN(ArgDef a, ParseArg(s));
    RETURN_IF_ERROR(check_arg(a));
    op.inputs.push_back(a);
  }
  for (const auto& s : outputs_) {
    ASSIGN_OR_RETURN(ArgDef a, ParseArg(s));
    RETURN_IF_ERROR(check_arg(a));
    op.outputs.push_back(a);
  }
  return op;
}

OpRegistry* OpRegistry::Global() {
  static OpRegistry* r = new OpRegistry;
  return r;
}

void OpRegistry::Register(const OpDefBuilder& builder) {
  auto op = builder.Finalize();
  FB_CHECK(op.ok()) << "REGISTER_OP(" << builder.name() << "): " << op.status();
  std::lock_guard<std::mutex> l(mu_);
  FB_CHECK(ops_.count(op->name) == 0) << "REGISTER_OP(" << op->name << ") twice";
  std::string name = op->name;
  ops_[name] = std::make_unique<OpDef>(std::move(*op));
}

StatusOr<const OpDef*> OpRegistry::LookUp(const std::string& op) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = ops_.find(op);
  if (it == ops_.end()) return NotFound("unknown op '", op, "'");
  return static_cast<const OpDef*>(it->second.get());
}

std::vector<const OpDef*> OpRegistry::ListOps() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<const OpDef*> v;
  for (const auto& [name, op] : ops_) v.push_back(op.get());
  return v;
}

Status AddDefaultsAndValidateAttrs(const OpDef& op, const std::string& node_name, AttrMap* attrs) {
  std::string where = "node '" + EchoInput(node_name) + "' (" + op.name + "): ";
  for (const auto& [name, value] : *attrs) {
    if (!name.empty() && name[0] == '_') continue;
    if (!op.FindAttr(name)) return InvalidArgument(where, "unknown attr '", EchoInput(name), "'");
  }
  for (const AttrDef& def : op.attrs) {
    auto it = attrs->find(def.name);
    if (it == attrs->end()) {
      if (!def.default_value)
        return InvalidArgument(where, "missing attr '", def.name, "' of type ",
                               AttrTypeString(def.type));
      (*attrs)[def.name] = *def.default_value;
      continue;
    }
    const AttrValue& v = it->second;
    if (v.type() != def.type)
      return InvalidArgument(where, "attr '", def.name, "' must be ", AttrTypeString(def.type),
                             ", got ", AttrTypeString(v.type()), " ", v.DebugString());
    if (!def.allowed_types.empty() &&
        std::find(def.allowed_types.begin(), def.allowed_types.end(), v.get<DataType>()) ==
            def.allowed_types.end())
      return InvalidArgument(where, "attr '", def.name, "' is ", DataTypeString(v.get<DataType>()),
                             ", allowed: ", DataTypeListString(def.allowed_types));
    if (def.minimum && v.get<int64_t>() < *def.minimum)
      return InvalidArgument(where, "attr '", def.name, "' is ", v.get<int64_t>(),
                             ", must be >= ", *def.minimum);
  }
  return Status::OK();
}

namespace {
// Most tensors one "N * T" argument may stand for: N comes from a graph file, and each tensor
// costs an entry in the node's type lists.
constexpr int64_t kMaxNumberAttr = int64_t{1} << 20;

Status ExpandArgs(const std::vector<ArgDef>& args, const OpDef& op, const std::string& node,
                  const AttrMap& attrs, std::vector<DataType>* types, std::vector<bool>* refs) {
  for (const ArgDef& a : args) {
    DataType dt = a.type;
    if (!a.type_attr.empty()) {
      auto it = attrs.find(a.type_attr);
      if (it != attrs.end() && it->second.holds<std::vector<DataType>>()) {
        // "xs: T" with T a list(type): one tensor per listed type.
        for (DataType t : it->second.get<std::vector<DataType>>()) {
          types->push_back(t);
          if (refs) refs->push_back(a.is_ref);
        }
        continue;
      }
      if (it == attrs.end() || !it->second.holds<DataType>())
        return InvalidArgument("node '", EchoInput(node), "' (", op.name, "): attr '", a.type_attr,
                               "' must be a type");
      dt = it->second.get<DataType>();
    }
    int64_t n = 1;
    if (!a.number_attr.empty()) {
      auto it = attrs.find(a.number_attr);
      if (it == attrs.end() || !it->second.holds<int64_t>())
        return InvalidArgument("node '", EchoInput(node), "' (", op.name, "): attr '",
                               a.number_attr, "' must be an int");
      n = it->second.get<int64_t>();
      if (n < 0 || n > kMaxNumberAttr)
        return InvalidArgument("node '", EchoInput(node), "' (", op.name, "): attr '",
                               a.number_attr, "' is ", n, ", must be in [0, ", kMaxNumberAttr, "]");
    }
    for (int64_t i = 0; i < n; ++i) {
      types->push_back(dt);
      if (refs) refs->push_back(a.is_ref);
    }
  }
  return Status::OK();
}
}  // namespace

Status InOutTypesForNode(const OpDef& op, const std::string& node_name, const AttrMap& attrs,
                         std::vector<DataType>* inputs, std::vector<DataType>* outputs,
                         std::vector<bool>* input_is_ref, std::vector<bool>* output_is_ref) {
  RETURN_IF_ERROR(ExpandArgs(op.inputs, op, node_name, attrs, inputs, input_is_ref));
  return ExpandArgs(op.outputs, op, node_name, attrs, outputs, output_is_ref);
}

}  // namespace fb
