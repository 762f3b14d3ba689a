// rewrite_bench: how fast the rewrite driver runs on large graphs (issue 4's bars).
//
// Builds, in memory, N blocks of conv2d -> batch_norm(training=False) -> relu chained on one
// input [1, 8, 8, 8] (conv weight [8, 8, 3, 3], padding 1, no bias; batch-norm parameters [8];
// every weight a get_attr of its own name, all sharing the bytes of one tensor), so a block is
// 8 nodes: conv, weight, batch_norm, 4 batch-norm parameters, relu. The rule sets are:
//
//   1 rule    fuse_conv_bn, read from examples/rules/fuse.rules (the real BN fold);
//   10, 100   fuse_conv_bn first, then generated variants that never match but share
//             sub-patterns with it, as a real rule library does (bn(conv) with groups=7,
//             relu(bn(conv)) with dilation=[3, 3], sigmoid(add(conv, _)), hardswish(mul), ...).
//
// Only rewrite_graph() is timed (the rules are compiled once beforehand; their compile time is
// reported separately). Modes:
//
//   fold     the runtime's reference constant folder, as `rewrite` runs it: each match computes
//            the folded weight and bias (9 small tensor ops per match).
//   nofold   the same rule with no folder: the scale expression is inserted as ops instead of
//            computed. That is exactly what torch.fx's replace_pattern produces for the same
//            replacement (bench/rewrite_bench.py), and shows matching + graph surgery cost
//            without the numeric work.
//
// One thread; the best of at least --repeat runs, each on a freshly built graph, the rule-set
// sizes taking turns (more runs for small graphs: see run_size). Not part of ctest; run
//   build/bin/rewrite_bench [--sizes 10000,100000,1000000] [--rules 1,10,100]
//                           [--mode fold|nofold|both] [--repeat 3] [--budget 3] [--breakdown]
//                           [--json]
// bench/rewrite_bench.py runs it next to torch.fx.
#include <fmt/format.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "dsl/load.h"
#include "dsl/lower.h"
#include "engine/ir/graph.h"
#include "engine/ir/verifier.h"
#include "engine/ops/op_registry.h"
#include "engine/ops/shape_infer.h"
#include "engine/rewrite/rewriter.h"
#include "engine/support/allocator.h"
#include "eval/constant_folder.h"

#ifndef GRAFT_SOURCE_DIR
#define GRAFT_SOURCE_DIR "."
#endif

using namespace graft;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// CPU time of this thread: on a busy machine the wall clock also counts time spent waiting for
/// a core, so both are reported.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// Minor page faults of this thread so far: first touches of fresh memory, which on a
/// million-node graph cost as much as the rewriting itself.
int64_t thread_page_faults() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

// ** the graph **

struct SharedTensors {
  ConstantTensor weight, mean, var, gamma, beta;
};

SharedTensors make_tensors() {
  std::vector<float> w(8 * 8 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 17) - 8) / 64.f;
  std::vector<float> mean(8), var(8), gamma(8), beta(8);
  for (int c = 0; c < 8; ++c) {
    mean[c] = 0.01f * static_cast<float>(c);
    var[c] = 0.5f + 0.1f * static_cast<float>(c);
    gamma[c] = 1.0f - 0.05f * static_cast<float>(c);
    beta[c] = 0.02f * static_cast<float>(c);
  }
  return {ConstantTensor::from_floats({8, 8, 3, 3}, w), ConstantTensor::from_floats({8}, mean),
          ConstantTensor::from_floats({8}, var), ConstantTensor::from_floats({8}, gamma),
          ConstantTensor::from_floats({8}, beta)};
}

Node* add_constant(Graph& g, const std::string& target, const ConstantTensor& shared) {
  g.constants().set(target, shared);  // a copy of the handle: the bytes are shared
  std::string name = target;
  std::replace(name.begin(), name.end(), '.', '_');
  Node* n = g.add_get_attr(name, target);
  n->meta().type = &shared.type();  // uniqued already
  return n;
}

