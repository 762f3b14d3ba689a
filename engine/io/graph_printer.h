// Human-readable views of a Graph: torch.fx's `graph.print_tabular()` table, one-line node
// calls for tools' messages, and Graphviz DOT with rewritten nodes highlighted. Output is
// deterministic (graph order, schema order), so golden tests can compare whole strings.
#pragma once

#include <string>
#include <unordered_set>

namespace graft {

class Graph;
class Node;

/// The node's positional arguments as fx prints them, a Python tuple: `(x, w, None)`,
/// `(relu, 0.5)`, `([a, b],)`, `()` for placeholder and get_attr.
///
/// A call_function node's operands are rendered in signature order: a node by its name, a
/// scalar literal as a number, an absent optional operand as `None`, the variadic operand as
/// a list `[a, b]`. Trailing Nones are dropped, except that every operand up to the first
/// optional one is kept: `conv2d(x, w, None)` shows its missing bias as fx prints
/// `F.conv2d(x, w, bias)` calls, while `batch_norm(x, m, v)` drops its None weight and bias.
///
/// The output node's args are a 1-tuple holding what the graph returns, as fx prints
/// `return relu` and `return (a, b)`: `(relu,)` for one output, `((a, b),)` for several.
std::string format_node_args(const Node& node);

/// The attributes that differ from the schema default, in schema order, as a dict:
/// `{stride: [2, 2], padding: [1, 1]}`; `{}` when all are defaults or the node is not a
/// call_function. Attributes without a default are always shown.
std::string format_node_kwargs(const Node& node);

/// A one-line call: `conv2d(x, w, None, stride=[2, 2])`, `cat([a, b], dim=1)`,
/// `placeholder(x)`, `get_attr(conv1.weight)`, `output(relu, add)`.
std::string format_node_call(const Node& node);

/// fx's print_tabular: columns `opcode name target args kwargs`, plus a final `type` column
/// (`float32[N, 3, 224, 224]`, empty for untyped nodes) when any node has a type. Laid out
/// like tabulate's "simple" format: a header row, a row of dashes per column, columns
/// separated by two spaces and padded to the widest cell (in characters), no trailing spaces.
/// Names, targets, attributes and types are escaped for the terminal (escape_for_terminal).
std::string format_graph_table(const Graph& g);

struct DotOptions {
  std::string title;                          // graph label; none when empty
  std::unordered_set<const Node*> highlight;  // nodes drawn highlighted (rewritten)
  bool show_types = true;                     // a type line in each node's label
};

/// A Graphviz digraph with one DOT node per graph node, in graph order (placeholders as
/// ellipses, get_attr as grey notes, call_function as rounded boxes, output as a double
/// circle) and one edge per use of a node as an input, labelled with the operand name when
/// the user has more than one input. Highlighted nodes are filled with a distinct colour
/// and explained by a legend node; a node's provenance becomes its tooltip. User text shows
/// as escape_for_terminal spells it, quoted for DOT (`"` and `\` backslashed).
std::string graph_to_dot(const Graph& g, const DotOptions& opts = {});

}  // namespace graft
