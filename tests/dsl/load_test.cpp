// Loading rule files: imports relative to the importing file and confined to its folder, each
// file loaded once, cycles reported with the whole chain, missing files and syntax errors in
// imported files.
#include "dsl/load.h"

#include <catch2/catch.hpp>

#include <filesystem>

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
          {"lib/act.rules", std::string("import \"base/common.rules\"\n") + kReluRule},
          {"lib/base/common.rules",
           "rule mul_one { pattern(x) { return mul(x, 1) } replacement { return x } }\n"},
      },
      "main.rules");
  CHECK(loaded.diagnostics == "");
  REQUIRE(loaded.set.has_value());
  CHECK(loaded.set->file_names() ==
        std::vector<std::string>{"lib/base/common.rules", "lib/act.rules", "main.rules"});
  REQUIRE(loaded.set->rules().size() == 2);
  CHECK(loaded.set->rules()[0].name == "mul_one");
  CHECK(loaded.set->rules()[0].location == "lib/base/common.rules:1");
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

// ** confinement: an import stays in the importing file's folder **

TEST_CASE("an import that leaves the importing file's folder is rejected at the import",
          "[dsl][load][confine]") {
  std::map<std::string, std::string> files = {
      {"lib/act.rules", std::string("import \"../common.rules\"\n") + kReluRule},
      {"common.rules", "rule mul_one { pattern(x) { return mul(x, 1) } replacement { return x } }\n"},
  };
  graft::testing::LoadedRules loaded = load_rules(files, "lib/act.rules");
  CHECK_FALSE(loaded.set.has_value());
  CHECK(loaded.diagnostics ==
        "lib/act.rules:1:8: error: '../common.rules' leaves the importing file's folder through "
        "'..' (--allow-path DIR also allows files under DIR)\n"
        " 1 | import \"../common.rules\"\n"
        "   |        ^~~~~~~~~~~~~~~~~\n");
  // Allowed explicitly, it loads.
  loaded = load_rules(files, "lib/act.rules", graft::PathPolicy{{"."}});
  CHECK(loaded.diagnostics == "");
  CHECK(loaded.set.has_value());

  graft::testing::LoadedRules abs = load_rules({{"main.rules", "import \"/etc/passwd\"\n"}}, "main.rules");
  CHECK_THAT(abs.diagnostics, Catch::StartsWith("main.rules:1:8: error: '/etc/passwd' is an "
                                                "absolute path; files named here must lie in the "
                                                "importing file's folder"));
  // A tab (an escape) or a raw NUL in the name.
  CHECK_THAT(load_rules({{"main.rules", "import \"a\\tb.rules\"\n"}}, "main.rules").diagnostics,
             Catch::Contains("'a\\x09b.rules' contains the control character \\x09"));
  CHECK_THAT(load_rules({{"main.rules", std::string("import \"a\0b.rules\"\n", 19)}}, "main.rules")
                 .diagnostics,
             Catch::Contains("'a\\x00b.rules' contains the control character \\x00"));
}

TEST_CASE("an import of a file outside is refused before it is read, so none of it is quoted",
          "[dsl][load][confine]") {
  // The secret is not a rule file: read, its first line would be quoted in a syntax error.
  std::string dir = graft::testing::make_temp_dir("dsl_load_confine");
  graft::testing::write_file(dir + "/secret.txt", "TOP SECRET: hunter2\n");
  graft::testing::write_file(dir + "/rules/abs.rules", "import \"" + dir + "/secret.txt\"\n");
  graft::testing::write_file(dir + "/rules/up.rules", "import \"../secret.txt\"\n");
  std::filesystem::create_symlink(dir + "/secret.txt", dir + "/rules/link.rules");
  graft::testing::write_file(dir + "/rules/link_user.rules", "import \"link.rules\"\n");
  std::filesystem::create_directory_symlink(dir, dir + "/rules/up_dir");
  graft::testing::write_file(dir + "/rules/dir_user.rules", "import \"up_dir/secret.txt\"\n");
  for (const char* file : {"abs.rules", "up.rules", "link_user.rules", "dir_user.rules"}) {
    INFO(file);
    graft::SourceManager sources;
    graft::DiagnosticEngine diags(&sources);
    CHECK_FALSE(graft::dsl::load_rule_files({dir + "/rules/" + file}, sources, diags));
    std::string out = diags.render();
    CHECK_THAT(out, Catch::Contains(std::string(file) + ":1:8: error: '"));
    CHECK_THAT(out, !Catch::Contains("hunter2"));
  }
  // With the folder allowed, the import is read (and rejected as rules, quoting it: the user
  // asked for that file).
  graft::SourceManager sources;
  graft::DiagnosticEngine diags(&sources);
  graft::dsl::LoadOptions options;
  options.paths.allowed_roots = {dir};
  CHECK_FALSE(graft::dsl::load_rule_files({dir + "/rules/up.rules"}, sources, diags, options));
  CHECK_THAT(diags.render(), Catch::Contains("hunter2"));
}

TEST_CASE("the standard library loads from disk with its imports", "[dsl][load][confine]") {
  graft::SourceManager sources;
  graft::DiagnosticEngine diags(&sources);
  std::optional<graft::dsl::RuleFileSet> set = graft::dsl::load_rule_files(
      {graft::testing::source_path("rules/std.rules")}, sources, diags);
  CHECK(diags.render() == "");
  CHECK(set.has_value());
}