Node* add_op(Graph& g, const OpSchema& schema, std::vector<Input> inputs,
             std::vector<AttrValue> attrs) {
  Node* n = g.add_call(schema, std::move(inputs), std::move(attrs));
  std::string error;
  std::optional<TensorType> type = infer_node_type(*n, &error);
  if (!type) throw std::runtime_error(schema.name + ": " + error);
  n->meta().set_type(type);
  return n;
}

/// `blocks` x (conv2d -> batch_norm -> relu): 8 nodes per block, plus the input and output.
std::unique_ptr<Graph> build_graph(int64_t blocks, const SharedTensors& t) {
  const OpRegistry& ops = OpRegistry::get();
  const OpSchema& conv = *ops.find("conv2d");
  const OpSchema& bn = *ops.find("batch_norm");
  const OpSchema& relu = *ops.find("relu");
  std::vector<AttrValue> conv_attrs = Graph::default_attrs(conv);
  conv_attrs[static_cast<size_t>(conv.attr_index("padding"))] = std::vector<int64_t>{1, 1};
  std::vector<AttrValue> bn_attrs = Graph::default_attrs(bn);  // training=False, eps=1e-5
  bn_attrs[static_cast<size_t>(bn.attr_index("training"))] = false;

  auto g = std::make_unique<Graph>();
  Node* y = g->add_placeholder("x", TensorType{DType::kFloat32, {1, 8, 8, 8}});
  for (int64_t i = 0; i < blocks; ++i) {
    std::string p = "layer" + std::to_string(i);
    Node* w = add_constant(*g, p + ".conv.weight", t.weight);
    Node* c = add_op(*g, conv, {Input::of(y), Input::of(w), Input::none()}, conv_attrs);
    Node* mean = add_constant(*g, p + ".bn.running_mean", t.mean);
    Node* var = add_constant(*g, p + ".bn.running_var", t.var);
    Node* gamma = add_constant(*g, p + ".bn.weight", t.gamma);
    Node* beta = add_constant(*g, p + ".bn.bias", t.beta);
    Node* b = add_op(*g, bn,
                     {Input::of(c), Input::of(mean), Input::of(var), Input::of(gamma), Input::of(beta)},
                     bn_attrs);
    y = add_op(*g, relu, {Input::of(b)}, {});
  }
  g->set_output({Input::of(y)});
  return g;
}

// ** the rules **

/// The text of `rule NAME { ... }` in `text` (balanced braces), or "".
std::string extract_rule(const std::string& text, const std::string& name) {
  size_t at = text.find("rule " + name + " {");
  if (at == std::string::npos) return "";
  int depth = 0;
  for (size_t i = text.find('{', at); i < text.size(); ++i) {
    if (text[i] == '{') ++depth;
    if (text[i] == '}' && --depth == 0) return text.substr(at, i + 1 - at) + "\n";
  }
  return "";
}

