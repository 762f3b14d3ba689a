// Loading rule files: imports relative to the importing file, each file loaded once, cycles
// reported with the whole chain, missing files and syntax errors in imported files.
#include "dsl/load.h"

#include <catch2/catch.hpp>

#include "tests/dsl/rules_testing.h"
#include "tests/testing/test_paths.h"

using graft::testing::load_rules;

namespace {

const char* kReluRule =
    "rule relu_id { pattern(x) { return relu(relu(x)) } replacement { return relu(x) } }\n";

}  // namespace

TEST_CASE("imports are resolved relative to the importing file and loaded first", "[dsl][load]") {
  graft::testing::LoadedRules loaded = load_rules(
      {
          {"main.rules", "import \"lib/act.rules\"\nphase p once { relu_id, mul_one }\n"},
          {"lib/act.rules", std::string("import \"../common.rules\"\n") + kReluRule},
          {"common.rules",
           "rule mul_one { pattern(x) { return mul(x, 1) } replacement { return x } }\n"},
      },
      "main.rules");
  CHECK(loaded.diagnostics == "");
  REQUIRE(loaded.set.has_value());
  CHECK(loaded.set->file_names() ==
        std::vector<std::string>{"common.rules", "lib/act.rules", "main.rules"});
  REQUIRE(loaded.set->rules().size() == 2);
  CHECK(loaded.set->rules()[0].name == "mul_one");
  CHECK(loaded.set->rules()[0].location == "common.rules:1");
  CHECK(loaded.set->rules()[1].name == "relu_id");
  CHECK(loaded.set->rules()[1].location == "lib/act.rules:2");
}

TEST_CASE("a file imported twice (a diamond) is loaded once", "[dsl][load]") {
  graft::testing::LoadedRules loaded = load_rules(
      {
          {"main.rules", "import \"a.rules\"\nimport \"b.rules\"\n"},
          {"a.rules", "import \"base.rules\"\n"},
          {"b.rules", "import \"./base.rules\"\n"},
          {"base.rules", kReluRule},
      },
      "main.rules");
  CHECK(loaded.diagnostics == "");
  REQUIRE(loaded.set.has_value());
  CHECK(loaded.set->rules().size() == 1);
  CHECK(loaded.set->file_names() ==
        std::vector<std::string>{"base.rules", "a.rules", "b.rules", "main.rules"});
}

TEST_CASE("an import cycle is an error naming every file of the chain", "[dsl][load]") {
  graft::testing::LoadedRules loaded = load_rules(
      {
          {"a.rules", "import \"b.rules\"\n"},
          {"b.rules", "# b\nimport \"c.rules\"\n"},
          {"c.rules", "import \"a.rules\"\n"},
      },
      "a.rules");
  CHECK_FALSE(loaded.set.has_value());
  CHECK(loaded.diagnostics ==
        "c.rules:1:8: error: import cycle: 'a.rules' -> 'b.rules' -> 'c.rules' -> 'a.rules'\n"
        " 1 | import \"a.rules\"\n"
        "   |        ^~~~~~~~~\n"
        "a.rules:1:8: note: 'a.rules' imports 'b.rules' here\n"
        " 1 | import \"b.rules\"\n"
        "   |        ^~~~~~~~~\n"
        "b.rules:2:8: note: 'b.rules' imports 'c.rules' here\n"
        " 2 | import \"c.rules\"\n"
        "   |        ^~~~~~~~~\n");
}

TEST_CASE("a file importing itself is a cycle of one", "[dsl][load]") {
  graft::testing::LoadedRules loaded =
      load_rules({{"self.rules", "import \"self.rules\"\n"}}, "self.rules");
  CHECK_FALSE(loaded.set.has_value());
  CHECK(loaded.diagnostics ==
        "self.rules:1:8: error: import cycle: 'self.rules' -> 'self.rules'\n"
        " 1 | import \"self.rules\"\n"
        "   |        ^~~~~~~~~~~~\n");
}

TEST_CASE("a missing import is reported at the import", "[dsl][load]") {
  graft::testing::LoadedRules loaded =
      load_rules({{"main.rules", "\nimport \"nowhere.rules\"\n"}}, "main.rules");
  CHECK_FALSE(loaded.set.has_value());
  CHECK(loaded.diagnostics ==
        "main.rules:2:8: error: cannot open 'nowhere.rules'\n"
        " 2 | import \"nowhere.rules\"\n"
        "   |        ^~~~~~~~~~~~~~~\n");
}

TEST_CASE("an empty import path is an error", "[dsl][load]") {
  graft::testing::LoadedRules loaded = load_rules({{"main.rules", "import \"\"\n"}}, "main.rules");
  CHECK_FALSE(loaded.set.has_value());
  CHECK(loaded.diagnostics ==
        "main.rules:1:8: error: empty import path\n"
        " 1 | import \"\"\n"
        "   |        ^~\n");
}

TEST_CASE("a syntax error in an imported file stops before sema", "[dsl][load]") {
  graft::testing::LoadedRules loaded = load_rules(
      {
          {"main.rules", "import \"bad.rules\"\nphase p once { relu_id }\n"},
          {"bad.rules", "rule relu_id {\n"},
      },
      "main.rules");
  CHECK_FALSE(loaded.set.has_value());
  // Only the syntax error: no "unknown rule 'relu_id'" from a half-loaded set.
  CHECK(loaded.diagnostics ==
        "bad.rules:1:15: error: expected 'pattern(...)' at the start of the rule\n"
        " 1 | rule relu_id {\n"
        "   |               ^\n");
}

TEST_CASE("duplicate rules across files point at both definitions", "[dsl][load]") {
  graft::testing::LoadedRules loaded = load_rules(
      {{"main.rules", std::string("import \"lib.rules\"\n") + kReluRule}, {"lib.rules", kReluRule}},
      "main.rules");
  CHECK_FALSE(loaded.set.has_value());
  CHECK(loaded.diagnostics ==
        "main.rules:2:6: error: duplicate rule 'relu_id'\n"
        " 2 | rule relu_id { pattern(x) { return relu(relu(x)) } replacement { return relu(x) } }\n"
        "   |      ^~~~~~~\n"
        "lib.rules:1:6: note: previous definition of 'relu_id' is here\n"
        " 1 | rule relu_id { pattern(x) { return relu(relu(x)) } replacement { return relu(x) } }\n"
        "   |      ^~~~~~~\n");
}

TEST_CASE("files are read from disk by default", "[dsl][load]") {
  std::string dir = graft::testing::make_temp_dir("dsl_load");
  graft::testing::write_file(dir + "/main.rules", "import \"sub/lib.rules\"\n");
  graft::testing::write_file(dir + "/sub/lib.rules", kReluRule);
  graft::SourceManager sources;
  graft::DiagnosticEngine diags(&sources);
  std::optional<graft::dsl::RuleFileSet> set =
      graft::dsl::load_rule_files({dir + "/main.rules"}, sources, diags);
  CHECK(diags.render() == "");
  REQUIRE(set.has_value());
  CHECK(set->rules().size() == 1);

  set = graft::dsl::load_rule_files({dir + "/missing.rules"}, sources, diags);
  CHECK_FALSE(set.has_value());
  CHECK(diags.render() == dir + "/missing.rules: error: cannot open '" + dir +
                              "/missing.rules': No such file or directory\n");
}
