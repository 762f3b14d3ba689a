// The graph printers: fx-style args/kwargs rendering of bound nodes, the print_tabular table
// and Graphviz DOT. Nodes store inputs bound to the schema (engine/ir/graph.h), so the args
// rendering here is where torch's positional convention is reconstructed.
#include "engine/io/graph_printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/support/terminal_text.h"

namespace graft {

namespace {

std::string input_text(const Input& in) {
  switch (in.kind) {
    case Input::Kind::kNode:
      return in.node != nullptr ? in.node->name() : "None";
    case Input::Kind::kScalar:
      return scalar_to_string(in.scalar);
    case Input::Kind::kNone:
      break;
  }
  return "None";
}

// Python's tuple syntax: (), (a,), (a, b).
std::string python_tuple(const std::vector<std::string>& items) {
  if (items.size() == 1) return fmt::format("({},)", items[0]);
  return fmt::format("({})", fmt::join(items, ", "));
}

std::string input_list(std::span<const Input> inputs, size_t begin, const char* open,
                       const char* close) {
  std::string out = open;
  for (size_t i = begin; i < inputs.size(); ++i) {
    if (i > begin) out += ", ";
    out += input_text(inputs[i]);
  }
  return out + close;
}

// A call_function node's positional args (the rule is documented at format_node_args). The
// loop tolerates inputs that do not fit the schema, so a graph the verifier rejects can still
// be printed while debugging it.
std::vector<std::string> call_args(const Node& node) {
  const OpSchema& schema = *node.schema();
  std::span<const Input> inputs = node.inputs();
  size_t fixed = inputs.size();
  if (schema.has_variadic()) fixed = std::min(fixed, schema.operands.size() - 1);
  size_t keep = 0;
  for (size_t i = 0; i < fixed; ++i) {
    if (!inputs[i].is_none()) keep = i + 1;
  }
  for (size_t i = 0; i < fixed && i < schema.operands.size(); ++i) {
    if (schema.operands[i].optional) {
      keep = std::max(keep, i + 1);
      break;
    }
  }
  // The variadic list is positional and last, so every slot before it must be printed.
  if (schema.has_variadic()) keep = fixed;
  std::vector<std::string> args;
  for (size_t i = 0; i < keep; ++i) args.push_back(input_text(inputs[i]));
  if (schema.has_variadic()) args.push_back(input_list(inputs, fixed, "[", "]"));
  return args;
}

bool is_default(const AttrSpec& spec, const AttrValue& value) {
  if (!spec.has_default) return false;
  if (attr_equal(value, spec.default_value)) return true;
  // A value stored before coercion (stride=1 for int[2] stride=[1, 1]) still counts as the
  // default when torch would coerce it to the default.
  std::string error;
  std::optional<AttrValue> coerced = coerce_attr(spec, value, &error);
  return coerced && attr_equal(*coerced, spec.default_value);
}

// (name, value text) of the attributes that differ from their defaults, in schema order.
std::vector<std::pair<std::string, std::string>> call_kwargs(const Node& node) {
  std::vector<std::pair<std::string, std::string>> kwargs;
  if (node.schema() == nullptr) return kwargs;
  const std::vector<AttrSpec>& specs = node.schema()->attrs;
  for (size_t i = 0; i < specs.size() && i < node.attrs().size(); ++i) {
    if (is_default(specs[i], node.attrs()[i])) continue;
    // A symbol prints bare, as in shapes: slice(x, 2, end=T).
    const std::string* symbol = attr_symbol(specs[i], node.attrs()[i]);
    kwargs.emplace_back(specs[i].name, symbol ? *symbol : attr_to_string(node.attrs()[i]));
  }
  return kwargs;
}

}  // namespace

// The three formatters escape what they return (names, targets and string attributes come
// from the model), so their callers may print it as it is.

std::string format_node_args(const Node& node) {
  switch (node.kind()) {
    case NodeKind::kPlaceholder:
    case NodeKind::kGetAttr:
      return "()";
    case NodeKind::kOutput:
      if (node.inputs().size() == 1) {
        return escape_for_terminal(python_tuple({input_text(node.input(0))}));
      }
      return escape_for_terminal(python_tuple({input_list(node.inputs(), 0, "(", ")")}));
    case NodeKind::kCallFunction:
      break;
  }
  return escape_for_terminal(python_tuple(call_args(node)));
}

std::string format_node_kwargs(const Node& node) {
  std::vector<std::string> items;
  for (const auto& [name, value] : call_kwargs(node)) items.push_back(name + ": " + value);
  return escape_for_terminal(fmt::format("{{{}}}", fmt::join(items, ", ")));
}

std::string format_node_call(const Node& node) {
  std::string call;
  switch (node.kind()) {
    case NodeKind::kPlaceholder:
    case NodeKind::kGetAttr:
      call = fmt::format("{}({})", node_kind_name(node.kind()), node.target());
      break;
    case NodeKind::kOutput:
      call = input_list(node.inputs(), 0, "output(", ")");
      break;
    case NodeKind::kCallFunction: {
      std::vector<std::string> items = call_args(node);
      for (const auto& [name, value] : call_kwargs(node)) items.push_back(name + "=" + value);
      call = fmt::format("{}({})", node.target(), fmt::join(items, ", "));
      break;
    }
  }
  return escape_for_terminal(call);
}

// ** table **

std::string format_graph_table(const Graph& g) {
  bool any_type = false;
  for (const Node* n : g.nodes()) any_type = any_type || n->type() != nullptr;
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"opcode", "name", "target", "args", "kwargs"});
  if (any_type) rows[0].push_back("type");
  for (const Node* n : g.nodes()) {
    std::vector<std::string>& row = rows.emplace_back();
    row = {node_kind_name(n->kind()), escape_for_terminal(n->name()),
           escape_for_terminal(n->target()), format_node_args(*n), format_node_kwargs(*n)};
    // A type names the model's dim symbols ("N"), user text too.
    if (any_type) row.push_back(n->type() ? escape_for_terminal(type_to_string(*n->type())) : "");
  }
  // Widths in characters (the cells are valid UTF-8 once escaped), so "café" lines up.
  auto width = [](const std::string& cell) { return terminal_columns(cell); };
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], width(row[c]));
  }
  // tabulate's "simple" format: dashes under each header, two spaces between columns. Every
  // cell is padded except at the end of a line, so lines carry no trailing spaces.
  auto emit = [&](const std::vector<std::string>& row, std::string& out) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += "  ";
      line += row[c];
      line.append(widths[c] - width(row[c]), ' ');
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  };
  std::string out;
  emit(rows[0], out);
  std::vector<std::string> dashes;
  for (size_t w : widths) dashes.emplace_back(w, '-');
  emit(dashes, out);
  for (size_t r = 1; r < rows.size(); ++r) emit(rows[r], out);
  return out;
}