/// Variant `k` (1-based) of the never-matching rules: ten shapes that share sub-patterns with
/// fuse_conv_bn (conv2d, batch_norm(conv2d), relu(batch_norm)), each with an attribute,
/// scalar or `where` that never holds on the benchmark graph; `p` >= 2 varies the value so that
/// every rule is distinct.
std::string variant_rule(int k) {
  const int t = (k - 1) % 10, p = 2 + (k - 1) / 10;
  const std::string name = fmt::format("v{}_", k);
  const char* bn_params = "mean, var, gamma, beta";
  switch (t) {
    case 0:  // bn(conv) with groups that never holds: a candidate at every batch_norm
      return fmt::format(
          "rule {0}conv_bn_groups {{\n  pattern(x, w, b?, {1}) {{\n    y = conv2d(x, w, b, groups={2})\n"
          "    return batch_norm(y, {1}, training=false)\n  }}\n  where const(w, b), uses(y) == 1\n"
          "  replacement {{ return y }}\n}}\n", name, bn_params, p + 5);
    case 1:  // relu(bn(conv)) with a dilation that never holds: a candidate at every relu
      return fmt::format(
          "rule {0}conv_bn_relu_dilated {{\n  pattern(x, w, {1}) {{\n    c = conv2d(x, w, dilation=[{2}, {2}])\n"
          "    n = batch_norm(c, {1}, training=false)\n    return relu(n)\n  }}\n"
          "  replacement {{ return relu(c) }}\n}}\n", name, bn_params, p + 1);
    case 2:  // sigmoid(conv + r): no sigmoid in the graph, shares conv2d
      return fmt::format(
          "rule {0}conv_add_sigmoid {{\n  pattern(x, w, r) {{\n    c = conv2d(x, w, stride={1})\n"
          "    return sigmoid(c + r)\n  }}\n  replacement {{ return sigmoid(r) }}\n}}\n", name, p);
    case 3:  // hardswish(x * k)
      return fmt::format(
          "rule {0}hardswish_scaled {{\n  pattern(x) {{\n    return hardswish(x * {1})\n  }}\n"
          "  replacement {{ return hardswish(x) }}\n}}\n", name, p);
    case 4:  // relu(conv) with a stride: relu's operand is a batch_norm in the graph
      return fmt::format(
          "rule {0}conv_relu_strided {{\n  pattern(x, w, b?) {{\n    c = conv2d(x, w, b, stride=[{1}, {1}])\n"
          "    return relu(c)\n  }}\n  replacement {{ return c }}\n}}\n", name, p);
    case 5:  // bn(conv) with a padding that never holds: a candidate at every batch_norm
      return fmt::format(
          "rule {0}conv_bn_padded {{\n  pattern(x, w, {1}) {{\n    y = conv2d(x, w, padding=[{2}, {2}])\n"
          "    return batch_norm(y, {1}, training=false)\n  }}\n"
          "  where const(w, {1}), uses(y) == 1\n  replacement {{ return y }}\n}}\n", name, bn_params, p);
    case 6:  // gelu(bn(conv)): no gelu in the graph
      return fmt::format(
          "rule {0}conv_bn_gelu {{\n  pattern(x, w, {1}) {{\n    c = conv2d(x, w, groups={2})\n"
          "    return gelu(batch_norm(c, {1}, training=false), approximate=\"tanh\")\n  }}\n"
          "  replacement {{ return gelu(c) }}\n}}\n", name, bn_params, p);
    case 7:  // relu(bn(conv)) whose `where` never holds: binds fully, then the condition fails
      return fmt::format(
          "rule {0}conv_bn_relu_wide {{\n  pattern(x, w, b?, {1}) {{\n    c = conv2d(x, w, b)\n"
          "    return relu(batch_norm(c, {1}, training=false))\n  }}\n"
          "  where const(w, b), dim(w, 0) == {2}\n  replacement {{ return relu(c) }}\n}}\n", name,
          bn_params, 8 * p);
    case 8:  // dropout(relu): no dropout in the graph
      return fmt::format(
          "rule {0}dropout_after_relu {{\n  pattern(x) {{\n    y = relu(x)\n"
          "    return dropout(y, p={1}, training=false)\n  }}\n  replacement {{ return y }}\n}}\n",
          name, 0.05 * p);
    default:  // (relu | relu6 | silu)(bn(_)) with an eps that never holds
      return fmt::format(
          "rule {0}act_after_bn_eps {{\n  pattern(x, {1}) {{\n    n = batch_norm(x, {1}, training=false, eps={2})\n"
          "    return (relu | relu6 | silu)(n)\n  }}\n  replacement {{ return relu(n) }}\n}}\n",
          name, bn_params, 1e-3 * p);
  }
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string rules_text(int count, const std::string& fuse_rule) {
  std::string text = fuse_rule;
  for (int k = 1; k < count; ++k) text += "\n" + variant_rule(k);
  return text;
}

struct CompiledSet {
  std::unique_ptr<RuleSet> rules;
  std::unique_ptr<CompiledRules> compiled;
  double load_seconds = 0;     // parse + sema + lower
  double compile_seconds = 0;  // CompiledRules (hash-consing into classes)
};

CompiledSet compile_rules(const std::string& text) {
  CompiledSet out;
  auto start = Clock::now();
  SourceManager sources;
  DiagnosticEngine diags(&sources);
  dsl::LoadOptions options;
  options.read_file = [&](const std::string&, std::string*) -> std::optional<std::string> { return text; };
  std::optional<dsl::RuleFileSet> files = dsl::load_rule_files({"bench.rules"}, sources, diags, options);
  std::optional<RuleSet> rules;
  if (files) rules = dsl::lower(*files, sources, diags);
  if (!rules) {
    diags.render(std::cerr);
    throw std::runtime_error("the benchmark rules do not load");
  }
  out.load_seconds = seconds_since(start);
  out.rules = std::make_unique<RuleSet>(std::move(*rules));
  start = Clock::now();
  out.compiled = std::make_unique<CompiledRules>(*out.rules);
  out.compile_seconds = seconds_since(start);
  return out;
}

// ** running **

struct Run {
  std::string mode;
  int64_t nodes = 0;
  int rules = 0;
  int runs = 0;            // timed runs, the best of which is reported
  double seconds = 0;      // wall clock, best run
  double cpu_seconds = 0;  // thread CPU time, best run
  uint64_t applied = 0;
  int64_t nodes_after = 0;
  int64_t page_faults = 0;  // during rewrite_graph, best run
  // --breakdown: one extra (untimed-for-the-table) run, split by where the time goes.
  double label_seconds = -1;  // Matcher::label_all alone on a fresh graph
  double rule_seconds = -1;   // sum of RuleStats::seconds: match_at + validate + apply
  double fold_seconds = -1;   // inside the constant folder
  uint64_t candidates = 0;
};

struct Options {
  std::vector<int64_t> sizes = {10000, 100000, 1000000};
  std::vector<int> rule_counts = {1, 10, 100};
  std::string mode = "both";
  int repeat = 3;
  double budget_seconds = 3;
  bool breakdown = false;
  bool verify = false;
  bool json = false;
  int dump_rules = 0;
};

/// A prepared fold that adds its time to `*seconds` (--breakdown).
class TimedPreparedFold final : public PreparedFold {
 public:
  TimedPreparedFold(std::unique_ptr<PreparedFold> inner, double* seconds)
      : inner_(std::move(inner)), seconds_(seconds) {}
  bool run(const std::vector<const ConstantTensor*>& operands,
           ConstantTensor* result) const override {
    auto start = Clock::now();
    bool done = inner_->run(operands, result);
    *seconds_ += seconds_since(start);
    return done;
  }

 private:
  std::unique_ptr<PreparedFold> inner_;
  double* seconds_;
};

RewriteOptions rewrite_options(const std::string& mode, double* fold_seconds) {
  RewriteOptions options;
  if (mode != "fold") return options;
  ConstantFolder folder = eval::reference_constant_folder();
  if (fold_seconds == nullptr) {
    options.fold = folder;
    return options;
  }
  options.fold.fold = [folder, fold_seconds](const Node& n,
                                             const std::vector<const ConstantTensor*>& in,
                                             std::string* err) {
    auto start = Clock::now();
    auto out = folder.fold(n, in, err);
    *fold_seconds += seconds_since(start);
    return out;
  };
  options.fold.prepare = [folder, fold_seconds](const Node& n) -> std::unique_ptr<PreparedFold> {
    auto start = Clock::now();
    std::unique_ptr<PreparedFold> prepared = folder.prepare(n);
    *fold_seconds += seconds_since(start);
    if (prepared == nullptr) return nullptr;
    return std::make_unique<TimedPreparedFold>(std::move(prepared), fold_seconds);
  };
  return options;
}

/// One timed rewrite of a freshly built graph.
struct Sample {
  double seconds = 0;
  double cpu_seconds = 0;
  int64_t page_faults = 0;
  int64_t nodes = 0;
  int64_t nodes_after = 0;
  uint64_t applied = 0;
};

Sample time_one(const std::string& mode, int64_t blocks, const CompiledSet& set,
                const Options& opts, const SharedTensors& tensors) {
  RewriteOptions options = rewrite_options(mode, nullptr);
  std::unique_ptr<Graph> g = build_graph(blocks, tensors);
  Sample sample;
  sample.nodes = static_cast<int64_t>(g->size());
  DiagnosticEngine diags;
  auto start = Clock::now();
  double cpu_start = thread_cpu_seconds();
  int64_t faults_start = thread_page_faults();
  RewriteResult result = rewrite_graph(*g, *set.compiled, options, diags);
  sample.seconds = seconds_since(start);
  sample.cpu_seconds = thread_cpu_seconds() - cpu_start;
  sample.page_faults = thread_page_faults() - faults_start;
  if (!result.ok || diags.has_errors()) {
    diags.render(std::cerr);
    throw std::runtime_error("rewrite_graph failed");
  }
  if (opts.verify && !verify_graph(*g, diags, "rewritten")) {
    diags.render(std::cerr);
    throw std::runtime_error("the rewritten graph does not verify");
  }
  // Every block rewritten by fuse_conv_bn and nothing else: the variants must not match.
  if (result.applied.size() != static_cast<size_t>(blocks) ||
      result.stats[0].applied != result.applied.size()) {
    throw std::runtime_error(
        fmt::format("expected {} rewrites by fuse_conv_bn, got {}", blocks, result.applied.size()));
  }
  sample.applied = result.applied.size();
  sample.nodes_after = static_cast<int64_t>(g->size());
  return sample;  // freeing a million nodes takes a while; it is not part of rewriting
}

/// Keeps the fastest sample's figures in `run` (CPU time is the fastest of its own).
void keep_best(Run& run, const Sample& s) {
  if (run.runs == 0 || s.seconds < run.seconds) {
    run.seconds = s.seconds;
    run.page_faults = s.page_faults;
  }
  if (run.runs == 0 || s.cpu_seconds < run.cpu_seconds) run.cpu_seconds = s.cpu_seconds;
  run.nodes = s.nodes;
  run.nodes_after = s.nodes_after;
  run.applied = s.applied;
  ++run.runs;
}

/// --breakdown: one more run, split by where the time goes.
void add_breakdown(Run& run, int64_t blocks, const CompiledSet& set, const SharedTensors& tensors) {
  std::unique_ptr<Graph> g = build_graph(blocks, tensors);
  Matcher matcher(*set.compiled, *g);
  auto start = Clock::now();
  matcher.label_all();
  run.label_seconds = seconds_since(start);
  double fold = 0;
  RewriteOptions timed = rewrite_options(run.mode, &fold);
  timed.time_rules = true;
  DiagnosticEngine diags;
  RewriteResult result = rewrite_graph(*g, *set.compiled, timed, diags);
  run.rule_seconds = 0;
  for (const RuleStats& s : result.stats) {
    run.rule_seconds += s.seconds;
    run.candidates += s.candidates;
  }
  run.fold_seconds = run.mode == "fold" ? fold : 0;
}

/// Every rule-set size on graphs of `size` nodes. The sizes take turns, one run each per round,
/// so that a change in the shared host's speed falls on all of them rather than on whichever ran
/// then; rounds go on past --repeat while they fit in --budget seconds (at most kMaxRounds), so
/// that the best of a small graph's 10 ms runs is a best of dozens.
std::vector<Run> run_size(const std::string& mode, int64_t size,
                          const std::map<int, CompiledSet>& sets, const Options& opts,
                          const SharedTensors& tensors) {
  constexpr int kMaxRounds = 50;
  const int64_t blocks = std::max<int64_t>(1, (size - 2 + 7) / 8);  // at least `size` nodes
  std::vector<Run> runs;
  for (int count : opts.rule_counts) runs.push_back(Run{mode, 0, count});
  auto start = Clock::now();
  for (int round = 0;
       round < opts.repeat || (round < kMaxRounds && seconds_since(start) < opts.budget_seconds);
       ++round) {
    for (Run& run : runs) keep_best(run, time_one(mode, blocks, sets.at(run.rules), opts, tensors));
  }
  if (opts.breakdown) {
    for (Run& run : runs) add_breakdown(run, blocks, sets.at(run.rules), tensors);
  }
  return runs;
}

std::vector<int64_t> parse_list(const std::string& text) {
  std::vector<int64_t> out;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ',')) {
    if (!item.empty()) out.push_back(std::stoll(item));
  }
  return out;
}

