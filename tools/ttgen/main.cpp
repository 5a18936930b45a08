// ttgen: compiles .tk kernels. Flags are parsed here; the work is in driver.cpp. Exit codes:
// 0 ok, 1 errors in the input, 2 usage errors, 3 internal errors (a bug in TileKit).
#include "tools/ttgen/driver.hpp"

#include <CLI/CLI.hpp>

#include <iostream>
#include <iterator>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  using namespace tk::ttgen;
  CLI::App app{"ttgen: compiles TileKit (.tk) kernels.", "ttgen"};
  app.set_version_flag("--version", "ttgen " TK_VERSION, "Print the version and exit");
  Options options;
  app.add_option("input", options.input, "The .tk file to compile, or - for standard input")
      ->required();
  std::string emit = "ast";
  app.add_option("--emit", emit, "What to print: ast = the checked kernels as canonical .tk text")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(kEmitNames), std::end(kEmitNames))))
      ->type_name("KIND")
      ->capture_default_str();
  app.add_option("-o,--output", options.output, "Write the output to FILE instead of stdout")
      ->type_name("FILE");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "ttgen: error: " << e.what() << "\nrun 'ttgen --help' for usage\n";
    return kUsageError;
  }

  options.emit = emit_from_name(emit);

  return guard_internal_errors([&] { return run(options, std::cin, std::cout, std::cerr); },
                               std::cerr);
}