// ** Graphviz **

namespace {

constexpr const char* kHighlightColor = "#ffb74d";
constexpr const char* kConstantColor = "#e0e0e0";

// Text inside a DOT double-quoted string, showing what a terminal shows: controls and invalid
// UTF-8 are spelled out first (escape_for_terminal: a name's newline reads `\n`, not a line
// break), then `"` and `\` get DOT's backslash, so Graphviz draws the spelled-out escapes as
// they are and no user text becomes a DOT escape (`\N`, `\l`) or ends the string.
std::string dot_escape(std::string_view text) {
  std::string visible = escape_for_terminal(text);
  std::string out;
  out.reserve(visible.size());
  for (char c : visible) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// Label lines: name, target (when it differs), scalar operands and non-default attributes,
// type. The lines are escaped one by one and joined with DOT's `\n`.
std::string node_label(const Node& n, bool show_types) {
  std::vector<std::string> lines = {n.name()};
  if (n.target() != n.name()) lines.push_back(n.target());
  if (n.is(NodeKind::kCallFunction)) {
    std::vector<std::string> extras;
    const std::vector<OperandSpec>& operands = n.schema()->operands;
    for (size_t i = 0; i < n.inputs().size() && i < operands.size(); ++i) {
      if (n.input(i).is_scalar()) {
        extras.push_back(operands[i].name + "=" + scalar_to_string(n.input(i).scalar));
      }
    }
    for (const auto& [name, value] : call_kwargs(n)) extras.push_back(name + "=" + value);
    if (!extras.empty()) lines.push_back(fmt::format("{}", fmt::join(extras, ", ")));
  }
  if (show_types && n.type()) lines.push_back(type_to_string(*n.type()));
  std::string label;
  for (size_t i = 0; i < lines.size(); ++i) label += (i ? "\\n" : "") + dot_escape(lines[i]);
  return label;
}

std::string node_style(const Node& n, bool highlighted) {
  std::string shape = "box";
  std::vector<std::string> styles;
  const char* fill = nullptr;
  switch (n.kind()) {
    case NodeKind::kPlaceholder:
      shape = "ellipse";
      break;
    case NodeKind::kGetAttr:
      shape = "note";
      fill = kConstantColor;
      break;
    case NodeKind::kCallFunction:
      styles.push_back("rounded");
      break;
    case NodeKind::kOutput:
      shape = "doublecircle";
      break;
  }
  if (highlighted) fill = kHighlightColor;
  if (fill != nullptr) styles.push_back("filled");
  std::string out = "shape=" + shape;
  if (!styles.empty()) out += fmt::format(", style=\"{}\"", fmt::join(styles, ","));
  if (fill != nullptr) out += fmt::format(", fillcolor=\"{}\"", fill);
  if (n.is(NodeKind::kGetAttr) && !highlighted) out += ", color=\"#808080\"";
  if (highlighted) out += ", penwidth=2";
  return out;
}

// Edge label for input `i` of `user`: the operand name ("weight", "tensors[1]") for ops, the
// position for a multi-output output node; none when the user has a single input.
std::string edge_label(const Node& user, size_t i) {
  if (user.inputs().size() < 2) return "";
  const OpSchema* schema = user.schema();
  if (schema == nullptr || schema->operands.empty()) return std::to_string(i);
  const std::vector<OperandSpec>& operands = schema->operands;
  if (schema->has_variadic() && i + 1 >= operands.size()) {
    return fmt::format("{}[{}]", operands.back().name, i - (operands.size() - 1));
  }
  return i < operands.size() ? operands[i].name : std::to_string(i);
}

// One edge per input use, in graph order.
void append_edges(const Graph& g, const std::unordered_map<const Node*, size_t>& index,
                  std::string& out) {
  std::unordered_set<const Node*> missing;
  for (const Node* n : g.nodes()) {
    for (size_t i = 0; i < n->inputs().size(); ++i) {
      const Node* producer = n->input_node(i);
      if (producer == nullptr) continue;
      std::string src;
      if (auto it = index.find(producer); it != index.end()) {
        src = fmt::format("n{}", it->second);
      } else {
        // A use of an erased node: only a broken graph has one, and drawing it helps debug it.
        src = fmt::format("missing{}", producer->id());
        if (missing.insert(producer).second) {
          out += fmt::format("  {} [label=\"{}\\n(not in graph)\", shape=box, style=dashed];\n",
                             src, dot_escape(producer->name()));
        }
      }
      std::string label = edge_label(*n, i);
      out += fmt::format("  {} -> n{}", src, index.at(n));
      if (!label.empty()) out += fmt::format(" [label=\"{}\"]", dot_escape(label));
      out += ";\n";
    }
  }
}

}  // namespace

std::string graph_to_dot(const Graph& g, const DotOptions& opts) {
  std::string out = "digraph graft {\n";
  if (!opts.title.empty()) {
    out += fmt::format("  label=\"{}\";\n  labelloc=t;\n", dot_escape(opts.title));
  }
  out += "  rankdir=TB;\n";
  out += "  node [fontname=\"Helvetica\", fontsize=10];\n";
  out += "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  // DOT ids are positions in graph order, not NodeIds, so a clone prints identically.
  std::unordered_map<const Node*, size_t> index;
  for (const Node* n : g.nodes()) index.emplace(n, index.size());
  bool any_highlight = false;
  for (const Node* n : g.nodes()) {
    bool highlighted = opts.highlight.count(n) > 0;
    any_highlight = any_highlight || highlighted;
    out += fmt::format("  n{} [label=\"{}\", {}", index.at(n), node_label(*n, opts.show_types),
                       node_style(*n, highlighted));
    if (!n->meta().provenance.empty()) {
      out += fmt::format(", tooltip=\"{}\"", dot_escape(n->meta().provenance.str()));
    }
    out += "];\n";
  }
  append_edges(g, index, out);
  if (any_highlight) {
    out += fmt::format("  legend [label=\"rewritten\", shape=note, style=\"filled\", "
                       "fillcolor=\"{}\"];\n",
                       kHighlightColor);
  }
  out += "}\n";
  return out;
}

}  // namespace graft