// ** reporting **

const Run* find_run(const std::vector<Run>& runs, const std::string& mode, int64_t nodes, int rules) {
  for (const Run& r : runs) {
    if (r.mode == mode && r.nodes == nodes && r.rules == rules) return &r;
  }
  return nullptr;
}

void print_table(const std::vector<Run>& runs, const std::map<int, CompiledSet>& sets,
                 const Options& opts) {
  fmt::print("rule compile (once, not in the timings):\n");
  for (const auto& [count, set] : sets) {
    fmt::print("  {:>3} rules: load+check+lower {:8.3f} ms, CompiledRules {:7.3f} ms, {} classes\n",
               count, set.load_seconds * 1e3, set.compile_seconds * 1e3, set.compiled->class_count());
  }
  fmt::print("\nrewrite_graph, one thread, {}, best of the runs counted:\n", allocator_name());
  fmt::print("{:<7} {:>9} {:>6} {:>5} {:>10} {:>10} {:>12} {:>9} {:>9} {:>12} {:>12}\n", "mode",
             "nodes", "rules", "runs", "seconds", "cpu s", "nodes/s", "rewrites", "after",
             "t(N)/t(1)", "page faults");
  for (const Run& r : runs) {
    const Run* one = find_run(runs, r.mode, r.nodes, 1);
    std::string ratio = one ? fmt::format("{:.2f}", r.seconds / one->seconds) : "-";
    fmt::print("{:<7} {:>9} {:>6} {:>5} {:>10.4f} {:>10.4f} {:>12.0f} {:>9} {:>9} {:>12} {:>12}\n",
               r.mode, r.nodes, r.rules, r.runs, r.seconds, r.cpu_seconds,
               static_cast<double>(r.nodes) / r.seconds, r.applied, r.nodes_after, ratio,
               r.page_faults);
  }
  if (!opts.breakdown) return;
  fmt::print("\nbreakdown (one extra run each; label_all measured alone on a fresh graph):\n");
  fmt::print("{:<7} {:>9} {:>6} {:>10} {:>10} {:>12} {:>10} {:>11}\n", "mode", "nodes", "rules",
             "total s", "label s", "rules' s", "fold s", "candidates");
  for (const Run& r : runs) {
    fmt::print("{:<7} {:>9} {:>6} {:>10.4f} {:>10.4f} {:>12.4f} {:>10.4f} {:>11}\n", r.mode, r.nodes,
               r.rules, r.seconds, r.label_seconds, r.rule_seconds, r.fold_seconds, r.candidates);
  }
}

