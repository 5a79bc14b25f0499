// The catalogue of malformed configs (tests/malformed_configs/NN_*.pbtxt): each
// must fail at its stated stage with an error containing every `# expect:` line,
// and never crash or hang. Directives in a case's leading comments:
//   # stage: parse | initialize | run
//   # expect: <substring of the error>       (one or more)
//   # register: <companion subgraph file>    (registered before the case runs)
// A binary case NN_x.binarypb keeps its directives in NN_x.expect.
#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "framework/calculator_graph.h"
#include "framework/tool/graph_config_io.h"
#include "framework/tool/subgraph_registry.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

const char kDir[] = "tests/malformed_configs";

struct Case {
  std::string file;  // name inside kDir
  std::string stage;
  std::vector<std::string> expects;
  std::vector<std::string> registers;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.file; }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Case ReadCase(const std::string& file) {
  Case c{file, "", {}, {}};
  std::string directives_file = file;
  if (absl::EndsWith(file, ".binarypb")) {
    directives_file = std::string(absl::StripSuffix(file, ".binarypb")) + ".expect";
  }
  std::istringstream lines(ReadFile(absl::StrCat(kDir, "/", directives_file)));
  std::string line;
  while (std::getline(lines, line) && absl::StartsWith(line, "#")) {
    absl::string_view rest = absl::StripLeadingAsciiWhitespace(absl::string_view(line).substr(1));
    if (absl::ConsumePrefix(&rest, "stage: ")) c.stage = std::string(rest);
    if (absl::ConsumePrefix(&rest, "expect: ")) c.expects.emplace_back(rest);
    if (absl::ConsumePrefix(&rest, "register: ")) c.registers.emplace_back(rest);
  }
  return c;
}

std::vector<Case> AllCases() {
  std::vector<std::string> files;
  if (DIR* dir = opendir(kDir)) {
    while (dirent* e = readdir(dir)) {
      std::string name = e->d_name;
      bool numbered = name.size() > 3 && isdigit(name[0]) && isdigit(name[1]) && name[2] == '_';
      if (numbered && (absl::EndsWith(name, ".pbtxt") || absl::EndsWith(name, ".binarypb"))) {
        files.push_back(name);
      }
    }
    closedir(dir);
  }
  std::sort(files.begin(), files.end());
  std::vector<Case> cases;
  for (const std::string& f : files) cases.push_back(ReadCase(f));
  return cases;
}

// Runs one case until it fails; returns the stage that failed and its error.
std::pair<std::string, absl::Status> RunCase(const Case& c) {
  for (const std::string& companion : c.registers) {
    absl::Status s =
        SubgraphRegistry::Get().RegisterGraphFile(absl::StrCat(kDir, "/", companion));
    if (!s.ok()) return {"register", s};
  }
  auto config = LoadGraphConfigFile(absl::StrCat(kDir, "/", c.file));
  if (!config.ok()) return {"parse", config.status()};
  CalculatorGraph graph;
  absl::Status s = graph.Initialize(*config);
  if (!s.ok()) return {"initialize", s};
  return {"run", graph.Run()};
}

class MalformedConfigTest : public ::testing::TestWithParam<Case> {};

TEST_P(MalformedConfigTest, FailsWithItsExactError) {
  const Case& c = GetParam();
  ASSERT_FALSE(c.expects.empty()) << c.file << " has no `# expect:` line";
  ASSERT_TRUE(c.stage == "parse" || c.stage == "initialize" || c.stage == "run")
      << c.file << ": bad stage \"" << c.stage << "\"";
  auto [stage, status] = RunCase(c);
  ASSERT_FALSE(status.ok()) << c.file << " was accepted";
  EXPECT_EQ(stage, c.stage) << c.file << " failed at another stage: " << status.message();
  for (const std::string& expect : c.expects) {
    EXPECT_TRUE(absl::StrContains(status.message(), expect))
        << c.file << ": error lacks \"" << expect << "\"\n  error: " << status.message();
  }
}

TEST(MalformedConfigCatalogueTest, HasAtLeast25Cases) { EXPECT_GE(AllCases().size(), 25u); }

INSTANTIATE_TEST_SUITE_P(Catalogue, MalformedConfigTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name = info.param.file.substr(0, info.param.file.find('.'));
                           std::replace_if(name.begin(), name.end(),
                                           [](char ch) { return !isalnum(ch); }, '_');
                           return name;
                         });

}  // namespace
}  // namespace sluice