void print_json(const std::vector<Run>& runs, const std::map<int, CompiledSet>& sets) {
  nlohmann::json out;
  out["compile"] = nlohmann::json::array();
  for (const auto& [count, set] : sets) {
    out["compile"].push_back({{"rules", count}, {"load_seconds", set.load_seconds},
                              {"compile_seconds", set.compile_seconds}});
  }
  out["allocator"] = allocator_name();
  out["runs"] = nlohmann::json::array();
  for (const Run& r : runs) {
    const Run* one = find_run(runs, r.mode, r.nodes, 1);
    nlohmann::json j = {{"mode", r.mode},
                        {"nodes", r.nodes},
                        {"rules", r.rules},
                        {"runs", r.runs},
                        {"seconds", r.seconds},
                        {"cpu_seconds", r.cpu_seconds},
                        {"nodes_per_s", static_cast<double>(r.nodes) / r.seconds},
                        {"rewrites", r.applied},
                        {"nodes_after", r.nodes_after},
                        {"page_faults", r.page_faults}};
    if (one) j["ratio_to_1_rule"] = r.seconds / one->seconds;
    if (r.label_seconds >= 0) {
      j["label_seconds"] = r.label_seconds;
      j["rule_seconds"] = r.rule_seconds;
      j["fold_seconds"] = r.fold_seconds;
      j["candidates"] = r.candidates;
    }
    out["runs"].push_back(j);
  }
  std::cout << out.dump() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  Options opts;
  std::string sizes = "10000,100000,1000000", rules = "1,10,100";
  CLI::App app{"rewrite_bench: times rewrite_graph on synthetic conv-bn-relu graphs"};
  app.add_option("--sizes", sizes, "graph sizes in nodes, comma-separated");
  app.add_option("--rules", rules, "rule-set sizes, comma-separated (1 = fuse_conv_bn alone)");
  app.add_option("--mode", opts.mode, "fold, nofold or both")->check(CLI::IsMember({"fold", "nofold", "both"}));
  app.add_option("--repeat", opts.repeat,
                 "at least this many runs per configuration; the fastest is reported")
      ->check(CLI::PositiveNumber);
  app.add_option("--budget", opts.budget_seconds,
                 "more runs (up to 50) while a graph size has taken less than this many seconds")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--breakdown", opts.breakdown, "also split the time: labelling, rules, folding");
  app.add_flag("--verify", opts.verify, "run the graph verifier on every result (not timed)");
  app.add_flag("--json", opts.json, "print one JSON object instead of the table");
  app.add_option("--dump-rules", opts.dump_rules, "print the N-rule set's text and exit");
  CLI11_PARSE(app, argc, argv);
  install_out_of_memory_handler();
  opts.sizes = parse_list(sizes);
  opts.rule_counts.clear();
  for (int64_t r : parse_list(rules)) opts.rule_counts.push_back(static_cast<int>(r));

  const std::string fuse_path = std::string(GRAFT_SOURCE_DIR) + "/examples/rules/fuse.rules";
  const std::string fuse_rule = extract_rule(read_text(fuse_path), "fuse_conv_bn");
  if (fuse_rule.empty()) {
    std::cerr << "rewrite_bench: error: no rule fuse_conv_bn in " << fuse_path << "\n";
    return 1;
  }
  if (opts.dump_rules > 0) {
    std::cout << rules_text(opts.dump_rules, fuse_rule);
    return 0;
  }
  try {
    std::map<int, CompiledSet> sets;
    for (int count : opts.rule_counts) sets[count] = compile_rules(rules_text(count, fuse_rule));
    SharedTensors tensors = make_tensors();
    std::vector<std::string> modes = opts.mode == "both" ? std::vector<std::string>{"fold", "nofold"}
                                                         : std::vector<std::string>{opts.mode};
    std::vector<Run> runs;
    for (const std::string& mode : modes) {
      for (int64_t size : opts.sizes) {
        for (const Run& r : run_size(mode, size, sets, opts, tensors)) {
          runs.push_back(r);
          if (!opts.json) {
            fmt::print(stderr, "  {} {} nodes, {} rules: {:.4f} s, best of {}\n", mode, r.nodes,
                       r.rules, r.seconds, r.runs);
          }
        }
      }
    }
    if (opts.json) print_json(runs, sets);
    else print_table(runs, sets, opts);
  } catch (const std::exception& e) {
    std::cerr << "rewrite_bench: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
